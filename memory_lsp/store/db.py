"""The DuckDB file: opening it (one owner), extensions, schema versions, recovery, bulk writes.

DuckDB lets one process open a database file read-write and no other process may open it at
all, so a second process gets `IndexBusy` with one clear line instead of a lock traceback.
The database is a cache of the workspace: a file that will not open (damaged write-ahead log,
not a DuckDB file, a block whose checksum fails when every table is read once on open) or that
was written by another schema version is set aside and rebuilt (the read of every table costs
~0.7 s for a 90 MB index, so it runs only when the file is not as the last clean close left it:
a process killed, a file changed by anything else). A running process that meets damage later
(`damaged(exc)`: a checksum failure, a fatal error that invalidated the connection) opens it
again with `set_aside` (server/folders.py).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import duckdb

from memory_lsp.errors import IndexBusy
from memory_lsp.store import allocator, clean_close
from memory_lsp.store.cursor import Gate, ReadCursor
from memory_lsp.store.ingest import insert_columns

log = logging.getLogger(__name__)

SCHEMA_VERSION = 7  # v5: refs.rtype (no migration: the index is rebuilt); v6: the bm25_* tables; v7: edges.fingerprint
# version -> SQL that upgrades the previous version to it; a gap means "rebuild"
MIGRATIONS: dict[int, str] = {
    2: "SELECT 1",  # v2 adds the memories and citations tables, created by schema.sql
    3: "SELECT 1",  # v3 adds the vectors table
    4: "CREATE INDEX IF NOT EXISTS chunks_id ON chunks (id)",  # v4 looks chunks up by id
    6: "DELETE FROM meta WHERE key IN ('fts_dirty', 'fts_version')",  # bm25_* filled at the next search
    7: "ALTER TABLE edges ADD COLUMN IF NOT EXISTS fingerprint UBIGINT",  # filled by the next run; read as hashed till then
}
# DuckDB's own memory by default (its cache, joins, a run's uncommitted rows): beyond it it spills to
# the temp directory (<db>.tmp) instead of growing; by default DuckDB takes up to 80% of RAM, and an
# index of the stdlib grew the indexing process to 900 MB in call resolution
MEMORY_LIMIT_MB = 256
# ...but a whole-workspace join needs memory in proportion to what it joins: 256 MB failed ("failed to pin
# block") on 25,000 files, 160 MB on the stdlib's 350k refs; a whole resolution raises the limit to this per
# reference for its length, up to half the RAM (640, not 768: the stdlib's run under 400 MB, BENCHMARKS.md cw)
BYTES_PER_RESOLVED_ROW = 640
# a whole index run's limit outside call resolution: the run is one transaction, and what its
# statements dropped (temporary tables) stays in DuckDB's memory until the commit, which then adds
# its own buffers; under 256 MB the commit was the stdlib run's peak (404 MB; 366-372 MB under this)
WHOLE_RUN_MEMORY_MB = 192
DROP_WAIT_S = 0.05  # how long `drop_cache` (and the reads that come meanwhile) wait for a read under way
TABLES = ("files", "skipped", "symbols", "refs", "imports", "edges", "chunks", "mentions")
# what DuckDB says when the file or the connection is broken, as opposed to a query being wrong
_DAMAGE = ("Corrupt database file", "Could not read enough bytes", "database has been invalidated",
           "checksum", "not a valid DuckDB database", "No such file or directory")


def damaged(exc: BaseException) -> bool:
    """Does this error mean the database must be reopened or rebuilt (it says nothing of a query)?"""
    return isinstance(exc, duckdb.FatalException) or isinstance(exc, duckdb.Error) and any(m in str(exc) for m in _DAMAGE)


def extension_directory() -> str | None:
    """The extensions shipped by the duckdb-ext-fts / duckdb-ext-vss wheels (no network)."""
    try:
        import duckdb_ext
    except ImportError:
        return None
    for base in duckdb_ext.__path__:
        candidate = os.path.join(base, "extensions")
        if os.path.isdir(candidate):
            return candidate
    return None


class Store:
    """Owns one DuckDB connection; the writer uses `conn`, readers each take a `cursor()`."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, path: str, recovered: str | None):
        self.conn, self.path = conn, path
        self.recovered = recovered  # why the database was rebuilt on open, if it was
        self._extensions = _load_extensions(conn, ("fts",))
        self._local = threading.local()
        self._gate = Gate()  # the readers' calls, which a close waits out (store/cursor.py)
        self._dropper = conn.cursor()  # drop_cache's, any thread's: `conn` is the writer's (two at once corrupt the heap)
        self._memory_base_mb = MEMORY_LIMIT_MB  # see memory_for_references
        self._memory_needs: list[int] = []
        self._memory_lock = threading.Lock()
        self.write_lock = threading.RLock()
        self.damage: str | None = None  # what said the file is damaged, once something did
        self.on_damage = None  # called with that error (from the thread that met it): reopen

    @property
    def extensions(self) -> dict[str, str]:
        """fts (search needs it) and vss, loaded when first asked for: no statement uses vss today,
        and loading it costs every process ~26 MB."""
        if "vss" not in self._extensions:
            self._extensions.update(_load_extensions(self.cursor(), ("vss",)))  # any thread: its own cursor
        return self._extensions

    @classmethod
    def open(cls, path: str | os.PathLike, set_aside: str | None = None, free_it: Callable[[], bool] | None = None):
        """Open (or create) the database; `set_aside`: why the file there must not be used again;
        `free_it`: asked once when another process holds the file, True if it let it go (try again)."""
        path = str(path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        recovered = None
        if set_aside and path != ":memory:":
            recovered = f"the database was damaged ({set_aside}); it was set aside and rebuilt"
            log.warning("index %s: %s", path, recovered)
            _set_aside(path)
        try:
            conn = _connect(path, verify=not clean_close.closed_cleanly(path))
        except duckdb.Error as exc:
            if _is_lock_error(exc):
                if free_it is not None and free_it():
                    return cls.open(path)  # (a file set aside was moved already)
                raise IndexBusy(_busy_message(path, exc)) from None
            recovered = f"the database would not open ({_first_line(exc)}); it was set aside and rebuilt"
            log.warning("index %s: %s", path, recovered)
            _set_aside(path)
            conn = _connect(path)
        store = cls(conn, path, recovered)
        reason = store._ensure_schema()
        if reason:
            store.recovered = reason
        return store

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The writer's connection inside one transaction: committed at the end of the block,
        rolled back if anything in it (or the commit) raises. Holds the write lock throughout."""
        with self.write_lock:
            cur = self.conn
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
                cur.execute("COMMIT")
            except BaseException as exc:
                try:
                    cur.execute("ROLLBACK")
                except duckdb.Error:  # an invalidated connection cannot roll back: say what broke it
                    pass
                self.report(exc)
                raise

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Statements over a whole workspace whose rows may come in any order: DuckDB need not
        hold rows back to keep their order, so big inserts and joins stream (and spill less)."""
        before = self.conn.execute("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0]
        self.conn.execute("SET preserve_insertion_order = false")
        try:
            yield
        finally:  # a global setting, restored through a cursor whose transaction a failure cannot abort
            self.cursor().execute(f"SET preserve_insertion_order = {bool(before)}")

    def memory_for_references(self, cur=None):
        """A memory limit for statements joining every reference (a whole-workspace resolution, a graph load; see
        `memory_for`) but the reads of attributes, which none joins (index/reads.py: +30-40 MB counted). A run passes its cursor."""
        return self.memory_for((cur or self.cursor()).execute("SELECT count(*) FROM refs WHERE kind <> 'attr'").fetchone()[0])

    @contextmanager
    def memory_for(self, rows: int) -> Iterator[None]:
        """A memory limit large enough for statements over `rows` rows, for their length only: the
        limit a long-lived process keeps afterwards stays small. Raises that overlap (two threads)
        keep the largest until both end."""
        cur = self.cursor()
        needed = min(rows * BYTES_PER_RESOLVED_ROW, _physical_memory() // 2) // 2**20
        with self._memory_lock:
            self._memory_needs.append(needed)
            self.flush_memory(cur)
        try:
            yield
        finally:
            with self._memory_lock:
                self._memory_needs.remove(needed)
                self.flush_memory(cur)

    @contextmanager
    def memory_cut(self, megabytes: int) -> Iterator[None]:
        """The base limit cut to `megabytes` for the block's length (a raise by `memory_for` still
        wins while it lasts): DuckDB evicts what it caches beyond, to the temp directory if unsaved."""
        before = self._memory_base_mb
        self.set_memory_limit(min(before, megabytes))
        try:
            yield
        finally:
            self.set_memory_limit(before)

    def flush_memory(self, cur=None) -> None:
        """Set the memory limit this store wants now (the base, or a raise in progress), then purge DuckDB's
        jemalloc: what its operators freed goes back at once (80-150 MB at 10,000 files); nothing is evicted."""
        cur = cur or self.cursor()
        wanted = max(self._memory_needs, default=0)
        cur.execute(f"SET memory_limit = '{max(wanted, self._memory_base_mb)}MiB'")
        allocator.purge()  # and jemalloc's freed pages at once, not a second later (store/allocator.py)

    def drop_cache(self, wait: bool = True, keep_mb: int = 1) -> bool:
        """Hand back DuckDB's cache of the file's blocks beyond `keep_mb` (a graph load's stays up to the limit: 68
        MB at 11,282 files, BENCHMARKS.md ba). No write beside it (the write lock; not `wait`ing, a write under way
        keeps the cache), but off the writer's thread its reads outside the lock need `keep_mb`; readers wait at
        the gate for the milliseconds it takes, a read under way after DROP_WAIT_S keeps it. True if dropped."""
        if not self.write_lock.acquire(blocking=wait):
            return False
        try:
            with self._memory_lock, self._gate.alone(DROP_WAIT_S) as alone:
                if alone:
                    _evict(self._dropper, max([self._memory_base_mb, *self._memory_needs]), keep_mb)
                return alone
        finally:
            self.write_lock.release()

    @contextmanager
    def single_threaded(self, on: bool = True) -> Iterator[None]:
        """Run small statements on one thread: waking DuckDB's other workers for a query that
        reads a few hundred rows costs more than it saves, most of all on a loaded machine."""
        if not on:
            yield
            return
        before = self.conn.execute("SELECT current_setting('threads')").fetchall()[0][0]
        self.conn.execute("SET threads = 1")
        try:
            yield
        finally:  # as in `bulk`
            self.cursor().execute(f"SET threads = {int(before)}")

    def report(self, exc: BaseException) -> None:
        """Note an error; if it says the database is damaged, tell `on_damage` (once)."""
        if not damaged(exc) or self.damage is not None:
            return
        self.damage = _first_line(exc)
        log.error("index %s is damaged: %s", self.path, self.damage)
        if self.on_damage is not None:
            self.on_damage(exc)

    def set_memory_limit(self, megabytes: int) -> None:
        """Cap DuckDB's cache (by default up to 80% of RAM); beyond it DuckDB spills to disk."""
        with self._memory_lock:
            self._memory_base_mb = int(megabytes)
            self.flush_memory()

    def cursor(self) -> "ReadCursor":
        """A cursor for the calling thread (DuckDB connections are not thread-safe)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            with self._gate.passing():  # a closed store hands out none
                cur = self._local.cursor = ReadCursor(self.conn.cursor(), self, self._gate)
        return cur

    def close(self) -> None:
        """Close the connection once no read is under way (DuckDB closes the readers' cursors
        with it); a read asked afterwards fails with StoreClosed."""
        self._gate.close()
        try:
            self.conn.close()
        except duckdb.Error:
            return
        if self.damage is None:  # a damaged file must be checked when it is opened again
            clean_close.stamp_clean_close(self.path)

    def checkpoint(self) -> bool:
        """Write what the last commits left in memory into the file, if no other transaction runs (DuckDB refuses
        then; the automatic checkpoint comes later): the warm server 8-12 MB smaller at 11k files. Under the write
        lock: a cache drop's low limit would fail it."""
        try:
            with self.write_lock:
                self.conn.execute("CHECKPOINT")
            return True
        except duckdb.Error as exc:
            log.debug("no checkpoint now: %s", _first_line(exc))
            return False

    def health_check(self) -> bool:
        try:
            return self.cursor().execute("SELECT count(*) FROM files").fetchone() is not None
        except duckdb.Error:
            return False

    def meta(self, key: str, default: str | None = None) -> str | None:
        return self.meta_all().get(key, default)

    def meta_all(self, cur=None) -> dict[str, str]:
        # the table is a few rows: read whole
        return dict((cur or self.cursor()).execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, key: str, value: str, cur=None) -> None:
        cur = cur or self.conn
        # a value stored already (`fts_dirty`, each edit) is not written: outside a transaction each write commits
        if self.meta_all(cur).get(key) == value:
            return
        cur.execute("DELETE FROM meta WHERE key = ?", [key])
        cur.execute("INSERT INTO meta VALUES (?, ?)", [key, value])

    def bulk_insert(self, table: str, columns: list[str], types: list[str], rows: list[tuple],
                    cur=None) -> None:
        """Insert many rows in one statement via numpy columns (row-by-row is 1000x slower)."""
        if rows:
            insert_columns(cur or self.conn, table, columns, types, list(zip(*rows)))

    def _ensure_schema(self) -> str | None:
        conn = self.conn
        existing = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
        reason = None
        if "meta" in existing:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = int(row[0]) if row else 0
            if version != SCHEMA_VERSION:
                steps = range(version + 1, SCHEMA_VERSION + 1)
                if version < SCHEMA_VERSION and all(v in MIGRATIONS for v in steps):
                    for v in steps:
                        conn.execute(MIGRATIONS[v])
                else:
                    reason = f"index schema v{version} differs from v{SCHEMA_VERSION}: rebuilt"
                    for table in existing:
                        conn.execute(f'DROP TABLE IF EXISTS "{table}"')
        conn.execute((Path(__file__).with_name("schema.sql")).read_text(encoding="utf-8"))
        self.set_meta("schema_version", str(SCHEMA_VERSION))
        return reason


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def _connect(path: str, verify: bool = False) -> duckdb.DuckDBPyConnection:
    config = {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false",
              "memory_limit": f"{MEMORY_LIMIT_MB}MiB"}
    ext_dir = extension_directory()
    if ext_dir:
        config["extension_directory"] = ext_dir
    conn = duckdb.connect(path, config=config)
    try:
        # no progress bar (a connection's own setting; its cursors take it): DuckDB draws one on the
        # process's stdout for a query past 2 s, which is the server's LSP stream and the CLI's answer
        conn.execute("SET enable_progress_bar = false")
        conn.execute("SELECT 1").fetchone()  # a damaged WAL shows up here at the latest
        if verify:
            clean_close.read_every_block(conn)
            _evict(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _evict(conn: duckdb.DuckDBPyConnection, limit_mb: int = MEMORY_LIMIT_MB, keep_mb: int = 1) -> None:
    """Drop the blocks DuckDB has cached beyond `keep_mb` (they stay up to its limit), then set the limit again.
    A limit below what DuckDB can give back fails and evicts what it can. Only where no other user of the
    database may need more than `keep_mb` meanwhile (at open; `Store.drop_cache`): a query then fails."""
    try:
        conn.execute(f"SET memory_limit = '{keep_mb}MiB'")
    except duckdb.Error:
        pass
    conn.execute(f"SET memory_limit = '{limit_mb}MiB'")


def _load_extensions(conn, names) -> dict[str, str]:
    """Load extensions from the wheels; report each as 'loaded' or the error (never fatal)."""
    status = {}
    for name in names:
        try:
            conn.execute(f"LOAD {name}")
            status[name] = "loaded"
        except duckdb.Error as exc:
            status[name] = f"not loaded: {_first_line(exc)}"
    return status


def _is_lock_error(exc: Exception) -> bool:
    return "lock" in str(exc).lower() and "conflicting" in str(exc).lower() or \
        "Could not set lock" in str(exc)


def _busy_message(path: str, exc: Exception) -> str:
    pid = re.search(r"PID (\d+)", str(exc))
    owner = f" (process {pid.group(1)})" if pid else ""
    return (f"the index {path} is in use by another memory-lsp process{owner}; "
            "stop it or wait for it to finish, or pass --db to use another index file")


def _set_aside(path: str) -> None:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for suffix in ("", ".wal"):
        src = path + suffix
        if os.path.exists(src):
            os.replace(src, f"{path}.broken-{stamp}-{os.getpid()}{suffix}")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
