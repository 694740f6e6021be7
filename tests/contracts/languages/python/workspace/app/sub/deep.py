from ..core import helper
from ...outside import nothing
import app.util


def run():
    helper()
    app.util.log('y')
