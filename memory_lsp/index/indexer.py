"""One index run, full or incremental: discover, parse what changed, write, resolve imports,
then the graph passes it is handed (graph/passes.py: edges, promotions, scores).

File change -> indexer -> store. Unchanged files (same size and mtime, or same content hash)
are not parsed again; a changed file's rows are replaced in the same transaction that
re-resolves every edge that could point into it; deleted files leave nothing behind.
"""

from __future__ import annotations

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

from memory_lsp.index import gitmine, languages
from memory_lsp.index.discover import Candidate, discover
from memory_lsp.index.batch import TABLES, Batch, pack
from memory_lsp.index.extract import content_hash, extract
from memory_lsp.index.facts import FileFacts
from memory_lsp.index.resolvers import ImportRow, ResolveContext, resolve, strip_quotes
from memory_lsp.settings import Settings
from memory_lsp.store import code, edges, ingest
from memory_lsp.store.code import FileShape
from memory_lsp.store.db import Store

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]
PARALLEL_THRESHOLD = 64  # below this many files, worker start-up costs more than it saves
BATCH = 24
WRITE_FILES = 240  # parsed files per write: each insert has a fixed cost, the overlap needs several
PROGRESS_WAIT = 0.25  # seconds between progress calls while the workers parse


class Changes(NamedTuple):
    """What one run changed: what the graph passes need to decide what to rebuild."""

    first_run: bool
    everywhere: bool  # the first run, or a path appeared or vanished: rebuild every edge
    changed: set[str]  # files whose rows were replaced
    rebound: set[str]  # changed files and files whose imports now land elsewhere
    names: set[str]  # symbol names defined in changed or removed files, before or after
    structure_changed: bool  # a file's imports, test status or mutation flag changed
    symbols_changed: bool  # a file's set of qualified names changed


class GraphPasses(NamedTuple):
    """What turns the rows into a graph; index/ runs them but does not know them (graph/passes.py)."""

    link: Callable[[Store, Any, Changes], None]  # inside the run's transaction
    score: Callable[[Store], None]  # after a whole-workspace run


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
    lines = data.count(b"\n") + 1
    if len(data) / lines > settings.max_line_bytes:
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
    known = code.known_files(cur)
    if only is None:
        candidates, skipped = discover(root, settings)
        present = {c.path for c in candidates}
        deleted = [p for p in known if p not in present]
        overrides: dict[str, bytes] = {}
    else:
        candidates, skipped, deleted, overrides = _only_candidates(root, only, settings, known)

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
    report.files = len(candidates)
    report.deleted = len(deleted)

    with store.transaction() as cur:
        writer = _Writer(store, cur, known, {c.path: c.mtime for c in candidates}, redact)
        writer.remove(deleted, deleted=True)
        if only is None:
            code.clear_skipped(cur)
        for batch in _parse_all(str(root), to_parse, settings, overrides, workers, progress, redact):
            writer.add(batch)
        writer.add([Skip(*s) for s in skipped])
        changes = writer.finish(root)
        if passes is not None:
            passes.link(store, cur, changes)
        store.set_meta("indexed_at", str(time.time()), cur)
    report.parsed = writer.parsed
    for _, reason, _ in writer.skipped:
        report.skipped[reason.split(":")[0]] += 1
    if only is None:  # whole-workspace runs; an editor's per-file runs leave this to a full run
        _refresh_history(store, root, settings)
        if passes is not None:
            passes.score(store)
    report.seconds = time.perf_counter() - started
    return report


def _only_candidates(root, only, settings, known):
    candidates, skipped, deleted, overrides = [], [], [], {}
    for rel, data in only.items():
        lang = languages.classify(rel)
        full = root / rel
        if data is None and not full.is_file():
            if rel in known:
                deleted.append(rel)
            continue
        if lang is None:
            continue
        st = os.stat(full) if full.exists() else None
        size = len(data) if data is not None else st.st_size
        if size > settings.max_file_bytes:
            skipped.append((rel, "too_large", size))
            if rel in known:
                deleted.append(rel)
            continue
        candidates.append(Candidate(rel, lang, size, st.st_mtime if st else time.time()))
        if data is not None:
            overrides[rel] = data
    return candidates, skipped, deleted, overrides


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
    with multiprocessing.get_context(method).Pool(workers) as pool:
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
            if len(merged.files) + len(merged.skips) >= WRITE_FILES:
                yield merged
                merged = Batch()
            if progress:
                progress(done, total)
    if merged.files or merged.skips:
        yield merged


