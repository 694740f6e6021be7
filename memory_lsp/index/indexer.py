"""One index run, full or incremental: discover, parse what changed, write, resolve imports,
then the graph passes it is handed (graph/passes.py: edges, promotions, scores).

File change -> indexer -> store. Unchanged files (same size and mtime, or same content hash)
are not parsed again; a changed file's rows are replaced in the same transaction that
re-resolves every edge that could point into it; deleted files leave nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import threading
import os
import stat
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

from memory_lsp.index import contexts, gitmine
from memory_lsp.index.discover import Candidate, discover, only_candidates
from memory_lsp.index.batch import TABLES, Batch, pack
from memory_lsp.index.extract import content_hash, extract
from memory_lsp.index.facts import FileFacts
from memory_lsp.index.resolvers import MARKED_BY_OTHER_FILES, ImportRow, family_of, import_table_rows, inputs_changed, star_targets
from memory_lsp.index.lifeline import die_with_parent
from memory_lsp.index.version import facts_version, made_by_other_rules
from memory_lsp.settings import Settings
from memory_lsp.store import allocator, code, edges, ingest, module_exports, moved_lines
from memory_lsp.store.db import WHOLE_RUN_MEMORY_MB, Store

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]
PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves
MOVED_LINES_FILES = 8  # an editor's run of at most this many files checks which edits only moved lines
BATCH = 24
WRITE_FILES = 240  # parsed files per write: each insert has a fixed cost, the overlap needs several
# and at most this many rows per write (all tables): the biggest files come first, and 240 of them
# held as Python objects while DuckDB copies them made the peak of the writes
WRITE_ROWS = 40_000
PROGRESS_WAIT = 0.25  # seconds between progress calls while the workers parse


class Changes(NamedTuple):
    """What one run changed: what the graph passes need to decide what to rebuild."""

    first_run: bool
    everywhere: bool  # the first run, or a path appeared or vanished: rebuild every edge
    changed: set[str]  # files whose rows were replaced
    rebound: set[str]  # changed files and files whose imports now land elsewhere
    # symbol names whose references elsewhere may resolve differently: every name a removed or reshaped
    # file defined, before or after; of a file that only changed symbols, those (a first run: none listed)
    names: set[str]
    structure_changed: bool  # a file's imports, test status or mutation flag changed
    symbol_names: set[str]  # names and qualified names of the symbols added, removed or changed
    links_same: bool = False  # the IMPORTS, ASSERTS_ON and DRIVES edges are as a rebuild would make them (kept)
    reads_moved: bool = False  # a file whose lines only moved reads other attributes now (store/moved_lines.py)


class GraphPasses(NamedTuple):
    """What turns the rows into a graph; index/ runs them but does not know them (graph/passes.py)."""

    link: Callable[[Store, Any, Changes], None]  # inside the run's transaction
    score: Callable[[Store, bool], None]  # after a whole-workspace run; did it change the code or its history?


@dataclass
class Skip:
    path: str
    reason: str
    size: int


@dataclass
class IndexReport:
    files: int = 0
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    recovered: str | None = None
    relinked: int = 0  # unchanged files whose imports now land elsewhere (package.json, go.mod... changed)

    @property
    def code_changed(self) -> bool:
        return bool(self.parsed or self.deleted or self.relinked)


def parse_one(root: str, cand: Candidate, settings: Settings, data: bytes | None = None) -> FileFacts | Skip:
    """Read, check and extract one file (runs in a worker process)."""
    if data is None:
        try:
            # non-blocking: a file that became a FIFO since discovery must not hang the run
            fd = os.open(os.path.join(root, cand.path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with open(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return Skip(cand.path, "special_file: not a regular file", 0)
                data = fh.read(settings.max_file_bytes + 1)
        except OSError as exc:
            return Skip(cand.path, f"unreadable: {exc.strerror}", cand.size)
    if len(data) > settings.max_file_bytes:
        return Skip(cand.path, "too_large", len(data))
    if b"\0" in data[:8192]:
        return Skip(cand.path, "binary", len(data))
    if len(data) / (data.count(b"\n") + 1) > settings.max_line_bytes:  # bytes per line
        return Skip(cand.path, "minified", len(data))
    try:
        return extract(cand.path, data, cand.lang)
    except Exception as exc:  # a grammar bug must cost one file, not the run
        log.exception("extracting %s failed", cand.path)
        return Skip(cand.path, f"extract_error: {type(exc).__name__}", len(data))


def _parse_batch(args) -> Batch:
    """Parse and pack one batch in a worker: rows leave it as columns (index/batch.py)."""
    root, batch, settings, redact = args
    return pack([parse_one(root, cand, settings) for cand in batch], {c.path: c.mtime for c in batch}, redact)


def run(store: Store, root: Path, settings: Settings, progress: Progress | None = None,
        workers: int | None = None, only: dict[str, bytes | None] | None = None,
        passes: GraphPasses | None = None, redact: Callable[[str], str] | None = None) -> IndexReport:
    """Index `root`. `only` limits the run to some paths (None content = read from disk;
    a path that no longer exists is deleted): the incremental path of editors and watchers.

    Parsed files are written while the workers parse the rest, all in one transaction that
    ends with the graph passes' edges: a reader never sees half a run. Without `passes` only
    the rows are written (no edges, no scores). `redact` masks secrets in the text the search
    index keeps of each file (memory/secrets.py, handed in: index/ may not import memory/).
    """
    started = time.perf_counter()
    report = IndexReport(recovered=store.recovered)
    cur = store.conn
    # an editor's run looks up only its own paths (reading every file's row cost ~10 ms a run)
    known = code.known_files(cur, None if only is None else list(only))
    # a whole run over rows older rules made starts over (index/version.py)
    outdated = only is None and bool(known) and made_by_other_rules(store)
    known = {} if outdated else known
    first_run = not (known if only is None else code.has_files(cur))
    if only is None:
        candidates, skipped = discover(root, settings)
        present = {c.path for c in candidates}
        deleted = [p for p in known if p not in present]
        overrides: dict[str, bytes] = {}
    else:
        candidates, skipped, deleted, overrides = only_candidates(root, only, settings, known)

    to_parse = []
    for cand in candidates:
        old = known.get(cand.path)
        if cand.path in overrides:
            if old and old.hash == content_hash(overrides[cand.path]):
                report.unchanged += 1
                continue
        elif old and old.size == cand.size and old.mtime == cand.mtime:
            report.unchanged += 1
            continue
        to_parse.append(cand)
    report.files, report.deleted = len(candidates), len(deleted)

    cut = store.memory_cut(WHOLE_RUN_MEMORY_MB) if only is None else contextlib.nullcontext()  # see store/db.py
    # an editor's few files: small statements, on one thread (a whole run keeps them all)
    with store.single_threaded(only is not None and len(to_parse) < PARALLEL_THRESHOLD), cut, store.transaction() as cur:
        if outdated:
            code.remove_all(cur)
        writer = _Writer(store, cur, known, {c.path: c.mtime for c in candidates}, redact, first_run,
                         few=only is not None and not first_run and len(to_parse) <= MOVED_LINES_FILES)
        writer.remove(deleted, deleted=True)
        if only is None:
            code.clear_skipped(cur)
        for batch in _parse_all(str(root), to_parse, settings, overrides, workers, progress, redact):
            writer.add(batch)
        writer.add([Skip(*s) for s in skipped])
        changes = writer.finish(root, overrides)
        report.relinked = len(changes.rebound - changes.changed)
        if passes is not None:
            passes.link(store, cur, changes)
        if only is None:  # nothing reads indexed_at; on an editor's run the writes cost statements
            store.set_meta("indexed_at", str(time.time()), cur)
            store.set_meta("facts_version", facts_version(), cur)
    report.parsed = writer.parsed
    for _, reason, _ in writer.skipped:
        report.skipped[reason.split(":")[0]] += 1
    if only is None:  # whole-workspace runs; an editor's per-file runs leave this to a full run
        history_changed = _refresh_history(store, root, settings)
        if passes is not None:
            passes.score(store, report.code_changed or history_changed)
    report.seconds = time.perf_counter() - started
    return report


def _parse_all(root, to_parse, settings, overrides, workers, progress, redact=None):
    """Yield parse results in batches: lists from this process (the writer packs them), packed
    Batches from worker processes when there are enough files (`redact` runs there)."""
    workers = settings.workers if workers is None else workers
    total = len(to_parse)
    if progress:
        progress(0, total)
    if workers <= 1 or total < PARALLEL_THRESHOLD:
        for start in range(0, total, BATCH):
            yield [parse_one(root, cand, settings, overrides.get(cand.path))
                   for cand in to_parse[start:start + BATCH]]
            if progress:
                progress(min(start + BATCH, total), total)
        return
    # biggest files first so that no worker is left with a large file at the end
    ordered = sorted(to_parse, key=lambda c: -c.size)
    batches = [ordered[i:i + BATCH] for i in range(0, len(ordered), BATCH)]
    methods = multiprocessing.get_all_start_methods()
    # fork copies only the calling thread: in a process running others (the owner's sessions,
    # readers and loops) a child can inherit a lock taken mid-operation, or sockets and pipes it
    # must not hold, and hang. There the workers come from a single-threaded fork server.
    if "fork" in methods and threading.active_count() == 1:
        method = "fork"
    else:
        method = "forkserver" if "forkserver" in methods else "spawn"
    done = 0
    merged = Batch()  # workers' batches go to the writer WRITE_FILES at a time (fewer inserts)
    # forked workers end with this process (a fork server's children are the server's)
    lifeline = (die_with_parent, (os.getpid(),)) if method == "fork" else (None, ())
    with multiprocessing.get_context(method).Pool(workers, *lifeline) as pool:
        parts = pool.imap_unordered(_parse_batch, [(root, b, settings, redact) for b in batches])
        while True:
            try:
                part = parts.next(timeout=PROGRESS_WAIT)
            except StopIteration:
                break
            except multiprocessing.TimeoutError:
                if progress:  # also while a batch takes long: a progress that raises stops the run
                    progress(done, total)
                continue
            done += len(part.files) + len(part.skips)
            merged.extend(part)
            if len(merged.files) + len(merged.skips) >= WRITE_FILES or merged.rows() >= WRITE_ROWS:
                yield merged
                merged = Batch()
            if progress:
                progress(done, total)
    if merged.files or merged.skips:
        yield merged


class _Writer:
    """Applies one run's results inside its transaction, then re-resolves what they touch."""

    def __init__(self, store: Store, cur, known: dict, mtimes: dict, redact: Callable[[str], str] | None,
                 first_run: bool, few: bool = False):
        """`known`: the stored rows of (at least) every path this run may touch; `few`: an editor's
        run of a few files, whose edits that only move lines keep their edges (store/moved_lines.py)."""
        self.store, self.cur, self.known, self.mtimes, self.redact = store, cur, known, mtimes, redact
        self.first_run, self.few = first_run, few
        self.names: set[str] = set()  # names whose resolution may change: defined before or after
        self.changed: set[str] = set()  # files whose rows were replaced
        self.paths_moved = False  # a path appeared or vanished: any import may land elsewhere now
        self.imports: list[ImportRow] = []
        self.edges_kept: set[str] = set()  # removed files whose edges from elsewhere are still there
        self.old_shapes: dict[str, code.FileShape] = {}  # what other files' edges depend on, before
        self.old_imports: dict[str, frozenset] = {}  # path -> its import rows as written, lines too, before
        self.new_shapes: dict[str, code.FileShape] = {}
        self.parsed = 0
        self.skipped: list[tuple] = []

    def remove(self, paths, deleted: bool = False, shapes: dict | None = None) -> list[tuple]:
        """Delete the rows of `paths`; return their git figures to give back to re-parsed files.
        The edges other files have into re-parsed files stay until `finish` knows their new shape."""
        paths = [p for p in paths if p in self.known]
        if not paths:
            return []
        removed = code.remove_files(self.store, self.cur, paths, edges_into=deleted,
                                    keep_moved=shapes if self.few and not deleted else None)
        self.old_shapes.update(removed.shapes)
        self.old_imports.update(removed.import_rows)
        if deleted:
            self.names |= removed.names
            edges.delete_co_changes(self.store, self.cur, paths)
            self.paths_moved = True
        else:
            self.edges_kept.update(paths)
        return removed.history

    def add(self, results: list | Batch) -> None:
        """Write parse results: a worker's packed Batch, or FileFacts and Skips from this process."""
        batch = results if isinstance(results, Batch) else pack(results, self.mtimes, self.redact)
        skips = batch.skips
        self.parsed += len(batch.files)
        same = {f.path for f in batch.files if f.path in self.known and self.known[f.path].hash == f.hash}
        for path in same:  # touched but identical: only the mtime moves
            code.set_mtime(self.cur, path, self.mtimes.get(path))
        batch = batch.without(same)
        history = self.remove([f.path for f in batch.files] + [s[0] for s in skips],
                              shapes={f.path: f.shape for f in batch.files})
        if any(s[0] in self.known for s in skips):
            self.paths_moved = True
        _insert_facts(self.cur, batch)
        code.restore_file_history(self.store, self.cur, history)
        code.insert(self.store, self.cur, code.SKIP_COLUMNS, "skipped", skips)
        self.skipped += skips
        if len(batch.files) >= BATCH:  # a worker batch's rows are garbage now: hand the pages back
            allocator.release_freed_memory()
        for f in batch.files:
            self.changed.add(f.path)
            self.paths_moved = self.paths_moved or f.path not in self.known
            self.imports += [ImportRow(f.path, *imp) for imp in f.imports]
            if not self.first_run:  # a first run compares no shape: ~300 MB of them at 25,000 files
                self.new_shapes[f.path] = f.shape

    def finish(self, root: Path, buffers: dict[str, bytes]) -> Changes:
        """Resolve the imports of the run (all of them when a path appeared or vanished); say what changed."""
        store, cur = self.store, self.cur
        raw, before = self.imports, {}
        inputs = json.loads(store.meta("resolver_inputs") or "{}")
        # every import again when a path appeared or vanished, or a file the resolvers read and
        # do not index (package.json, compile_commands.json...) changed
        every = not self.first_run and (self.paths_moved or inputs_changed(root, inputs))
        marked = set() if self.first_run else {family_of(p) for p in self.changed} & MARKED_BY_OTHER_FILES
        if every or marked:
            before = code.import_targets(cur)
            again = [r for r in map(ImportRow._make, code.import_rows(cur)) if every or family_of(r.path) in marked]
            if every:
                code.delete_imports(cur)
            else:
                code.delete_imports_of(store, cur, {r.path for r in again})
            raw = raw + again
        ctx = contexts.fresh(store, root, code.indexed_paths(cur), buffers)
        code.insert(store, cur, code.IMPORT_COLUMNS, "imports", import_table_rows(raw, ctx))
        contexts.keep(store, ctx)
        read = ctx.inputs if every or self.first_run else {**inputs, **ctx.inputs}
        if read != inputs:
            store.set_meta("resolver_inputs", json.dumps(read, sort_keys=True), cur)
        # a file whose edit only moved lines (same shape, references and imports): its edges back, not resolved again
        same_shape = [p for p in sorted(self.changed) if self.few and p in self.old_shapes and not self.paths_moved
                      and self.old_shapes[p] == self.new_shapes.get(p)]
        moved_only, reads_moved = moved_lines.lines_moved(cur, same_shape)
        moved_lines.restore(cur, moved_only)
        if same_shape:
            moved_lines.drop(cur)
        rebound = set(self.changed) - moved_only
        if before:
            after = code.import_targets(cur)
            rebound |= {p for p in set(before) | set(after) if before.get(p) != after.get(p)}

        def differs(path: str, *fields: str) -> bool:
            return any(getattr(self.old_shapes.get(path), f, None) != getattr(self.new_shapes.get(path), f, None) for f in fields)

        # a file whose imports, test status, mutation flag and bases stay (no path appeared or vanished) changes others'
        # edges only through the symbols it added, removed or changed, unless one is named as a base: edges into the rest stay
        moved = {p: code.symbols_moved(self.old_shapes.get(p), self.new_shapes.get(p)) for p in {*self.old_shapes, *self.new_shapes}}
        kept = {p for p in self.changed if p in self.old_shapes and not self.paths_moved
                and not differs(p, "imports", "is_test", "mutates", "inherits")}
        bases = code.base_names(store, cur, {s[1] for p in kept for s in moved[p]})
        kept = {p for p in kept if not any(s[1] in bases for s in moved[p])}
        names, symbol_names = set(self.names), set()
        for path, rows in moved.items():
            symbol_names |= {s[0] for s in rows} | {s[1] for s in rows}
            names |= {s[1] for s in rows} if path in kept else \
                code.defined_names(self.old_shapes.get(path)) | code.defined_names(self.new_shapes.get(path))
            names |= code.names_rebound(self.old_shapes.get(path), self.new_shapes.get(path), lambda imports:
                                        module_exports.reexported_names(cur, star_targets(path, imports, ctx)))
        # imports of unchanged files landing elsewhere change fan-in and promotions like an edit would
        structure = self.first_run or bool(rebound - self.changed) or any(differs(p, "imports", "is_test", "mutates") for p in self.changed)
        # re-parsed files' IMPORTS, ASSERTS_ON and DRIVES edges (code.remove_files kept them) stay when every
        # import landed where it did before and no import row of theirs changed but for its line (the edges move too)
        moved_imports = self.first_run or self.paths_moved or every or marked or structure  # beside their lines
        written: dict[str, set] = {}
        for r in () if moved_imports else self.imports:
            written.setdefault(r.path, set()).add((r.line, r.module, r.name, r.alias))
        lines = {} if moved_imports else {p: moved_lines.import_lines_moved(self.old_imports.get(p), written.get(p))
                                          for p in self.changed}
        self.imports = []  # resolved and compared
        if links_same := not moved_imports and None not in lines.values():
            moved_lines.move_file_links(cur, lines)
        if moved_imports:
            code.mark_imports_changed(store, cur)
        if not links_same:
            code.delete_file_links(store, cur, self.edges_kept)
        code.delete_edges_into(store, cur, self.edges_kept - kept, but=code.FILE_LINK_KINDS if links_same else ())
        return Changes(self.first_run, self.first_run or self.paths_moved, set(self.changed), rebound, names,
                       structure, symbol_names, links_same, reads_moved)


def _insert_facts(cur, batch: Batch) -> None:
    for table, ((columns, types), _) in TABLES.items():  # columns straight in, no Python row between
        ingest.insert_columns(cur, table, columns, types, batch.tables[table])


def _refresh_history(store: Store, root: Path, settings: Settings) -> bool:
    head = gitmine.head(root)
    if head is None or head == store.meta("git_head"):
        return False
    history = gitmine.mine(root, set(code.known_files(store.conn)), settings.git_max_commits, settings.co_change_max_files)
    rows = gitmine.co_change_edges(history, settings.co_change_min_support)
    with store.transaction() as cur:
        edges.replace_history(store, cur, rows, history.churn, history.last_change)
        store.set_meta("git_head", head, cur)
    return True
