"""`memory-lsp serve`: relays an editor's LSP stream to the owner (owner.py) and survives it.

The editor talks LSP over stdio to this process; it forwards every message to the owner over a
Unix socket (starting the owner when none runs, link.py) and every answer back. It keeps what a
new owner would need to take the session over: the `initialize` request, `initialized`, the last
settings, the workspace folder changes and the text of every open document. When the owner dies
(kill -9, a crash), the requests it had not answered get an error the editor shrugs off
(ContentModified), a new owner is started and the session is replayed to it; the editor sees no
gap but a refresh. The proxy also watches the editor's process id and leaves when it dies.
Nothing here imports pygls or DuckDB: a window costs a small process.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
import time

from memory_lsp.server import link
from memory_lsp.server.stream import FrameReader, inspect

log = logging.getLogger("memory_lsp.proxy")

CONTENT_MODIFIED = -32801  # "the result is stale": clients drop it without telling the user
REPLAY_ID = "memory-lsp-replay"


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Session:
    """What the proxy remembers of the editor's session, to replay it to a new owner."""

    def __init__(self):
        self.initialize: dict | None = None
        self.initialized = False
        self.settings: dict | None = None  # the last workspace/didChangeConfiguration
        self.folder_changes: list[dict] = []
        self.documents: dict[str, dict] = {}  # uri -> textDocument (with the current text)
        self.pending: dict = {}  # id of an editor request -> method, until the owner answers
        self.shutdown = False
        self.utf8 = False  # positions count UTF-8 bytes instead of UTF-16 units

    def from_editor(self, message: dict) -> None:
        try:
            self._record(message)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError):
            # a message of the wrong shape (params a list, a uri a number...): the owner answers it
            # with its error; the replay record must never end the relay (found by the stream fuzzer)
            log.warning("not recorded for replay: a %r message of an unexpected shape", message.get("method"))

    def _record(self, message: dict) -> None:
        method, params = message.get("method"), message.get("params") or {}
        if "id" in message and method:
            self.pending[_key(message["id"])] = method
        if method == "initialize":
            self.initialize = message
        elif method == "initialized":
            self.initialized = True
        elif method == "shutdown":
            self.shutdown = True
        elif method == "workspace/didChangeConfiguration":
            self.settings = message
        elif method == "workspace/didChangeWorkspaceFolders":
            self.folder_changes.append(message)
        elif method == "textDocument/didOpen":
            doc = dict(params.get("textDocument") or {})
            if isinstance(doc.get("uri"), str):
                self.documents[doc["uri"]] = doc
        elif method == "textDocument/didClose":
            self.documents.pop((params.get("textDocument") or {}).get("uri"), None)
        elif method == "textDocument/didChange":
            self._changed(params)

    def from_owner(self, message: dict) -> None:
        if "id" in message and "method" not in message:
            method = self.pending.pop(_key(message["id"]), None)
            if method == "initialize":
                encoding = (((message.get("result") or {}).get("capabilities") or {}).get("positionEncoding"))
                self.utf8 = encoding == "utf-8"

    def replay(self) -> list[dict]:
        """The messages that bring a new owner to where the old one was."""
        if self.initialize is None:
            return []
        # an initialize the old owner never answered is answered to the editor by the new one
        answered = _key(self.initialize.get("id")) not in self.pending
        out = [dict(self.initialize, id=REPLAY_ID) if answered else self.initialize]
        if self.initialized:
            out.append({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        out += [self.settings] if self.settings else []
        out += self.folder_changes
        out += [{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}}
                for doc in self.documents.values()]
        return out

    def _changed(self, params: dict) -> None:
        ident = params.get("textDocument") or {}
        doc = self.documents.get(ident.get("uri"))
        if doc is None:
            return
        text = doc.get("text", "")
        for change in params.get("contentChanges") or []:
            text = apply_change(text, change, self.utf8)
        doc["text"] = text
        if "version" in ident:
            doc["version"] = ident["version"]


def apply_change(text: str, change: dict, utf8: bool = False) -> str:
    """`text` after one LSP content change (a whole new text, or a range replaced)."""
    rng = change.get("range")
    if rng is None:
        return change.get("text", "")
    start, end = _offset(text, rng["start"], utf8), _offset(text, rng["end"], utf8)
    return text[:start] + change.get("text", "") + text[end:]


def _offset(text: str, position: dict, utf8: bool) -> int:
    lines = text.splitlines(keepends=True)
    line, character = position.get("line", 0), position.get("character", 0)
    if line >= len(lines):
        return len(text)
    offset = sum(len(x) for x in lines[:line])
    units = 0
    for i, ch in enumerate(lines[line].rstrip("\r\n")):
        if units >= character:
            return offset + i
        units += len(ch.encode("utf-8")) if utf8 else (2 if ord(ch) > 0xFFFF else 1)
    return offset + len(lines[line].rstrip("\r\n"))


def _json_object(body: bytes) -> dict | None:
    """The message as a JSON object; None for anything else (relayed as is, never remembered)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _key(ident) -> str:
    return json.dumps(ident)


class Proxy:
    def __init__(self, stdin, stdout):
        self.stdin, self.stdout = stdin, stdout
        self.session = Session()
        self.owner: socket.socket | None = None
        self._send_lock = threading.Lock()  # to the owner
        self._write_lock = threading.Lock()  # to the editor
        self._connected = threading.Event()
        self._done = threading.Event()

    def run(self) -> int:
        self._connect()
        threading.Thread(target=self._from_owner_loop, name="memory-proxy-owner", daemon=True).start()
        frames = FrameReader(self.stdin)
        try:
            while (got := frames.read()) is not None:
                message, errors = inspect(got.body) if got.body is not None else (None, [got.error])
                if got.body is not None and message is None and frames.resync(got.body):
                    log.warning("a frame's Content-Length was longer than its body: read on from the next header")
                for error in errors:  # malformed input is answered here: the owner sees only messages
                    self._to_editor(json.dumps(error).encode())
                if message is not None:
                    self._from_editor(got.body, message)
                if message is not None and message.get("method") == "exit":
                    # forwarded: the owner ends the session; the editor waits for this process to go
                    os._exit(0)
        finally:
            self._done.set()
            if self.owner is not None:
                self.owner.close()
        return 0

    def _from_editor(self, body: bytes, message: dict) -> None:
        if message.get("method") == "initialize" and isinstance(message.get("params"), dict):
            link.exit_when_gone(message["params"].get("processId"))
        if message.get("method") == "exit":
            self._done.set()
        self._connected.wait()  # while a new owner starts, the editor's messages wait here
        with self._send_lock:  # recorded and sent together: a replay never repeats a sent change
            self.session.from_editor(message)
            try:
                self.owner.sendall(frame(body))
            except OSError:
                # the owner is gone: a request gets its error from _fail_pending, and what a
                # notification changed (documents, settings) is in the replay
                pass

    def _from_owner_loop(self) -> None:
        try:
            self._relay_owner()
        except BaseException:
            log.exception("the proxy lost its owner for good")
            os._exit(1)  # an editor sees a server that exited, never one that stopped answering

    def _relay_owner(self) -> None:
        while True:
            frames = FrameReader(self.owner.makefile("rb"))
            try:
                while (got := frames.read()) is not None:
                    if got.body is not None:  # the owner's frames are well formed
                        self._to_editor(got.body)
            except OSError:  # reset: the owner closed its listener with this connection unanswered
                pass
            if self._done.is_set() or self.session.shutdown:
                os._exit(0)  # the editor left, or the session ended as the editor asked
            log.warning("the owner went away: starting another and replaying the session")
            self._connected.clear()
            self._fail_pending()
            self._connect(replay=True)

    def _to_editor(self, body: bytes) -> None:
        message = _json_object(body)
        if message is not None:
            if message.get("id") == REPLAY_ID and "method" not in message:
                return  # the answer to a replayed initialize: the editor has its own already
            self.session.from_owner(message)
        with self._write_lock:
            self.stdout.write(frame(body))
            self.stdout.flush()

    def _fail_pending(self) -> None:
        with self._send_lock:
            pending = {k: m for k, m in self.session.pending.items() if m != "initialize"}
            for ident in pending:
                del self.session.pending[ident]
        for ident, method in pending.items():
            error = {"jsonrpc": "2.0", "id": json.loads(ident),
                     "error": {"code": CONTENT_MODIFIED, "message": f"memory-lsp restarted during {method}"}}
            self._to_editor(json.dumps(error).encode())

    def _connect(self, replay: bool = False) -> None:
        deadline = time.monotonic() + link.START_TIMEOUT
        with self._send_lock:
            while True:
                self.owner = link.connect(waiting=lambda: log.warning("waiting for the memory-lsp owner to start"))
                try:
                    for message in self.session.replay() if replay else ():
                        self.owner.sendall(frame(json.dumps(message).encode()))
                    break
                except OSError:  # that owner went too (it was still exiting): the next one
                    self.owner.close()
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        self._connected.set()


def start(args) -> int:
    """Relay stdio to the owner until the editor leaves (args: log_file, log_level)."""
    handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logging.getLogger("memory_lsp").setLevel(args.log_level)
    stdin, sys.stdin = sys.stdin.buffer, open(os.devnull)
    return Proxy(stdin, sys.stdout.buffer).run()
