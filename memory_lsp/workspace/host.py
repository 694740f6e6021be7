"""The workspace host: the one object in a process that owns a workspace's state.

It owns the store (the DuckDB index), the memory book (the event log), the impact graph and the retriever. It
applies changes — an index run, re-indexed files or buffers, memory events written to the log — on its caller's
thread (in the server: the folder's one writer thread), and after each change publishes a new `Snapshot`. Every
read takes `snapshot()` and never writes; the read methods here (`memories`, `search`, `impact`, ...) are
shorthands for `queries.<read>(self.snapshot(), ...)`. Nothing here imports lsprotocol or prints.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Callable

from memory_lsp.graph.follow import follow
from memory_lsp.graph.impact import ImpactGraph
from memory_lsp.graph.passes import PASSES
from memory_lsp.index import indexer, version
from memory_lsp.index.discover import discover
from memory_lsp.memory import citations as cites
from memory_lsp.memory import gitmined
from memory_lsp.memory.book import MemoryBook
from memory_lsp.memory.model import Memory
from memory_lsp.memory.secrets import redact_file_text
from memory_lsp import runtime
from memory_lsp.paths import memory_dir, relpath, workspace_root
from memory_lsp.settings import Settings
from memory_lsp.store import Store
from memory_lsp.store import code
from memory_lsp.store import memories as mem_rows
from memory_lsp.store import fulltext
from memory_lsp.store.allocator import long_lived, release_freed_memory
from memory_lsp.workspace import apart, queries
from memory_lsp.workspace.lookup import IndexLookup
from memory_lsp.workspace.projection import projection_rows
from memory_lsp.workspace.snapshot import MemoryView, Snapshot

log = logging.getLogger(__name__)
KEEP_BESIDE_THE_WRITER_MB = 16  # a load's cache drops leave this: the writer's reads outside its lock need it


class Workspace:
    def __init__(self, root: Path, store: Store, settings: Settings):
        self.root = root
        self.store = store
        self.settings = settings
        self.book = MemoryBook(root)
        self._retriever = None
        self._generation = 0  # bumps with every change to the indexed code
        self._graph: ImpactGraph | None = None
        self._graph_generation = -1  # the generation the graph was loaded at
        self._graph_lock = threading.Lock()  # one load at a time: one graph per workspace
        self._graph_whole = True  # the next graph is read whole (after a full run), not followed from the last
        self._edits_in_memory = False  # an editor's run wrote since the last checkpoint (checkpoint_edits)
        self.memory_limit_mb: int | None = None
        # a long-lived process: a first index of at least this many files runs in a child process
        # (apart.py), so that this one does not keep its peak; None: always here
        self.index_apart_from: int | None = None
        self.apart_usage: dict | None = None  # the last such child's pid and peak RSS
        self._log_signature = store.meta("memory_log")  # the log as the projection last saw it
        self._memories_embedded: str | None = None  # the log signature whose memories have vectors
        self._snapshot = self._initial_snapshot()
        if self._snapshot.indexed:
            self.sync_memories()  # events written while no process had the index open

    @classmethod
    def open(cls, root: str | os.PathLike, db: str | None = None, settings: Settings | None = None,
             memory_limit_mb: int | None = None, index_apart_from: int | None = None) -> "Workspace":
        root = workspace_root(root)
        db = str(memory_dir(root) / "index.duckdb") if db is None else db
        store = Store.open(db, free_it=lambda: runtime.let_go(root))  # the owner may keep it for CLI commands
        if memory_limit_mb:  # a long-lived process: DuckDB would cache up to 80% of RAM; it spills instead
            store.set_memory_limit(memory_limit_mb)
            long_lived()  # and the arrays it frees go back to the system, its threads sharing heaps
        ws = cls(root, store, settings or Settings())
        ws.memory_limit_mb = memory_limit_mb  # kept for reopen()
        ws.index_apart_from = index_apart_from
        return ws

    def close(self) -> None:
        self.store.close()

    def reopen(self) -> None:
        """After the store met damage (store.db.damaged): set the file aside and start an empty
        one; the next index run rebuilds it, and the memories come back from the event log."""
        with self._graph_lock:  # a graph load under way (a reader's) ends before the file closes
            self.store.close()
            self._open_store_again(set_aside=self.store.damage or "reopened")

    def _open_store_again(self, set_aside: str | None = None) -> None:
        """Open the closed store's file again (`set_aside`: a new one in its place); everything
        read from the old connection is dropped and the snapshot is made from the file. The
        caller holds the graph lock."""
        old = self.store
        self.store = Store.open(old.path, set_aside=set_aside)
        self.store.on_damage = old.on_damage
        if self.memory_limit_mb:
            self.store.set_memory_limit(self.memory_limit_mb)
        self._retriever, self._graph, self._generation = None, None, self._generation + 1
        self._graph_whole = True
        self._log_signature = self.store.meta("memory_log")
        self._snapshot = self._initial_snapshot()

    def relpath(self, path: str | os.PathLike) -> str:
        return relpath(self.root, path)

    # -- reads ----------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The state after the last applied change; immutable, for any thread."""
        return self._snapshot

    def has_code(self) -> bool:
        return self._snapshot.indexed

    def memories(self, **filters) -> list[Memory]:
        return queries.memories(self.snapshot(), **filters)

    def search(self, query: str, **options) -> dict:
        self.ensure_search_index()
        return queries.search(self.snapshot(), query, **options)

    def impact(self, target: str, depth: int = 3, min_confidence: float | None = None) -> dict:
        return queries.impact(self.snapshot(), target, depth, min_confidence)

    def summary(self, top: int = 10) -> dict:
        return queries.summary(self.snapshot(), top)

    def doctor(self) -> dict:
        return queries.doctor(self.snapshot())

    # -- changes (one writer at a time) ------------------------------------------------------------
    def checkpoint_edits(self, busy: Callable[[], bool] | None = None) -> bool:
        """Write the editor's runs since the last checkpoint into the file: DuckDB holds them in
        memory until its log passes 16 MB (~30 MB at 11,282 files from the first edit on; a
        checkpoint there takes ~0.2 s). False when there was nothing to write, when `busy()` (more
        work waits: the next call writes them), or when DuckDB refused (a read transaction was open)."""
        if not self._edits_in_memory or (busy is not None and busy()) or not self.store.checkpoint():
            return False
        self._edits_in_memory = False
        self.store.flush_memory()
        return True

    def settle(self, busy: Callable[[], bool] | None = None) -> None:
        """The writer of an idle server (after a search; a while after the last graph load): the
        edits checkpointed, then DuckDB's cache of the file's blocks handed back: the graph holds
        what its load read (68 MB at 11,282 files), the search index what a search read (~70 MB);
        the next edit reads its blocks again (+0.13 s there, BENCHMARKS.md ba)."""
        if busy is None or not busy():
            self.checkpoint_edits()
            self.store.drop_cache()

    def index(self, progress=None, workers: int | None = None) -> indexer.IndexReport:
        if self._index_apart():
            return self._index_in_child(progress, workers)
        report = indexer.run(self.store, self.root, self.settings, progress=progress, workers=workers,
                             passes=PASSES, redact=redact_file_text)
        self._code_changed(report, whole=True)
        self.store.checkpoint()  # its writes into the file, not kept in memory (store/db.py)
        return report

    def _index_apart(self) -> bool:
        """A first index of enough files, or all of them again (rows of older rules: an upgrade, 932 MB in
        the server at 11k files), in a process that should not keep its peak? Not else: the readers of an
        index meet it closed (StoreClosed: store/cursor.py, ContentModified) for the whole of the child's run."""
        if self.index_apart_from is None:
            return False
        if code.has_files(self.store.cursor()) and not version.made_by_other_rules(self.store):
            return False
        candidates, _skipped = discover(self.root, self.settings)
        return len(candidates) >= self.index_apart_from

    def _index_in_child(self, progress, workers: int | None) -> indexer.IndexReport:
        """Close the store, let a child process index its file (apart.py), open it again.
        Meanwhile readers get a snapshot without the store: memories from the log, cited code
        from the files (as before any index), and reads of the index wait for the writer."""
        # no reader uses the connection closed here: a snapshot with no code indexed reads none
        # (Snapshot._no_index), index commands wait for the writer, and a graph load asked for
        # meanwhile (`impact_graph`) waits on this lock for the child's file
        with self._graph_lock:
            self._snapshot = self._log_only_snapshot()
            self.store.close()
            try:
                report, self.apart_usage = apart.run(self.root, self.store.path, self.settings, progress, workers)
                log.info("indexed %s in a child process (pid %d), its peak RSS %.1f MB", self.root,
                         self.apart_usage["pid"], self.apart_usage["peak_rss_mb"])
            finally:  # stopped or failed too: the file as the child left it (a failed run rolled back)
                self._open_store_again()
        self._code_changed(report, whole=True)
        return report

    def reindex(self, paths: dict[str, bytes | None]) -> indexer.IndexReport:
        """Re-index some files (content from an editor buffer, or None to read the disk)."""
        only = {self.relpath(p): data for p, data in paths.items()}
        report = indexer.run(self.store, self.root, self.settings, only=only, passes=PASSES,
                             redact=redact_file_text)
        self._edits_in_memory = self._edits_in_memory or report.parsed > 0 or report.deleted > 0
        if report.code_changed:
            # the files re-indexed, when nothing else changed (an unchanged file's imports now
            # landing elsewhere, or a deleted file's co-changes gone, change more than these)
            paths = None if report.relinked or report.deleted else set(only)
            self._code_changed(report, paths=paths)
        return report

    def resolver_inputs(self) -> set[str]:
        """The files the import resolvers read but do not index (package.json, go.mod...): a
        change to one is a change to the code."""
        return set(json.loads(self.store.meta("resolver_inputs") or "{}"))

    def _code_changed(self, report: indexer.IndexReport, whole: bool = False, paths: set[str] | None = None) -> None:
        """After an index run: a new generation if any file changed; citations resolved again
        (a full run also refreshes the git history that git-mined memories come from). After a
        full run the next graph is read whole; after a re-index of some files it follows the last."""
        if report.code_changed:
            if whole:
                self._graph_whole = True
            self._generation += 1
            fulltext.mark_dirty(self.store)  # its chunks (a sync that rewrites the memories marks it too)
        if not report.code_changed and self._projection_current():
            # a start that found nothing changed: the last sync saw this code, log and history (resolving
            # 200 memories' citations again took ~0.5 s at 11,000 files; marking the search index
            # stale made the next search rebuild it: ~20 s there)
            self._publish(self._snapshot.memories, indexed=True)
        else:
            self.sync_memories(code_changed=True, paths=paths)
        if self.memory_limit_mb:  # what the run's queries freed, back to the system
            self._release_memory(self.store.cursor())

    def memories_outdated(self) -> bool:
        """Has the log changed (another process, a merge) since the projection was built?"""
        return self._log_signature != self.book.log.signature()

    def sync_memories(self, code_changed: bool = False, paths: set[str] | None = None) -> bool:
        """Bring the memory projection in step with the log (and, after a code change, with the
        code), then publish. False: nothing had changed. `paths`: the code change re-indexed only
        these files (None: any file may have changed).

        Every citation is re-resolved against the index; one whose code moved to another file or
        name gets a `citation.reanchored` event, so the move survives in the shared log.
        """
        if not code_changed and not self.memories_outdated():
            return False
        if code_changed and paths is not None and not self.memories_outdated() and self._settled(paths):
            self._publish(self._snapshot.memories, indexed=True)  # the new generation, same memories
            return False
        base = gitmined.couplings(mem_rows.strong_co_changes(
            self.store, gitmined.MIN_SHARED_COMMITS, gitmined.MIN_CONFIDENCE))
        lookup = IndexLookup(self.store, self.root)
        for _attempt in range(2):  # a second pass applies the re-anchor events of the first
            signature = self.book.log.signature()
            memories = list(self.book.load(base=base).memories.values())
            moved = []
            for m in memories:
                for i, c in enumerate(m.citations):
                    cites.resolve(c, lookup)
                    if m.valid_to is None and c.state == "valid" and cites.moved(c):
                        moved.append((m, i, cites.reanchored(c, lookup)))
            for m, i, citation in moved:
                self.book.record_reanchor(m, i, citation)
            if not moved:
                break
        mem_rows.replace_all(self.store, *projection_rows(memories))
        self.store.set_meta("memory_log", signature)
        self.store.set_meta("memory_code", self._code_state())
        self._log_signature = signature
        fulltext.mark_dirty(self.store)
        # a sync of memories alone does not index the code (a fresh index stays "not indexed yet")
        self._publish(MemoryView(memories), indexed=self._snapshot.indexed or code_changed)
        return True

    def _projection_current(self) -> bool:
        """Were the memories last resolved against the code as indexed now, the log and the git
        history as they are? (A process that died between an index run and its sync left a
        projection of older code: then no.)"""
        return not self.memories_outdated() and self.store.meta("memory_code") == self._code_state()

    def _code_state(self) -> str:
        meta = self.store.meta_all()  # one read of the meta table, not one per key (every full sync asks)
        return f"{code.state_digest(self.store.cursor())}:{meta.get('git_head')}:{meta.get('facts_version')}"

    def _settled(self, paths: set[str]) -> bool:
        """Can no memory have moved when only `paths` were re-indexed? True when every citation
        was last found where it points (its own file and name) and none points into `paths`:
        such a resolution reads only the cited file's rows (citations._resolve; the search of
        the whole index for moved code runs only when the cited code is not found in its file).
        The memories themselves come from the log (unchanged) and the git history (a full run's)."""
        for m in self._snapshot.memories.all:
            for c in m.citations:
                if c.path in paths or c.current is None or cites.moved(c):
                    return False
        return True

    def search_index_current(self) -> bool:
        return fulltext.is_current(self.store)

    def ensure_search_index(self) -> None:
        """Rebuild the full-text index if the chunks or memories changed since it was built, and
        embed the memories that have no vector yet (code chunks fill in behind: `embed_pending`)."""
        fulltext.ensure_fts(self.store)
        self.embed_memories()

    def embed_memories(self) -> dict | None:
        """Vectors for memories written since the last call (milliseconds each; the model loads
        once per process). None: nothing new. Runs on the writer, after a log sync or before a search."""
        signature = self._log_signature
        if signature == self._memories_embedded:
            return None
        out = self.retriever().embed_pending(kind="memory")
        self._memories_embedded = signature
        return out

    def embed_pending(self, limit: int | None = None, progress=None, should_stop=None,
                      code_chunks: int | None = None) -> dict:
        """The search index brought up to date (a server's background job after indexing: the
        whole index's documents take ~20 s at 11,000 files, which the first search would wait
        for), then vectors for what has none (of the code, the `code_chunks` most useful chunks)."""
        self.sync_memories()
        fulltext.ensure_fts(self.store, should_stop=should_stop)
        return self.retriever().embed_pending(limit=limit, progress=progress, should_stop=should_stop,
                                              code_chunks=code_chunks)

    # -- the graph ---------------------------------------------------------------------------------
    def load_graph(self, prepare: bool = False) -> ImpactGraph:
        """The impact graph of the current code, loaded now if it is missing or older than the
        code; published with a new snapshot. Concurrent callers wait for one load. `prepare` (the
        server's graph thread): test selection is built before the graph is published, so that
        the first hover on it does not build it (13 s at 25,000 files, BENCHMARKS.md am) while
        the snapshots keep serving the last graph."""
        with self._graph_lock:
            generation = self._generation
            if self._graph is None or self._graph_generation != generation:
                whole, self._graph_whole = self._graph_whole or self._graph is None, False
                long_lived = bool(self.memory_limit_mb)
                with self.store.memory_for_references():  # 256 MB failed a load at 50,000 files
                    graph = None if whole else self._follow(self._release_memory if long_lived else None)
                    if graph is None:  # too much changed
                        graph = ImpactGraph.load(self.store, self._release_cache if long_lived else None)
                if prepare:
                    graph.test_reach()
                self._graph, self._graph_generation = graph, generation
                self._publish(self._snapshot.memories, indexed=self._snapshot.indexed)
                if prepare:  # the build's transients and the last graph, freed by now, kept by the C heap:
                    release_freed_memory()  # ~100 MB at 25k files after a load, at 11k after an edit
            return self._graph

    def _follow(self, release) -> ImpactGraph | None:
        try:
            return follow(self._graph, self.store, release)
        except Exception:  # a bug there must cost a whole load, never the graph
            log.exception("following the impact graph failed: reading it whole")
            return None

    def _release_memory(self, cur) -> None:
        """A long-lived process (a memory limit was set): DuckDB's freed memory back to the system."""
        self.store.flush_memory(cur)

    def _release_cache(self, cur) -> None:
        """Between a whole load's reads, DuckDB's cache of the blocks read handed back too (BENCHMARKS.md cc)."""
        self.store.drop_cache(wait=False, keep_mb=KEEP_BESIDE_THE_WRITER_MB)  # not beside a write, nor waiting
        self.store.flush_memory(cur)

    def graph_is_current(self) -> bool:
        return self._graph is not None and self._graph_generation == self._generation

    def retriever(self):
        if self._retriever is None:
            from memory_lsp.retrieval.search import Retriever  # numpy and the model load on first use

            self._retriever = Retriever(self.store)
        return self._retriever

    # -- snapshots ------------------------------------------------------------------------------------
    def _initial_snapshot(self) -> Snapshot:
        """What the last session knew answers at once; a fresh index reads the log, with
        citations resolved from the files themselves, until the code is in."""
        if code.has_files(self.store.cursor()):
            memories = [Memory.from_json(d) for d in mem_rows.all_docs(self.store)]
            return self._make_snapshot(MemoryView(memories), indexed=True)
        return self._log_only_snapshot()

    def _log_only_snapshot(self) -> Snapshot:
        """Memories from the log, citations resolved from the files themselves: no code indexed."""
        lookup = cites.FileLookup(self.root)
        memories = list(self.book.load().memories.values())
        for m in memories:
            for c in m.citations:
                cites.resolve(c, lookup)
        return self._make_snapshot(MemoryView(memories), indexed=False)

    def _publish(self, memories: MemoryView, indexed: bool) -> None:
        self._snapshot = self._make_snapshot(memories, indexed)

    def _make_snapshot(self, memories: MemoryView, indexed: bool) -> Snapshot:
        # a graph older than the code still serves hovers and lenses until the new one is loaded
        return Snapshot(self.root, self.book, self.store, self._generation, memories, self._graph,
                        self.load_graph, retriever=self.retriever, indexed=indexed,
                        graph_current=self.graph_is_current())
