"""One workspace folder as the server holds it: its `workspace.Workspace` host, the writer queue
that applies every change to it, and the background loops (graph loader, memory-log poll, file
watcher: server/watch.py).

Every change (the first index, re-indexing buffers and files, syncing memories, commands that
write, background embedding) runs one at a time on the folder's writer thread. Readers never wait
for it: hovers, lenses and diagnostics take `snapshot()`, and read commands run on the server's
reader pool over the host's current snapshot (`command`). A read goes to the writer first only
when it must: the memory log changed since the last sync (read your writes after a CLI `teach`),
or a search needs the full-text index rebuilt, or a fresh folder has no index yet.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path
from typing import Callable

from memory_lsp.errors import UserError
from memory_lsp.server.watch import watch_files
from memory_lsp.settings import Config

log = logging.getLogger(__name__)

DUCKDB_MEMORY_MB = 256
INDEX_APART_FROM_FILES = 300  # a first index of this many files is made by a child (workspace/apart.py)
SETTLE_AFTER_SECONDS = 15.0  # no edit for this long after a graph load: DuckDB's cache handed back
LOG_POLL_SECONDS = 1.0  # how often the memory log is checked for events written by other processes
SEARCHES = ("memory.search", "memory.context")  # commands that read the full-text index
INDEX_READS = SEARCHES + ("memory.expand", "memory.impact", "memory.stats", "memory.doctor")  # need code indexed


class IndexStopped(Exception):
    """Raised into an index run when its folder closes, so that the run rolls back and ends."""


class Folder:
    def __init__(self, path: Path, config: Config, reader: Executor,
                 on_change: Callable[["Folder", set[str] | None], None]):
        self.path, self.config = path, config
        self.on_change = on_change  # (folder, changed paths or None = everything): refresh the editor
        self.on_progress: Callable[[str, int | None], None] | None = None
        self.bridge = None  # the CLI's way in while this server owns the index (closed first)
        self.ws = None  # workspace.Workspace (the host), once open
        self.error: str | None = None  # why the folder could not be opened or indexed
        self.ready = threading.Event()  # the first index has finished (or failed)
        self.started = False  # start() queued the opening: commands queued from now on run after it
        self._reindexes = 0  # `memory.reindex` commands queued or running on the writer
        self.open_buffers: set[str] = set()  # paths whose editor buffer wins over the disk
        self._reader = reader
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="memory-writer")
        self._opening: Future | None = None
        self._first_index: Future | None = None  # a session's folder: reads wait for it on a fresh index
        self._open_lock = threading.Lock()
        self.failure: Exception | None = None  # what opening raised (IndexBusy: another process has the file)
        self._queued, self._queue_lock = 0, threading.Lock()  # writer jobs queued, not yet started
        self._pending: dict[str, bytes | None] = {}  # paths waiting for a re-index, coalesced
        self._graph_wanted = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._embedding_queued = False
        self._recovering: Future | None = None  # reopening a damaged store, then indexing again

    # -- lifecycle -----------------------------------------------------------------------------
    def open(self) -> Future:
        """Open the index on the writer, without indexing or watching (what a CLI command needs)."""
        with self._open_lock:
            if self._opening is None:
                self._opening = self._submit(self._open)
            return self._opening

    def start(self, progress: Callable[[str, int | None], None] | None = None) -> Future | None:
        """Open and index on the writer, then run the loops; None if a session started it already."""
        with self._open_lock:
            if self.started:
                return None
            self.started = True
            self.on_progress = progress
        self.open()
        indexing = self._first_index = self._submit(self._index)
        loops = [(self._graph_loop, "memory-graph"), (self._log_loop, "memory-log")]
        if self.config.indexing.watch:
            loops.append((lambda: watch_files(self, self._stop), "memory-watch"))
        for target, name in loops:
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return indexing

    def close_bridge(self) -> None:
        # left open, it would answer the CLI from a closed folder (and a folder added again could not start its own)
        if self.bridge is not None:
            self.bridge.close()
            self.bridge = None

    def close(self) -> None:
        self.close_bridge()
        self._stop.set()
        self._graph_wanted.set()
        self._writer.shutdown(wait=True, cancel_futures=True)
        for thread in self._threads:  # none may hold a DuckDB cursor when the connection closes
            thread.join(timeout=5)
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    # -- reads (any thread; never wait for the writer) ---------------------------------------------------
    def snapshot(self):
        """The folder's current snapshot (None until its index is open)."""
        return self.ws.snapshot() if self.ws is not None else None

    def relpath(self, full: str) -> str | None:
        """Workspace-relative path of a file inside this folder, else None."""
        try:
            return Path(full).resolve().relative_to(self.path).as_posix()
        except ValueError:
            return None

    # -- commands --------------------------------------------------------------------------------
    def command(self, name: str, arguments: dict, warn: Callable[[str], None] | None = None) -> Future:
        """A workspace command: a write on the writer, a read on the reader pool (`warn`: for a person)."""
        from memory_lsp.commands import REINDEX, writes  # not at start-up: it imports the workspace

        if writes(name):
            future = self._submit(self._run_write, name, arguments, warn)
            if name == REINDEX:  # queued or running: reads of a fresh index wait for it
                with self._queue_lock:
                    self._reindexes += 1
                future.add_done_callback(lambda _f: self._reindex_done())
            return future
        result: Future = Future()

        def attempt(waited: tuple[str, ...]) -> None:
            if result.cancelled():  # $/cancelRequest while the writer caught up
                return
            try:
                self._reader.submit(self._run_read, result, name, arguments, waited, attempt)
            except RuntimeError as exc:  # the reader pool is shut down: the server is closing
                result.set_exception(exc)
        attempt(())
        return result

    def _run_read(self, result: Future, name: str, arguments: dict, waited: tuple[str, ...], attempt) -> None:
        from memory_lsp import commands

        recovery = self._recovering
        try:
            reason, before = self._before_read(name, waited)
            if before is not None:  # each wait once: a log written to all the time must not starve the read
                before.add_done_callback(lambda _done: attempt((*waited, reason)))
            elif result.set_running_or_notify_cancel():
                self._check_open()
                result.set_result(commands.run(self.ws, name, arguments))
                if name in SEARCHES:  # what it read stays in DuckDB's cache (70 MB at 11k files): handed back
                    self._settle()
        except BaseException as exc:
            if self._recovering is not recovery and "recovering" not in waited:
                # the store was found damaged during this read: answer it again from the new one
                self._recovering.add_done_callback(lambda _done: attempt((*waited, "recovering")))
            elif not result.done():
                result.set_exception(exc)

    def _before_read(self, name: str, waited: tuple[str, ...]) -> tuple[str, Future | None]:
        """The writer job a read must wait for, if any: a fresh folder's first index; a sync of
        memories written by another process; the full-text index a search reads."""
        ws = self.ws
        if self._recovering is not None and not self._recovering.done() and "recovering" not in waited:
            return "recovering", self._recovering
        if ws is None or (self.started and not (ws.has_code() or self.ready.is_set())):
            return "opening", (None if "opening" in waited else (self._first_index or self._opening))
        if "indexing" not in waited and self.reindexing and not ws.has_code() and name in INDEX_READS:
            return "indexing", self._submit(lambda: None)  # no earlier index to answer from: after this one
        search = name in SEARCHES and not ws.search_index_current()
        if "catch-up" not in waited and (ws.memories_outdated() or search):
            return "catch-up", self._submit(self._catch_up, search)
        return "", None

    @property
    def reindexing(self) -> bool:
        """A `memory.reindex` is queued or running: reads answer from the index before it."""
        return self._reindexes > 0

    def _reindex_done(self) -> None:
        with self._queue_lock:
            self._reindexes -= 1

    def _check_open(self) -> None:
        if self.ws is None:
            if isinstance(self.failure, UserError):
                raise self.failure  # IndexBusy stays IndexBusy: the CLI falls back to the event log
            raise UserError(self.error or f"{self.path} is still opening: try again in a moment")

    def _catch_up(self, search: bool) -> None:
        self._sync_memories()
        if search:
            self.ws.ensure_search_index()

    def _run_write(self, name: str, arguments: dict, warn=None) -> dict:
        from memory_lsp import commands

        self._check_open()
        self._sync_memories()  # events another process wrote since the last poll: read your writes
        result = commands.run(self.ws, name, arguments, warn=warn)
        if name == commands.REINDEX:
            self._after_code_change(None)
        else:
            self._sync_memories()  # the command wrote memory events
        return result

    # -- writer jobs ------------------------------------------------------------------------------
    def _submit(self, fn, *args) -> Future:
        with self._queue_lock:
            self._queued += 1

        def job():
            with self._queue_lock:
                self._queued -= 1
            return fn(*args)

        def cancelled(fut: Future) -> None:
            # cancelled while queued ($/cancelRequest): `job` never ran, and embedding would wait for it
            if fut.cancelled():
                with self._queue_lock:
                    self._queued -= 1
        future = self._writer.submit(job)
        future.add_done_callback(cancelled)
        return future

    def _settle(self) -> None:
        """The writer hands back DuckDB's cache (`Workspace.settle`) unless other jobs wait."""
        with suppress(RuntimeError):  # the writer shut down: the folder is closing
            self._submit(self.ws.settle, self._others_waiting)

    def _others_waiting(self) -> bool:
        with self._queue_lock:
            return self._queued > 0 or self._stop.is_set()

    def _open(self) -> None:
        from memory_lsp.workspace import Workspace  # DuckDB loads when a folder opens, not at start-up

        try:
            self.ws = Workspace.open(self.path, settings=self.config.indexing, memory_limit_mb=DUCKDB_MEMORY_MB,
                                     index_apart_from=INDEX_APART_FROM_FILES)
        except Exception as exc:
            self.failure, self.error = exc, (str(exc) if isinstance(exc, UserError) else f"cannot open the index: {exc}")
            log.error("cannot open %s: %s", self.path, exc, exc_info=not isinstance(exc, UserError))
            return
        self.ws.store.on_damage = self._damaged
        self.on_change(self, None)

    def _damaged(self, exc: BaseException) -> None:
        """Damage met (failed checksum, fatal error): reopen and re-index on the writer; reads wait."""
        self._recovering = self._submit(self._recover, self.ws.store)

    def _recover(self, store) -> None:
        if self.ws is None or self.ws.store is not store:
            return  # recovered already
        self.ws.reopen()
        self._index()

    def _index(self) -> None:
        try:
            if self.ws is None:
                return
            def progress(done: int, total: int) -> None:
                if self._stop.is_set():  # closing: the run rolls back at its next batch (shutdown, exit)
                    raise IndexStopped
                if self.on_progress:
                    self.on_progress(f"{done}/{total} files", int(100 * done / total) if total else None)
            report = self.ws.index(progress=progress)
            log.info("indexed %s: %d files, %d parsed in %.1f s", self.path, report.files, report.parsed,
                     report.seconds)
            self._after_code_change(None)
        except IndexStopped:
            log.info("indexing %s stopped: the folder is closing", self.path)
            return
        except UserError as exc:
            self.error = str(exc)
            log.error("cannot index %s: %s", self.path, exc)
            self._graph_wanted.set()  # the previous index's graph; a warm start's loads after the run
        except Exception as exc:  # a bug: keep serving what there is, and say so in the log
            self.error = f"indexing failed: {exc}"
            log.exception("indexing %s failed", self.path)
            self._graph_wanted.set()  # (not beside it: their peaks added, BENCHMARKS.md ac)
        finally:
            self.ready.set()
        self._want_embedding()

    def reindex(self, paths: dict[str, bytes | None]) -> Future | None:
        """Re-index these files (bytes: an editor's buffer; None: read the disk), coalesced."""
        with self._queue_lock:
            first = not self._pending
            self._pending.update(paths)
        return self._submit(self._reindex_pending) if first else None

    def reindex_stale(self) -> None:
        """Re-index what differs on disk from the index, but open buffers (the watcher's catch-up)."""
        from memory_lsp.index.stale import stale_files
        if self.ws is not None and (paths := [p for p in stale_files(self.ws.store.cursor(), self.path, self.ws.settings)
                                               if p not in self.open_buffers]):
            log.info("changed on disk before the watch began: %s", ", ".join(paths[:10]))
            self.reindex(dict.fromkeys(paths))

    def _reindex_pending(self) -> None:
        with self._queue_lock:
            paths, self._pending = self._pending, {}
        if not paths or self.ws is None:
            return
        try:
            report = self.ws.reindex(paths)
        except Exception:
            log.exception("re-indexing %s failed", ", ".join(paths))
            return
        if report.code_changed:
            self._after_code_change({self.ws.relpath(p) for p in paths})
        else:
            self.on_change(self, {self.ws.relpath(p) for p in paths})

    def sync_memories(self) -> Future:
        return self._submit(self._sync_memories)

    def _sync_memories(self) -> None:
        if self.ws is not None and self.ws.sync_memories():
            self.on_change(self, None)
            if self.ready.is_set():
                self._want_embedding()  # new memories get vectors first (embed_pending's order)

    def _after_code_change(self, paths: set[str] | None) -> None:
        if not self.ws.graph_is_current():
            self._graph_wanted.set()
        self.on_change(self, paths)
        # the changed code's search documents and vectors wait for a pause (the graph loop): the job
        # reads every item's text to find what is missing (0.5-2.6 s at 11,000 files) and would
        # hold the next keystroke's re-index behind it; a CLI command's folder has no loop: built behind
        if not self.started:  # its answer, not at the first search (2.5 s on the stdlib, BENCHMARKS.md da)
            self._submit(self._catch_up, True)

    def _want_embedding(self) -> bool:
        """Queue the background embedding job; True if one is queued (it settles when it ends)."""
        if self.ws is None or not self.config.embeddings.background or self._stop.is_set():
            return False
        if not self._embedding_queued:
            self._embedding_queued = True
            self._submit(self._embed_some)
        return True

    def _embed_some(self) -> None:
        """Embed in the background, giving way whenever another job is waiting (it resumes after);
        once it ends, the blocks it read leave DuckDB's cache."""
        self._embedding_queued = False
        try:
            out = self.ws.embed_pending(should_stop=self._others_waiting, code_chunks=self.config.embeddings.code_chunks)
        except Exception:
            log.exception("background embedding failed")
            out = None
        if out is not None and out.get("error"):
            log.warning("no background embedding: %s", out["error"])
        elif out is not None and self._others_waiting():
            self._want_embedding()
            return
        elif out is not None:
            log.info("embedded %d items in the background", out.get("embedded", 0))
        self._settle()

    # -- background loops --------------------------------------------------------------------------
    def _graph_loop(self) -> None:
        settle_at = None  # a while after the last graph load, if no edit came since
        while not self._stop.is_set():
            if not self._graph_wanted.wait(None if settle_at is None else max(0.0, settle_at - time.monotonic())):
                settle_at = None  # idle: DuckDB's cache handed back (not after each edit: +0.13 s to the next),
                # after the edits' search documents and vectors, when the embedding job runs (it settles)
                if not (self.ready.is_set() and self._want_embedding()):
                    self._settle()
                continue
            if self._stop.is_set():
                return
            self._graph_wanted.clear()
            if self.ws is None:
                continue
            try:
                started = time.perf_counter()
                self.ws.load_graph(prepare=True)
                log.info("impact graph loaded in %.2f s", time.perf_counter() - started)
                self.on_change(self, None)  # lens counts may have changed anywhere
                with suppress(RuntimeError):  # the writer shut down: the folder is closing
                    self._submit(self.ws.checkpoint_edits, self._others_waiting)  # between edits: into the file
                settle_at = time.monotonic() + SETTLE_AFTER_SECONDS
            except Exception:
                log.exception("loading the impact graph failed")

    def _log_loop(self) -> None:
        """Memory events appended by another process (the CLI, a teammate's merge) show up here."""
        while not self._stop.wait(LOG_POLL_SECONDS):
            ws = self.ws
            if ws is not None and self.ready.is_set() and ws.memories_outdated():
                self.sync_memories()
