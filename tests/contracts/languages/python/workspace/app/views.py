from app.models import User
from app import core


def show():
    User().save()
    core.helper()
