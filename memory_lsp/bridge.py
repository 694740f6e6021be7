"""The server half of the CLI's bridge to a running language server (the client half is
`cli/forward.py`), and the wire format both halves share.

DuckDB lets one process open the index. While the language server owns it, the CLI asks the
server instead: the server listens on a Unix domain socket (in a private folder under the temp
directory, named from a hash of the workspace root: socket paths are limited to about 100 bytes)
and says where in `ROOT/.memory/server.json` (`{"pid", "socket", "started", "root"}`). A request
is one JSON line, `{"command": NAME, "arguments": {...}}`; the answer is one JSON line,
`{"result": {...}}` or `{"error": "one line"}`. Connections are served concurrently, one thread
each. Nothing here knows the commands: the server hands `Bridge.start` a handler.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import socketserver
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from memory_lsp.errors import UserError
from memory_lsp.paths import MEMORY_DIR, memory_dir

log = logging.getLogger(__name__)

INFO_FILE = "server.json"
MAX_REQUEST = 16 * 1024 * 1024  # bytes in one request line

Handler = Callable[[str, dict], dict]


def socket_path(root: Path) -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    digest = hashlib.sha256(f"{uid}:{root}".encode()).hexdigest()[:20]
    return Path(tempfile.gettempdir()) / f"memory-lsp-{uid}" / f"{digest}.sock"


# -- server side ---------------------------------------------------------------------------
class Bridge:
    """A server's end: answers the CLI's requests with `handler(name, arguments)` until `close()`."""

    def __init__(self, root: Path, server: "_Server", thread: threading.Thread, info: dict):
        self.root = root
        self.socket = Path(info["socket"])
        self.info = info
        self._server = server
        self._thread = thread
        self._closed = False

    @classmethod
    def start(cls, root: Path, handler: Handler) -> "Bridge":
        if not hasattr(socket, "AF_UNIX"):
            raise UserError("no Unix domain sockets on this system: the CLI cannot ask the server")
        root = Path(root).resolve()
        path = socket_path(root)
        private_folder(path.parent)
        _claim(path)
        server = _Server(str(path), handler)
        os.chmod(path, 0o600)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                  name=f"memory-lsp bridge {root.name}", daemon=True)
        thread.start()
        info = {"pid": os.getpid(), "socket": str(path), "root": str(root),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        bridge = cls(root, server, thread, info)
        try:
            write_atomically(memory_dir(root) / INFO_FILE, info)
        except OSError as exc:
            bridge.close()
            raise UserError(f"cannot write {root / MEMORY_DIR / INFO_FILE}: {exc.strerror or exc}") from None
        return bridge

    def close(self) -> None:
        """Stop listening; remove the socket and server.json (if they are still this process's)."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        info_path = self.root / MEMORY_DIR / INFO_FILE
        if (read_info(info_path) or {}).get("pid") == os.getpid():
            info_path.unlink(missing_ok=True)
        self.socket.unlink(missing_ok=True)


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True  # a client that never sends its line must not keep the process alive
    block_on_close = False

    def __init__(self, path: str, handler: Handler):
        self.handler = handler
        super().__init__(path, _Connection)


class _Connection(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(MAX_REQUEST + 1)
        if not line.strip():
            return  # a probe (another server checking the socket), or a client that gave up
        try:
            self.wfile.write(_answer(self.server.handler, line))
        except OSError as exc:  # the client went away
            log.debug("bridge: could not answer: %s", exc)


def _answer(handler: Handler, line: bytes) -> bytes:
    """One request line -> one response line (bytes, newline-terminated)."""
    name = "?"
    try:
        if len(line) > MAX_REQUEST:
            raise UserError(f"bad request: longer than {MAX_REQUEST} bytes")
        try:
            request = json.loads(line)
        except ValueError:
            raise UserError("bad request: not a JSON line") from None
        if not isinstance(request, dict) or not isinstance(request.get("command"), str):
            raise UserError('bad request: expected {"command": NAME, "arguments": {...}}')
        name = request["command"]
        reply = {"result": handler(name, request.get("arguments"))}
        return (json.dumps(reply, default=str) + "\n").encode()
    except UserError as exc:
        reply = {"error": one_line(str(exc))}
    except Exception as exc:
        log.exception("bridge: %s failed", name)
        reply = {"error": f"the language server failed on {name} ({type(exc).__name__}); its log has the details"}
    return (json.dumps(reply) + "\n").encode()


# -- plumbing ------------------------------------------------------------------------------
def private_folder(folder: Path) -> Path:
    """A sockets' folder: this user's only (others could otherwise connect or plant a socket)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = folder.stat()
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
        raise UserError(f"{folder} belongs to another user or is open to others: memory-lsp will not use it")
    return folder


def _claim(path: Path) -> None:
    """Take the socket path: a live server there is an error; a stale socket is removed."""
    if not os.path.lexists(path):
        return
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(2)
            probe.connect(str(path))
    except OSError:
        path.unlink(missing_ok=True)
        return
    raise UserError(f"another memory-lsp server already listens at {path}")


def write_atomically(path: Path, data: dict) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_info(path: Path) -> dict | None:
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def one_line(text: str) -> str:
    return " ".join(text.split("\n")).strip() or "an error with no message"
