import sys
from pathlib import Path

# tests import their helpers as `from helpers import ...`
sys.path.insert(0, str(Path(__file__).parent))

import os
import signal
import tempfile

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_owner():
    """The tests' own memory-lsp owner (its socket folder is theirs; it leaves soon when idle), so
    that a test run never talks to the owner of the editor you are working in."""
    folder = tempfile.mkdtemp(prefix="mlsp-rt-")  # short: Unix socket paths stop near 100 bytes
    os.environ["MEMORY_LSP_RUNTIME_DIR"] = folder
    os.environ.setdefault("MEMORY_LSP_OWNER_IDLE", "5")
    yield folder
    for info in Path(folder).glob("owner-*.json"):
        try:
            os.kill(int(__import__("json").loads(info.read_text())["pid"]), signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            pass
