"""store/ingest.py: columns handed to DuckDB inside a transaction are not kept alive until its
commit (an index run is one transaction: it held every row it wrote as Python objects)."""

from __future__ import annotations

import sys

import numpy as np

from memory_lsp.store import db
from memory_lsp.store.db import Store
from memory_lsp.store.allocator import release_freed_memory
from memory_lsp.store.ingest import insert_columns


def test_inserted_columns_are_released_before_the_commit(tmp_path):
    store = Store.open(tmp_path / "i.duckdb")
    try:
        with store.transaction() as cur:
            cur.execute("CREATE TABLE t (a VARCHAR, b INTEGER)")
            names = np.array([f"name-{i}" for i in range(1000)], dtype=object)
            held = sys.getrefcount(names)
            insert_columns(cur, "t", ["a", "b"], ["VARCHAR", "INTEGER"], [names, list(range(1000))])
            assert sys.getrefcount(names) == held  # DuckDB holds no reference to it any more
            assert cur.execute("SELECT count(*), max(b) FROM t WHERE a LIKE 'name-%'").fetchall() == [(1000, 999)]
        assert store.cursor().execute("SELECT a FROM t WHERE b = 7").fetchall() == [("name-7",)]
    finally:
        store.close()


def test_release_freed_memory_leaves_live_objects_alone():
    kept = [str(i) * 50 for i in range(10_000)]
    garbage = [str(i) * 50 for i in range(100_000)]
    del garbage
    release_freed_memory()
    assert kept[9_999] == "9999" * 50


def test_the_indexing_connection_has_a_memory_limit_and_bulk_settings(tmp_path):
    store = Store.open(tmp_path / "i.duckdb")
    try:
        setting = store.cursor().execute(
            "SELECT current_setting('memory_limit'), current_setting('preserve_insertion_order')").fetchone()
        assert setting[0].endswith("MiB") and float(setting[0].split()[0]) <= 256 and setting[1] is True
        with store.bulk():
            assert store.conn.execute("SELECT current_setting('preserve_insertion_order')").fetchall() == [(False,)]
        assert store.conn.execute("SELECT current_setting('preserve_insertion_order')").fetchall() == [(True,)]
    finally:
        store.close()


def test_a_whole_workspace_resolution_gets_memory_in_proportion_and_gives_it_back(tmp_path):
    """256 MB failed to resolve 25,000 files ("failed to pin block"): a run over many references
    raises the limit for its length; a small one keeps the small limit."""
    store = Store.open(tmp_path / "m.duckdb")

    def limit_mb() -> float:
        value, unit = store.conn.execute("SELECT current_setting('memory_limit')").fetchall()[0][0].split()
        return float(value) * {"MiB": 1, "GiB": 1024}[unit]

    try:
        small = limit_mb()
        with store.memory_for(1000):
            assert limit_mb() == small
        with store.memory_for(5_000_000):  # about the references of 25,000 files
            wanted = min(5_000_000 * db.BYTES_PER_RESOLVED_ROW, db._physical_memory() / 2) / 2**20
            assert limit_mb() >= wanted * 0.95  # DuckDB shows it rounded: '3.5 GiB'
            with store.memory_for(1000):  # a small raise beside it (another thread) keeps the large one
                assert limit_mb() >= wanted * 0.95
            assert limit_mb() >= wanted * 0.95
        assert abs(limit_mb() - small) < 1
        store.set_memory_limit(128)  # a long-lived process's own limit: the base from then on
        with store.memory_for(5_000_000):
            assert limit_mb() >= wanted * 0.95
        assert limit_mb() == 128
    finally:
        store.close()
