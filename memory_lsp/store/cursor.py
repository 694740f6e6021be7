"""A thread's reading cursor on the store's connection (store/db.py hands one to each thread)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    from memory_lsp.store.db import Store


class ReadCursor:
    """A thread's reading connection whose results are always read to the end.

    `fetchone()` on a DuckDB result leaves the rest of it streaming, and the unfinished scan
    holds a lock on its table until that cursor runs its next query. The automatic checkpoint
    that the next large write starts (any connection of the process, once the write-ahead log
    passes 16 MB) waits for that lock, forever when the reader is the writer's own thread or an
    idle one (duckdb/duckdb#14303; reported fixed in DuckDB 1.5). So `fetchone()` reads it all.
    """

    def __init__(self, conn: duckdb.DuckDBPyConnection, store: Store | None = None):
        self._conn = conn
        self._store = store

    def execute(self, query: str, parameters=None) -> "ReadCursor":
        try:
            self._conn.execute(query, parameters)
        except duckdb.Error as exc:
            if self._store is not None:
                self._store.report(exc)
            raise
        return self

    def fetchone(self) -> tuple | None:
        rows = self._conn.fetchall()
        return rows[0] if rows else None

    def __getattr__(self, name):  # fetchall, fetchnumpy, register... as they are
        return getattr(self._conn, name)
