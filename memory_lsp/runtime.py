"""Where this user's owner lives (its socket, lock, log and pid file: server/owner.py), and the one
request any process may make of it without the LSP edge: to let go of a workspace's index that it
keeps open only for CLI commands (`let_go`). Outside the layers: the workspace asks it when the
index is busy, the server's client half (server/link.py) builds on the rest. No pygls, no DuckDB.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import sys
import tempfile
from pathlib import Path

from memory_lsp import __version__
from memory_lsp.bridge import private_folder

RUNTIME_ENV = "MEMORY_LSP_RUNTIME_DIR"  # where the socket, lock and log live (tests use their own)
LET_GO = "owner.letGo"  # a command line asking the owner to close an index only CLI commands opened (`let_go`)
LET_GO_WAIT_S = 30.0  # the owner closes the folder first: an index run under way stops at its next batch


def runtime_dir() -> Path:
    """This user's private folder for the owner's socket, lock and log (created 0700, checked)."""
    if os.environ.get(RUNTIME_ENV):
        folder = Path(os.environ[RUNTIME_ENV])
    elif os.environ.get("XDG_RUNTIME_DIR"):
        folder = Path(os.environ["XDG_RUNTIME_DIR"]) / "memory-lsp"
    else:
        folder = Path(tempfile.gettempdir()) / f"memory-lsp-{os.getuid()}"
    return private_folder(folder)


def key() -> str:
    """One owner per installation: two virtual environments never share one (their code may differ)."""
    here = Path(__file__).resolve().parent  # the package
    return hashlib.sha256(f"{__version__}:{sys.prefix}:{here}".encode()).hexdigest()[:12]


def socket_path() -> Path:
    return runtime_dir() / f"owner-{key()}.sock"


def lock_path() -> Path:
    return runtime_dir() / f"owner-{key()}.lock"


def info_path() -> Path:
    """The running owner's pid and socket (JSON)."""
    return runtime_dir() / f"owner-{key()}.json"


def log_path() -> Path:
    return runtime_dir() / f"owner-{key()}.log"


def owner_running() -> bool:
    """Does a live process hold the owner lock (one is listening, or about to)?"""
    try:
        with open(lock_path(), "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(lock, fcntl.LOCK_UN)
            return False
    except OSError:
        return False


def exchange(sock: socket.socket, request: dict, timeout: float | None) -> bytes:
    """Send one JSON line over a connected socket and read the one-line answer (b"" if the peer closed first)."""
    sock.settimeout(timeout)
    sock.sendall((json.dumps(request, default=str) + "\n").encode())
    with sock.makefile("rb") as stream:
        return stream.readline()


def let_go(root: str | os.PathLike) -> bool:
    """Ask this user's running owner to close the index of `root` that it keeps open after CLI
    commands (server/owner.py `_keep`), so that this process can open it: True if it closed it.
    No owner is started, a window's index stays open, and an owner never asks itself."""
    try:
        info = json.loads(info_path().read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(info, dict) or info.get("pid") == os.getpid() or not owner_running():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(LET_GO_WAIT_S)
            sock.connect(str(socket_path()))
            line = exchange(sock, {"root": str(Path(root).resolve()), "command": LET_GO}, LET_GO_WAIT_S)
        reply = json.loads(line or b"null")
    except (OSError, ValueError):
        return False
    return isinstance(reply, dict) and isinstance(reply.get("result"), dict) and reply["result"].get("closed") is True
