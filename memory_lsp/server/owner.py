"""The owner: the one process that holds the workspaces' indexes (DuckDB lets one process open a
file), their writers and their impact graphs, and serves every editor window.

Each `memory-lsp serve` is a proxy (proxy.py) that relays its editor's LSP stream to this process
over a Unix socket (link.py); here each connection is an LSP session of its own (a `MemoryServer`
on its own thread and event loop), and sessions on one workspace share its folder (pool.py). The
first client starts the owner; it exits after `MEMORY_LSP_OWNER_IDLE` seconds (default 60) with no
session. If it dies, the next client message starts another one and each proxy replays its
session to it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
import struct
import sys
import threading
import time

from memory_lsp.bridge import one_line, write_atomically
from memory_lsp import runtime
from memory_lsp.server import link

log = logging.getLogger("memory_lsp.owner")

IDLE_ENV = "MEMORY_LSP_OWNER_IDLE"
IDLE_SECONDS = 60.0


class Owner:
    def __init__(self, listener: socket.socket, idle: float):
        from memory_lsp.server.pool import FolderPool

        self.listener = listener
        self.idle = idle
        self.pool = FolderPool()
        self.sessions = 0
        self.commands = 0  # CLI commands running
        self.connections = 0  # accepted and not closed yet (sessions, commands, and not yet either)
        self.last_active = time.monotonic()
        self._lock = threading.Lock()
        self._creating = threading.Lock()
        self._kept: dict = {}  # root -> (holder, folder, file id): a folder a CLI command opened, kept open (`_keep`)

    def serve(self) -> None:
        """Accept clients until nobody has used the owner for `idle` seconds. To leave, it first takes its
        socket's name away, so that no client can connect (each waits for the owner lock, then starts
        another owner), and waits once more: a client that connected just before is queued in the
        listener, and closing the listener would reset it. Such a client keeps the owner (`_stay`)."""
        self.listener.settimeout(0.5)
        leaving = False
        while True:
            try:
                accepted = [self.listener.accept()[0]]
            except socket.timeout:
                with self._lock:
                    idle = self.connections == 0 and (leaving or time.monotonic() - self.last_active > self.idle)
                if idle and leaving:
                    log.info("no client for %.0f s: exiting", self.idle)
                    self._release_kept()
                    return
                if idle:
                    runtime.socket_path().unlink(missing_ok=True)
                    leaving = True
                continue
            if leaving:
                accepted += self._stay()
                leaving = False
            for conn in accepted:
                self._accepted(conn)

    def _stay(self) -> list[socket.socket]:
        """A client connected as the owner was leaving: listen under the socket's name again, and take
        the other clients queued on the old listener (no new one can reach it) before closing it."""
        old, self.listener = self.listener, listen(runtime.socket_path())
        self.listener.settimeout(0.5)
        old.setblocking(False)
        queued = []
        while True:
            try:
                queued.append(old.accept()[0])
            except OSError:  # none left (BlockingIOError)
                break
        old.close()
        log.info("a client came as the owner was leaving: it stays")
        return queued

    def _accepted(self, conn: socket.socket) -> None:
        conn.settimeout(None)
        if not _same_user(conn):
            log.warning("refused a connection from another user")
            conn.close()
            return
        with self._lock:  # counted from accept: a session whose first byte is late is no idle time
            self.connections += 1
        threading.Thread(target=self._serve_one, args=(conn,), name="memory-client", daemon=True).start()

    def _serve_one(self, conn: socket.socket) -> None:
        """An editor's LSP stream starts with a header; a CLI command is one JSON line."""
        try:
            first = conn.recv(1, socket.MSG_PEEK)
        except OSError:
            first = b""
        try:
            if first == b"{":
                self._command(conn)
            elif first:
                self._session(conn)
        finally:
            conn.close()
            with self._lock:
                self.connections -= 1
                self.last_active = time.monotonic()

    def _command(self, conn: socket.socket) -> None:
        """`{"root", "command", "arguments"}` -> `{"result"}` or `{"error", "busy"}`, one line each.
        The folder opens for the first command and stays open for the next ones until the owner idles
        out (`_keep`)."""
        from pathlib import Path

        from memory_lsp.errors import IndexBusy, UserError

        with self._lock:
            self.commands += 1
        reply: dict = {}
        try:
            with conn.makefile("rb") as stream:
                request = json.loads(stream.readline(link.MAX_REQUEST) or b"null")
            if not isinstance(request, dict) or not isinstance(request.get("root"), str) \
                    or not isinstance(request.get("command"), str):
                raise UserError('bad request: expected {"root": PATH, "command": NAME, "arguments": {...}}')
            root = Path(request["root"]).resolve()
            if request["command"] == runtime.LET_GO:  # another process wants the file
                reply["result"] = {"closed": self._release_kept(root)}
            else:
                self._run(root, request, reply)
        except UserError as exc:
            reply = {"error": one_line(str(exc)), "busy": isinstance(exc, IndexBusy)}
        except Exception as exc:
            log.exception("a CLI command failed")
            reply = {"error": f"memory-lsp failed ({type(exc).__name__}); the owner's log has the details: "
                              f"{runtime.log_path()}"}
        try:
            conn.sendall((json.dumps(reply, default=str) + "\n").encode())
        except OSError:
            pass  # the CLI gave up
        finally:
            conn.close()
            with self._lock:
                self.commands -= 1
                self.last_active = time.monotonic()

    def _run(self, root, request: dict, reply: dict) -> None:
        """One command in the folder at `root`, kept open after it (`_keep`)."""
        from memory_lsp.settings import Config

        if self._file_replaced(root):  # `rm -r .memory` to start again: a new index, not the deleted file
            self._release_kept(root)
        warnings: list[str] = []
        user = _CommandUser()
        folder, _created = self.pool.acquire(root, Config(), user)
        try:
            folder.open()
            during = folder.reindexing and request["command"] != "memory.reindex"
            reply["result"] = folder.command(request["command"], request.get("arguments") or {},
                                             warn=warnings.append).result()
            reply["warnings"] = warnings
            if during and folder.reindexing:
                reply["note"] = "an index run is under way: this answer is from the index before it"
        finally:
            self._keep(root, folder, request["command"])
            self.pool.release(folder, user)

    def _keep(self, root, folder, command: str) -> None:
        """Hold a folder a CLI command opened (and its impact graph) until the owner idles out: an agent's
        commands come in bursts, and each one opened the index and loaded the graph again (BENCHMARKS.md
        da). Not a folder that failed to open: the next command tries again. The graph is loaded behind
        the first command and an index command's answer, as an editor's folder does in its graph loop."""
        from memory_lsp.commands import REINDEX
        from memory_lsp.settings import Config

        with self._lock:
            if folder.ws is None or root in self._kept and command != REINDEX:
                return
            if root not in self._kept:
                keeper = _CommandUser()
                self._kept[root] = keeper, self.pool.acquire(root, Config(), keeper)[0], _file_id(folder.ws.store.path)
        if not folder.started:  # (a window's folder has its graph loop)
            self.pool.reader.submit(_load_graph, folder.ws)

    def _release_kept(self, root=None) -> bool:
        """Close the folders kept for CLI commands (only `root`'s if given) unless a window holds one:
        True if that closed the index (its file is free for another process)."""
        with self._lock:
            roots = list(self._kept) if root is None else [root] if root in self._kept else []
            kept = [self._kept.pop(r) for r in roots]
        for keeper, folder, _ in kept:
            self.pool.release(folder, keeper)
        return bool(kept) and not self.pool.holds(root)

    def _file_replaced(self, root) -> bool:
        """Whether the index file of the folder kept for `root` was deleted or replaced since it opened."""
        with self._lock:
            kept = self._kept.get(root)
        return kept is not None and kept[1].ws is not None and _file_id(kept[1].ws.store.path) != kept[2]

    def _session(self, conn: socket.socket) -> None:
        """One editor window: an LSP session over the connection until the proxy leaves."""
        from memory_lsp.server.server import create_server

        with self._lock:
            self.sessions += 1
        server = None
        rfile, wfile = conn.makefile("rb"), conn.makefile("wb")
        try:
            with self._creating:  # lsprotocol resolves its types on first use, and not thread-safely
                server = create_server(pool=self.pool)
            server.start_io(rfile, wfile)
        except Exception:
            log.exception("an LSP session failed")
        finally:
            try:  # the proxy waits for this end of the stream (close alone waits for the file objects);
                # first, so that it exits while the folders close (an index run stops at its next batch)
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                if server is not None:
                    server.close_all()
            except Exception:
                log.exception("closing a session's folders failed")
            for stream in (rfile, wfile, conn):
                try:
                    stream.close()
                except OSError:
                    pass
            with self._lock:
                self.sessions -= 1
                self.last_active = time.monotonic()
            log.info("a session ended; %d left", self.sessions)