class _Writer:
    """Applies one run's results inside its transaction, then re-resolves what they touch."""

    def __init__(self, store: Store, cur, known: dict, mtimes: dict, redact: Callable[[str], str] | None):
        self.store, self.cur, self.known, self.mtimes, self.redact = store, cur, known, mtimes, redact
        self.first_run = not known
        self.names: set[str] = set()  # names whose resolution may change: defined before or after
        self.changed: set[str] = set()  # files whose rows were replaced
        self.paths_moved = False  # a path appeared or vanished: any import may land elsewhere now
        self.imports: list[ImportRow] = []
        self.old_shapes: dict[str, FileShape] = {}  # what other files' edges depend on, before
        self.new_shapes: dict[str, FileShape] = {}
        self.parsed = 0
        self.skipped: list[tuple] = []

    def remove(self, paths, deleted: bool = False) -> list[tuple]:
        """Delete the rows of `paths`; return their git figures to give back to re-parsed files."""
        paths = [p for p in paths if p in self.known]
        if not paths:
            return []
        removed = code.remove_files(self.store, self.cur, paths)
        self.names |= removed.names
        self.old_shapes.update(removed.shapes)
        if deleted:
            edges.delete_co_changes(self.store, self.cur, paths)
            self.paths_moved = True
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
        history = self.remove([f.path for f in batch.files] + [s[0] for s in skips])
        if any(s[0] in self.known for s in skips):
            self.paths_moved = True
        _insert_facts(self.cur, batch)
        code.restore_file_history(self.store, self.cur, history)
        code.insert(self.store, self.cur, code.SKIP_COLUMNS, "skipped", skips)
        self.skipped += skips
        for f in batch.files:
            self.names |= f.names
            self.changed.add(f.path)
            self.paths_moved = self.paths_moved or f.path not in self.known
            self.imports += [ImportRow(f.path, *imp) for imp in f.imports]
            self.new_shapes[f.path] = FileShape(frozenset((i.module, i.name, i.alias) for i in f.imports),
                                                f.is_test, f.mutations > 0, f.qualnames)

    def finish(self, root: Path) -> Changes:
        """Resolve the imports of the run (all of them when a path appeared or vanished); say
        what changed."""
        store, cur = self.store, self.cur
        raw, before = self.imports, {}
        if self.paths_moved and not self.first_run:  # re-resolve every import against the new file set
            before = code.import_targets(cur)
            raw = raw + [ImportRow(*r) for r in code.import_rows(cur)]
            code.delete_imports(cur)
        resolved = _resolve_imports(raw, ResolveContext(root, code.indexed_paths(cur)))
        code.insert(store, cur, code.IMPORT_COLUMNS, "imports", resolved)
        rebound = set(self.changed)
        if before:
            after = code.import_targets(cur)
            rebound |= {p for p in set(before) | set(after) if before.get(p) != after.get(p)}

        def differs(*fields: str) -> bool:
            return any(tuple(getattr(self.old_shapes.get(p), f, None) for f in fields)
                       != tuple(getattr(self.new_shapes.get(p), f, None) for f in fields) for p in self.changed)

        return Changes(self.first_run, self.first_run or self.paths_moved, set(self.changed), rebound,
                       set(self.names), differs("imports", "is_test", "mutates"), differs("qualnames"))


def _insert_facts(cur, batch: Batch) -> None:
    """The batch's columns straight into their tables (no Python row in between)."""
    for table, ((columns, types), _) in TABLES.items():
        ingest.insert_columns(cur, table, columns, types, batch.tables[table])


def _resolve_imports(raw: list[ImportRow], ctx: ResolveContext) -> list[tuple]:
    by_family: dict[str, list[ImportRow]] = {}
    for row in raw:
        lang = languages.language_for(row.path)
        if lang is not None:
            by_family.setdefault(lang.resolver, []).append(row)
    out = []
    for family, rows in by_family.items():
        try:
            targets = resolve(family, rows, ctx)
        except Exception:  # a resolver bug leaves imports unresolved, never the index broken
            log.exception("resolving %s imports failed", family)
            targets = [[] for _ in rows]
        for row, found in zip(rows, targets):
            binding = row.alias or (row.name if row.name and row.name != "*" else None) \
                or _default_binding(family, row.module)
            if not found:
                out.append((row.path, row.line, row.module, row.name, row.alias, binding, None, None, "unresolved"))
            for t in found:
                out.append((row.path, row.line, row.module, row.name, row.alias, binding, t.path,
                            t.is_module, t.strategy))
    return out


def _default_binding(family: str, module: str) -> str:
    """The local name an import without alias creates: `import a.b` binds a.b; Go's "x/y" binds y."""
    text = strip_quotes(module)
    if family == "python":
        return text
    for sep in ("::", "/", "."):
        text = text.rsplit(sep, 1)[-1]
    return text


def _refresh_history(store: Store, root: Path, settings: Settings) -> None:
    head = gitmine.head(root)
    if head is None or head == store.meta("git_head"):
        return
    known = set(code.known_files(store.conn))
    history = gitmine.mine(root, known, settings.git_max_commits, settings.co_change_max_files)
    rows = gitmine.co_change_edges(history, settings.co_change_min_support)
    with store.transaction() as cur:
        edges.replace_history(store, cur, rows, history.churn, history.last_change)
        store.set_meta("git_head", head, cur)
