"""`memory-lsp serve`: the language server, its session state and its entry point.

`MemoryServer` holds what the features share: the settings tree (`config`), the client's
capabilities (`client`, resolved at initialize), the open folders, the reader pool and the
refresh that follows every change. `create_server()` registers `features.FEATURES`; each feature
module binds its own handlers. The event loop only parses messages and routes them: reads run on
the reader pool over snapshots, changes on each folder's writer thread (folders.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Awaitable, Callable

from lsprotocol import types as t
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from memory_lsp import __version__
from memory_lsp.server.capabilities import ClientCapabilities
from memory_lsp.server.convert import document_path
from memory_lsp.server.features import FEATURES
from memory_lsp.server.folders import Folder
from memory_lsp.server.pool import FolderPool
from memory_lsp.server.protocol import MemoryProtocol, serve_io
from memory_lsp.settings import Config
from memory_lsp.store import allocator

log = logging.getLogger("memory_lsp.server")

READERS = 4  # threads answering hovers, lenses, diagnostics and read commands
REFRESH_DELAY = 0.15  # coalesce bursts of changes into one refresh
EXIT_WAIT = 0.6  # seconds `exit` waits for the folders to close (the process is gone within 1 s)


class MemoryServer(LanguageServer):
    def __init__(self, config: Config, pool: FolderPool | None = None):
        super().__init__("memory-lsp", __version__, protocol_cls=MemoryProtocol,
                         text_document_sync_kind=t.TextDocumentSyncKind.Incremental)
        self.config = config
        self.standalone = pool is None  # else a session of the owner, sharing its folders with others
        self.pool = pool or FolderPool()
        self.client = ClientCapabilities()  # resolved at initialize
        self.folders: dict[Path, Folder] = {}
        self.reader = ThreadPoolExecutor(READERS, thread_name_prefix="memory-reader")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.debounce: dict[str, asyncio.TimerHandle] = {}  # uri -> its pending re-index (documents.py)
        self.refreshers: list[Callable[["MemoryServer"], Awaitable[None]]] = []  # run after changes
        self._refresh_pending = False
        self._told_error = False
        self.closing: threading.Thread | None = None  # close_all running since shutdown

    def start_io(self, stdin=None, stdout=None) -> None:
        """Serve over binary streams with the reader that answers malformed input (protocol.py)."""
        serve_io(self, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)

    def report_server_error(self, error: Exception, source) -> None:
        """A failure outside a request: the details to the log, a short line to the user once."""
        log.error("server error (%s): %s: %s", getattr(source, "__name__", source), type(error).__name__, error)
        if source is not FeatureRequestError and not self._told_error:
            self._told_error = True
            self.tell(t.MessageType.Error, "memory-lsp: an internal error occurred; the details are in the server log")

    def locate(self, uri: str) -> tuple[Folder, str] | tuple[None, None]:
        """The folder holding this document and its workspace-relative path (None, None if outside)."""
        full = document_path(uri)
        if full is None:
            return None, None
        best = None
        for folder in self.folders.values():
            rel = folder.relpath(full)
            if rel is not None and (best is None or len(str(folder.path)) > len(str(best[0].path))):
                best = (folder, rel)
        return best or (None, None)

    def snapshot(self, uri: str):
        """(the snapshot of the document's folder, its relative path); (None, path) if there is none."""
        folder, path = self.locate(uri)
        return (folder.snapshot() if folder is not None else None), path

    async def read(self, fn, *args):
        """`fn(*args)` on the reader pool."""
        return await asyncio.get_running_loop().run_in_executor(self.reader, functools.partial(fn, *args))

    def soon(self, fn, *args) -> None:
        """`fn(*args)` on the event loop, from any thread."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def tell(self, kind: t.MessageType, message: str) -> None:
        self.window_show_message(t.ShowMessageParams(type=kind, message=message))

    def changed(self, folder: Folder | None, paths: set[str] | None) -> None:
        """From any thread: a folder's index or memories changed; the editor refreshes soon."""
        self.soon(self._schedule_refresh)

    def _schedule_refresh(self) -> None:
        if not self._refresh_pending:
            self._refresh_pending = True
            self.loop.call_later(REFRESH_DELAY, lambda: asyncio.ensure_future(self._refresh()))

    async def _refresh(self) -> None:
        self._refresh_pending = False
        for refresh in self.refreshers:
            await refresh(self)

    def close_within(self, seconds: float) -> bool:
        """close_all on a thread, waiting at most `seconds`; True if it finished."""
        if self.closing is None:
            self.closing = threading.Thread(target=self.close_all, name="memory-close", daemon=True)
            self.closing.start()
        self.closing.join(seconds)
        return not self.closing.is_alive()

    def close_all(self) -> None:
        """Leave every folder (the last session to leave one closes it)."""
        folders, self.folders = list(self.folders.values()), {}
        self.reader.shutdown(wait=True, cancel_futures=True)  # no read may be using a cursor below
        self.reader = ThreadPoolExecutor(READERS, thread_name_prefix="memory-reader")
        for folder in folders:
            self.pool.release(folder, self)


def create_server(config: Config | None = None, pool: FolderPool | None = None) -> MemoryServer:
    """A server with every feature registered (`config`: the settings before the client's;
    `pool`: the owner's folders, shared with its other sessions; None: a standalone server)."""
    server = MemoryServer(config or Config(), pool)
    for feature in FEATURES:
        feature.register(server, server.config)
    return server


def start(args) -> int:
    """Serve over stdio or TCP until the client leaves (args: tcp, log_file, log_level)."""
    allocator.long_lived()  # before any thread: one that has a heap keeps it
    handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logging.getLogger("memory_lsp").setLevel(args.log_level)
    if args.tcp and not args.tcp.rpartition(":")[2].isdigit():
        print(f"memory-lsp: --tcp wants HOST:PORT, got {args.tcp!r}", file=sys.stderr)
        return 2
    server = create_server()
    try:
        if args.tcp:
            host, _, port = args.tcp.rpartition(":")
            server.start_tcp(host or "127.0.0.1", int(port))
        else:
            # pygls reads stdin on a thread that holds the buffer's lock while it waits; a forked
            # parse worker closes sys.stdin at start-up and would wait for that lock forever
            stdin, sys.stdin = sys.stdin.buffer, open(os.devnull)
            # raw: a reader thread blocked in a buffered read would hold the buffer's lock at exit
            server.start_io(stdin.raw)
    finally:
        if not server.close_within(EXIT_WAIT):
            # an index run that is not at a batch's end yet: DuckDB rolls it back at the next open,
            # as after kill -9; waiting for it would keep an editor's shutdown waiting
            log.warning("exiting before the folders closed (an index run was still stopping)")
        # the answers are written and flushed, the folders closed: the interpreter's own teardown
        # (thread pools, a loaded DuckDB and grammars) took 0.3-1 s more under load
        logging.shutdown()
        os._exit(0)