def main() -> int:
    """The owner process (started by `link.start_owner`); returns at once if another one runs."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"%(asctime)s owner[{os.getpid()}] %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)  # INFO logs every message's data
    lock = open(runtime.lock_path(), "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another owner won the race
    from memory_lsp.store import allocator  # DuckDB loads with it: not for an owner that lost the race

    allocator.long_lived()  # before any thread: one that has a heap keeps it
    path = runtime.socket_path()
    path.unlink(missing_ok=True)  # we hold the lock: a socket there is a dead owner's
    listener = listen(path)
    write_atomically(runtime.info_path(), {"pid": os.getpid(), "socket": str(path), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    sys.stdin = open(os.devnull)  # forked parse workers must not wait on a real stdin (server.start)
    log.info("listening at %s", path)
    try:
        Owner(listener, float(os.environ.get(IDLE_ENV) or IDLE_SECONDS)).serve()
    finally:
        listener.close()
        path.unlink(missing_ok=True)
        runtime.info_path().unlink(missing_ok=True)
        logging.shutdown()
    os._exit(0)  # folders were closed by their sessions; do not wait for stray daemon threads


def listen(path) -> socket.socket:
    """A listening socket at `path` that only this user may open (its folder is private too)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o600)
    listener.listen(64)
    return listener


class _CommandUser:
    """A CLI command holding a folder while it runs; it does not follow changes."""

    def changed(self, folder, paths) -> None:
        pass


def _load_graph(ws) -> None:
    try:
        if ws.has_code():
            started = time.monotonic()
            ws.load_graph(prepare=True)
            log.info("the graph of %s loaded behind a CLI command in %.2f s", ws.root, time.monotonic() - started)
    except Exception:  # (closed meanwhile: the next `impact` loads it)
        log.info("loading the graph behind a CLI command failed", exc_info=True)


def _file_id(path: str) -> tuple | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this user (the socket's folder is private too; this is the second lock)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid == os.getuid()

