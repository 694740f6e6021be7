"""A whole index run's call resolution hands DuckDB's freed memory back after each statement
(store/allocator.py), and the run evicts DuckDB's cache down to a smaller limit outside call
resolution (store/db.py memory_cut)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap

import duckdb
import pytest

from memory_lsp.graph.passes import PASSES
from memory_lsp.index import indexer
from memory_lsp.store import allocator, calls, db
from memory_lsp.store.db import Store
from memory_lsp.workspace import Workspace

JEMALLOC = sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64")  # DuckDB's wheels there have it

# RSS (MB) a process keeps right after a DISTINCT over 3 million strings (a ~200 MB hash table), as
# DuckDB's allocator leaves it or after a purge
_PROBE = textwrap.dedent("""
    import sys, duckdb
    from memory_lsp.store import allocator

    def rss():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) // 1024 for line in fh if line.startswith("VmRSS"))

    conn = duckdb.connect()
    conn.execute("SET enable_progress_bar = false")  # drawn on stdout past 2 s (a loaded machine)
    before = rss()
    conn.execute("SELECT count(DISTINCT 'row-' || range::VARCHAR) FROM range(3000000)").fetchall()
    if sys.argv[1] == "purged":
        assert allocator.purge()
    print(rss() - before)
""")


def _kept_after_query(mode: str) -> int:
    # no decay at all: on a loaded machine the query outlasted the default second, and decay returned the pages
    env = {**os.environ, "DUCKDB_JE_MALLOC_CONF": "dirty_decay_ms:-1,muzzy_decay_ms:-1"}
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, timeout=120, check=True,
                         env=env)
    return int(out.stdout.strip())


@pytest.mark.skipif(not JEMALLOC, reason="DuckDB's Linux wheels carry jemalloc; elsewhere this is a no-op")
def test_a_purge_gives_a_query_s_freed_memory_back_at_once():
    """jemalloc's default decay (1 s) kept each statement's freed hash tables in the process: the
    stdlib's index peaked 420-510 MB where DuckDB counted 200."""
    as_duckdb_leaves_it = _kept_after_query("kept")
    purged = _kept_after_query("purged")
    assert as_duckdb_leaves_it > 100, as_duckdb_leaves_it  # the probe shows the retention at all
    assert purged < 40, purged


