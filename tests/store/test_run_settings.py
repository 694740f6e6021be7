"""The settings a whole-workspace run changes: the memory raise sees the run's own rows, and a
failure inside the run is reported as itself with the settings restored."""

from __future__ import annotations

import duckdb
import pytest

from memory_lsp.store import db
from memory_lsp.store.db import Store


def _setting(store: Store, name: str) -> str:
    return store.cursor().execute(f"SELECT current_setting('{name}')").fetchall()[0][0]


def test_the_raise_counts_the_references_a_run_has_not_committed(tmp_path):
    """A fresh index inserts its references and resolves them in one transaction: counted from
    another connection they were 0, the limit stayed at 256 MiB and a 5,000-file workspace failed
    with "failed to pin block"."""
    store = Store.open(tmp_path / "index.duckdb")
    try:
        base = _setting(store, "memory_limit")
        with store.transaction() as cur:
            cur.execute("INSERT INTO refs (path, kind, name) SELECT 'a.py', 'call', 'f' || i FROM range(1000000) t(i)")
            with store.memory_for_references(cur):
                value, unit = _setting(store, "memory_limit").split()
                wanted = min(1_000_000 * db.BYTES_PER_RESOLVED_ROW, db._physical_memory() / 2) / 2**20
                assert float(value) * {"MiB": 1, "GiB": 1024}[unit] >= wanted * 0.95
        assert _setting(store, "memory_limit") == base
    finally:
        store.close()


def test_a_failure_inside_a_run_is_its_own_error_and_the_settings_come_back(tmp_path):
    store = Store.open(tmp_path / "index.duckdb")
    try:
        threads, order = _setting(store, "threads"), _setting(store, "preserve_insertion_order")
        with pytest.raises(duckdb.InvalidInputException, match="boom"):  # not "transaction is aborted"
            with store.transaction() as cur:
                with store.bulk(), store.single_threaded():
                    cur.execute("SELECT error('boom') FROM range(3)")  # fails as it runs
        assert (_setting(store, "threads"), _setting(store, "preserve_insertion_order")) == (threads, order)
    finally:
        store.close()
