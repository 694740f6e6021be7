import sys
from pathlib import Path

# tests import their helpers as `from helpers import ...`
sys.path.insert(0, str(Path(__file__).parent))