# RSS (MB) a process keeps after freeing 64 arrays of 1 MB with a smaller live one after each, once a
# 16 MB array freed first has raised glibc's threshold for pages of their own
_ARRAYS = textwrap.dedent("""
    import sys
    import numpy as np
    from memory_lsp.store import allocator

    def rss():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) // 1024 for line in fh if line.startswith("VmRSS"))

    if sys.argv[1] == "mapped":
        assert allocator.map_large_blocks()
    big = np.ones(2 << 20)  # 16 MB, freed
    del big
    before, blocks, kept = rss(), [], []
    for _ in range(64):
        blocks.append(np.ones(1 << 17))
        kept.append(np.ones(8000))  # 64 KB: in the heap either way
    blocks.clear()
    print(rss() - before)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc; elsewhere map_large_blocks is a no-op")
def test_a_long_lived_process_hands_freed_arrays_back():
    """Freed arrays below glibc's raised threshold stayed in the heap behind the objects between them
    (the warm server at 11,282 files: 306-316 MB peaks, 298 with their own pages)."""
    def kept(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", _ARRAYS, mode], capture_output=True, text=True, timeout=60, check=True)
        return int(out.stdout.strip())
    assert kept("default") > 40  # the probe shows the retention at all
    assert kept("mapped") < 10


# the heaps glibc's malloc has after six threads each allocated at the same moment
_HEAPS = textwrap.dedent("""
    import ctypes, sys, tempfile, threading
    import numpy as np
    from memory_lsp.store import allocator

    if sys.argv[1] == "shared":
        assert allocator.share_arenas()
    together, kept = threading.Barrier(6), []

    def work():
        together.wait()
        kept.append([np.ones(4000) for _ in range(50)])  # 32 KB blocks: from a heap, not pages of their own

    threads = [threading.Thread(target=work) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    libc = ctypes.CDLL(None)
    libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes, libc.fclose.argtypes = [ctypes.c_int, ctypes.c_void_p], [ctypes.c_void_p]
    with tempfile.NamedTemporaryFile() as f:
        fp = libc.fopen(f.name.encode(), b"w")
        libc.malloc_info(0, fp)
        libc.fclose(fp)
        print(open(f.name).read().count("<heap nr="))
""")


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc; elsewhere share_arenas is a no-op")
def test_a_long_lived_process_s_threads_share_heaps():
    """Each thread allocating at once took a heap of its own (up to eight per core), whose freed pages
    only it reuses; shared, there are ARENAS."""
    def heaps(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", _HEAPS, mode], capture_output=True, text=True, timeout=60, check=True)
        return int(out.stdout.strip())
    assert heaps("default") > allocator.ARENAS  # the probe sees heaps of their own at all
    assert heaps("shared") <= allocator.ARENAS


def test_the_allocator_calls_are_harmless_anywhere():
    """Where DuckDB has no jemalloc both calls do nothing, and again and again where it has."""
    assert allocator.purge() is (allocator._mallctl() is not None)
    assert allocator.purge() is (allocator._mallctl() is not None)
    allocator.release_freed_memory()
    allocator.long_lived()
    if JEMALLOC:
        assert allocator._mallctl() is not None


def test_a_purging_cursor_purges_after_each_statement(monkeypatch):
    purges = []
    monkeypatch.setattr(allocator, "purge", lambda: purges.append(1) or True)
    cur = allocator.Purging(duckdb.connect())
    cur.execute("CREATE TABLE t AS SELECT range AS i FROM range(10)")
    assert cur.execute("SELECT sum(i) FROM t").fetchall() == [(45,)]
    with pytest.raises(duckdb.Error):
        cur.execute("SELECT nothing FROM t")
    assert len(purges) == 3  # a failed statement too


def _one_call_workspace(tmp_path) -> Workspace:
    """A workspace of one file, f calling g, not indexed yet."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return g()\n\n\ndef g():\n    return 1\n")
    return Workspace.open(root)


def test_a_whole_run_resolves_through_a_purging_cursor_and_an_edit_does_not(tmp_path, monkeypatch):
    ws = _one_call_workspace(tmp_path)
    given = []
    real = calls.resolve_refs
    monkeypatch.setattr(calls, "resolve_refs", lambda store, cur, *a, **k: given.append(type(cur)) or real(store, cur, *a, **k))
    try:
        indexer.run(ws.store, ws.root, ws.settings, workers=0, passes=PASSES)
        assert given == [allocator.Purging]
        assert ws.store.cursor().execute("SELECT count(*) FROM edges WHERE kind = 'CALLS'").fetchall() == [(1,)]
        given.clear()
        indexer.run(ws.store, ws.root, ws.settings, workers=0, passes=PASSES,
                    only={"a.py": b"def f():\n    return h()\n\n\ndef h():\n    return 1\n"})
        assert given and allocator.Purging not in given  # an editor's run: small statements, nothing to hand back
    finally:
        ws.close()


def test_the_unresolved_rows_read_whole_go_through_a_purging_cursor_once(tmp_path, monkeypatch):
    """A graph loaded whole reads every unresolved row (graph/follow_unresolved.py) through a cursor
    that hands back what each statement freed: at 10,740 files its statements kept ~460 MB between
    them otherwise. It keeps them, so the first edit reads only its own file's rows: read there,
    after the graph, the whole read took the server at 10,740 files to ~1 GB."""
    from memory_lsp.store import test_reads

    ws = _one_call_workspace(tmp_path)
    given = []  # (cursor type, kind) of each whole read, one kind at a time (a large kind in chunks)
    real, chunks = test_reads.unresolved_rows, test_reads.unresolved_row_chunks
    monkeypatch.setattr(test_reads, "unresolved_rows",
                        lambda cur, kinds: given.extend((type(cur), k) for k in kinds) or real(cur, kinds))
    monkeypatch.setattr(test_reads, "unresolved_row_chunks",
                        lambda cur, kind, size, between=None: given.append((type(cur), kind))
                        or chunks(cur, kind, size, between))
    whole = sorted((allocator.Purging, kind) for kind in test_reads._ROWS)
    try:
        indexer.run(ws.store, ws.root, ws.settings, workers=0, passes=PASSES)
        graph = ws.load_graph()
        assert not graph.followed and graph.unresolved_rows is not None
        assert sorted(given) == whole
        ws.reindex({"a.py": b"def f():\n    return h()\n\n\ndef h():\n    return 2\n"})
        followed = ws.load_graph()
        assert followed.followed and followed.unresolved_rows is not None
        assert sorted(given) == whole  # the edit read its file's rows only
    finally:
        ws.close()


def _limit_mb(store: Store) -> float:
    value, unit = store.conn.execute("SELECT current_setting('memory_limit')").fetchall()[0][0].split()
    return float(value) * {"MiB": 1, "GiB": 1024}[unit]


def test_a_memory_cut_lowers_the_base_for_its_length_and_a_raise_still_wins(tmp_path):
    store = Store.open(tmp_path / "c.duckdb")
    try:
        base = _limit_mb(store)
        with store.memory_cut(100):
            assert _limit_mb(store) == 100
            with store.memory_for(5_000_000):  # call resolution over ~25,000 files' references
                assert _limit_mb(store) > base
            assert _limit_mb(store) == 100
        assert _limit_mb(store) == base
        with store.memory_cut(10_000):  # a cut never raises
            assert _limit_mb(store) == base
    finally:
        store.close()


def test_a_whole_run_commits_under_the_cut_limit_and_gives_the_base_back(tmp_path, monkeypatch):
    ws = _one_call_workspace(tmp_path)
    seen = []
    real = Store.transaction

    def noting(self):  # the limit the run's statements and its commit see
        seen.append(_limit_mb(self))
        return real(self)

    monkeypatch.setattr(Store, "transaction", noting)
    try:
        base = _limit_mb(ws.store)
        indexer.run(ws.store, ws.root, ws.settings, workers=0, passes=PASSES)
        # the run's transaction under the cut; the scores' after it under the base again
        assert seen[0] == db.WHOLE_RUN_MEMORY_MB < base and set(seen[1:]) <= {base}
        assert _limit_mb(ws.store) == base
        assert ws.store.cursor().execute("SELECT count(*) FROM edges WHERE kind = 'CALLS'").fetchall() == [(1,)]
        seen.clear()
        indexer.run(ws.store, ws.root, ws.settings, workers=0, passes=PASSES, only={"a.py": b"def f():\n    return 2\n"})
        assert seen and set(seen) == {base}  # an editor's run keeps the base
    finally:
        ws.close()


def test_setting_the_limit_again_also_purges(tmp_path, monkeypatch):
    """A long-lived process hands back what a graph load's reads freed after each (`release`), and
    what a run's queries freed after it: the limit set again, and jemalloc's freed pages now, not a
    second later (the server at 11,282 files: 359 -> 284 MB at the end of bench_server's warm run)."""
    store = Store.open(tmp_path / "p.duckdb")
    purges = []
    monkeypatch.setattr(allocator, "purge", lambda: purges.append(1) or True)
    try:
        store.flush_memory()
        with store.memory_for(5_000_000):
            pass
        assert len(purges) == 3
    finally:
        store.close()
