"""Run a command for the CLI: in the owner, or here.

DuckDB lets one process open the index, so one process, the owner (server/owner.py), holds it
for every editor window and CLI command: `call` sends each read of the index there (link.py
starts the owner when none runs). Memory writes append to the event log from here. When a
process that is not the owner holds the file (a `serve --standalone` server, a script), a read
is asked of that server over the Unix socket it names in `ROOT/.memory/server.json` (the server
half is `memory_lsp.bridge`); with no server, memory reads replay the log (`OfflineWorkspace`,
and say so on stderr) and index commands fail with the IndexBusy line.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
from pathlib import Path

from memory_lsp.bridge import INFO_FILE, one_line, read_info
from memory_lsp.commands import COMMANDS, Command, run
from memory_lsp.errors import IndexBusy, UserError
from memory_lsp.paths import MEMORY_DIR, workspace_root
from memory_lsp.runtime import exchange
from memory_lsp.server import link


class Unreachable(UserError):
    """The server named in server.json cannot be asked (gone, not answering, or an unreadable answer)."""


def call(folder: str, db: str | None, name: str, arguments: dict, progress=None) -> dict:
    """Run the command `name` for the CLI and return its result (what --json prints)."""
    command = COMMANDS[name]
    root = workspace_root(folder)
    if _to_owner(db, command, root):
        command.arguments(arguments)  # a mistake is ours to report, not the owner's
        reply = link.ask(root, name, arguments, timeout=command.timeout)
        if "result" in reply:
            for line in reply.get("warnings") or []:
                print(f"warning: {line}", file=sys.stderr)
            if reply.get("note"):
                print(f"note: {reply['note']}", file=sys.stderr)
            return reply["result"]
        if not reply.get("busy"):
            raise UserError(reply.get("error") or f"{name} failed")
        # a process that is not the owner (a standalone server, a script) has the index: ask
        # its server if it runs one, else answer from the event log, as below
    ws, busy = _open(root, db, command)
    if command.forwardable and db is None and busy is not None:
        command.arguments(arguments)  # a mistake is ours to report, not the server's
        server = find(root)
        if server is not None:
            try:
                result = ask(root, name, arguments, timeout=command.timeout)
            except Unreachable as exc:  # gone or stuck: as if there were no server
                print(f"note: {exc}", file=sys.stderr)
            else:
                if ws is not None:
                    ws.close()
                print(f"note: answered by the running language server (pid {server['pid']})", file=sys.stderr)
                return result
    if ws is None:  # the index is busy and nobody else could answer
        command.arguments(arguments)
        raise busy
    warnings: list[str] = []
    try:
        result = run(ws, name, arguments, progress=progress, warn=warnings.append)
    finally:
        ws.close()
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    if getattr(ws, "note", None):
        print(f"note: {ws.note}", file=sys.stderr)
    return result


def _to_owner(db: str | None, command: Command, root: Path) -> bool:
    """Reads of the index go to the owner, which holds it for every process (server/owner.py).
    Memory writes append to the event log from here (no index needed), and so do memory reads
    where there is no index yet; `--db` or MEMORY_LSP_NO_OWNER=1 run everything in this process."""
    if db is not None or os.environ.get("MEMORY_LSP_NO_OWNER") == "1" or not command.forwardable:
        return False
    return command.needs_index or (root / MEMORY_DIR / "index.duckdb").exists()


def _open(root: Path, db: str | None, command: Command):
    """(workspace, IndexBusy or None): the index for a command that needs it (None while busy);
    for a memory read, the index if there is one and it is free, else the log; else the log."""
    from memory_lsp.workspace.offline import OfflineWorkspace  # not in a command the owner answers

    index_exists = db is not None or (root / MEMORY_DIR / "index.duckdb").exists()
    if not command.needs_index and not (command.reads_memories and index_exists):
        return OfflineWorkspace(root), None
    from memory_lsp.workspace.host import Workspace  # duckdb loads only for the commands that need it

    try:
        return Workspace.open(root, db=db), None
    except IndexBusy as busy:
        return (None if command.needs_index else OfflineWorkspace(root, busy=busy)), busy


# -- the bridge's client half --------------------------------------------------------------------
def find(root: Path) -> dict | None:
    """server.json of a live server for `root`, or None (missing, unreadable, dead pid, no socket)."""
    root = Path(root).resolve()
    info = read_info(root / MEMORY_DIR / INFO_FILE)
    if info is None or not isinstance(info.get("pid"), int) or not isinstance(info.get("socket"), str):
        return None
    if info.get("root", str(root)) != str(root) or not _alive(info["pid"]) or not _is_socket(info["socket"]):
        return None
    return info


def ask(root: Path, name: str, arguments: dict | None, timeout: float | None = 120) -> dict:
    """Send one command to the running server; its result, or a UserError (its error line, or
    `Unreachable` when it cannot be asked)."""
    info = find(root)
    if info is None:
        raise Unreachable(f"no memory-lsp language server is running for {Path(root).resolve()}")
    server = f"the language server (pid {info['pid']})"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(info["socket"])
            line = exchange(sock, {"command": name, "arguments": arguments}, timeout)
    except socket.timeout:
        raise Unreachable(f"{server} did not answer {name} within {timeout:g} s") from None
    except OSError as exc:
        raise Unreachable(f"cannot reach {server} at {info['socket']}: {exc.strerror or exc}") from None
    try:
        reply = json.loads(line)
    except ValueError:
        reply = None
    if isinstance(reply, dict) and isinstance(reply.get("error"), str):
        raise UserError(one_line(reply["error"]))
    if not isinstance(reply, dict) or not isinstance(reply.get("result"), dict):
        raise Unreachable(f"{server} sent {'no' if not line else 'an unreadable'} answer to {name}")
    return reply["result"]


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    except OSError:
        return False
    return True


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False
