"""How a client reaches the owner: the one process per user (and per installation) that holds
every workspace's index, writer and graph (owner.py). Clients are each editor window's
`memory-lsp serve` (proxy.py) and the CLI.

The owner listens on a Unix socket in a folder only this user may open. A client connects; when
nobody listens, it starts an owner (a detached `python -c ...owner.main()`) and retries until
the socket answers. Two clients starting at once start two owners; the owner lock
(`owner-KEY.lock`, flock) lets one of them live. Nothing here imports pygls or DuckDB: a client
stays small and starts fast.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from memory_lsp.errors import UserError
from memory_lsp.runtime import exchange, log_path, owner_running, socket_path

START_TIMEOUT = 30.0  # seconds a client waits for a new owner to listen
RESPAWN_EVERY = 2.0  # seconds between attempts to start an owner while none listens
MAX_REQUEST = 16 * 1024 * 1024  # bytes in one command line


class Unreachable(UserError):
    """No owner answered (none could be started, or it did not listen in time)."""


def start_owner() -> None:
    """A detached owner process; it exits at once if another one holds the lock."""
    with open(log_path(), "ab") as log:
        subprocess.Popen([sys.executable, "-c", "from memory_lsp.server.owner import main; main()"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                         start_new_session=True, close_fds=True, cwd="/")


def connect(start: bool = True, timeout: float = START_TIMEOUT, waiting=None) -> socket.socket:
    """A connected socket to the owner, starting one if none listens (`waiting()` is called once
    if the wait is long enough for a person to notice)."""
    if not hasattr(socket, "AF_UNIX"):
        raise Unreachable("no Unix domain sockets on this system: use `memory-lsp serve --standalone`")
    path = str(socket_path())
    started = time.monotonic()
    deadline = started + timeout
    last_start = -RESPAWN_EVERY
    told = False
    delay = 0.02
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:  # no socket yet, or a stale one from an owner that died
            sock.close()
        now = time.monotonic()
        if now > deadline:
            raise Unreachable(f"the memory-lsp owner did not start within {timeout:g} s; its log: {log_path()}")
        if start and now - last_start >= RESPAWN_EVERY and not owner_running():
            start_owner()
            last_start = now
        if waiting is not None and not told and now - started > 1.0:
            waiting()
            told = True
        time.sleep(delay)
        delay = min(delay * 1.5, 0.2)


def ask(root: Path, name: str, arguments: dict, timeout: float | None = None) -> dict:
    """Run one command in the owner (started if need be): `{"result", "warnings"}`, or
    `{"error", "busy"}` when it failed (busy: another process, not an owner, holds the index)."""
    with connect(waiting=lambda: print("memory-lsp: starting the owner process...", file=sys.stderr)) as sock:
        try:
            line = exchange(sock, {"root": str(root), "command": name, "arguments": arguments}, timeout)
        except socket.timeout:
            raise Unreachable(f"the memory-lsp owner did not answer {name} within {timeout:g} s; "
                              f"its log: {log_path()}") from None
        except OSError:  # reset or broken: it died before it answered
            line = b""
    try:
        reply = json.loads(line)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise Unreachable(f"the memory-lsp owner {'died' if not line else 'sent an unreadable answer'} "
                          f"during {name}; its log: {log_path()}")
    return reply


def exit_when_gone(pid, what: str = "the editor") -> None:
    """The process `pid` (the editor) died without saying goodbye: exit this one too. No waiting
    for running work: an index transaction rolls back, and DuckDB's lock goes with the process."""
    if not isinstance(pid, int) or pid <= 0:
        return

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                logging.getLogger("memory_lsp").warning("%s (process %d) is gone: exiting", what, pid)
                logging.shutdown()
                os._exit(0)
            except PermissionError:
                pass  # it exists, under another user
    threading.Thread(target=watch, name="memory-watch-editor", daemon=True).start()
