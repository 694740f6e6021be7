"""A thread's reading cursor on the store's connection (store/db.py hands one to each thread),
and the gate that keeps a close from meeting a read."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

import duckdb

from memory_lsp.errors import IndexClosed

if TYPE_CHECKING:
    from memory_lsp.store.db import Store


class StoreClosed(duckdb.ConnectionException, IndexClosed):
    """A read asked of a store that was closed (the folder closed, or its damaged file was set
    aside and a new one opened): the caller's snapshot is gone; a new one reads the new store."""


class Gate:
    """Every call a reading cursor makes into DuckDB passes here, and a close waits until none is
    inside. DuckDB must not close a connection while another thread reads through a cursor of it:
    the process then segfaults, hangs, or reads garbage (tests/reliability/test_close_under_reads.py
    made each happen). Once closing, new calls fail at once with StoreClosed instead."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._inside = 0
        self._alone = 0  # an `alone` block waits or runs: new calls wait for it
        self.closed = False

    @contextmanager
    def passing(self) -> Iterator[None]:
        with self._cond:
            if self._alone:  # every read passes here: no wait set up when no drop is under way
                self._cond.wait_for(lambda: not self._alone or self.closed)
            if self.closed:
                raise StoreClosed("the index was closed (its folder closed, or it was reopened after damage)")
            self._inside += 1
        try:
            yield
        finally:
            with self._cond:
                self._inside -= 1
                if not self._inside:
                    self._cond.notify_all()

    @contextmanager
    def alone(self, timeout: float) -> Iterator[bool]:
        """Yields True once no call is inside, and none enters until the block ends; False if
        calls still were after `timeout` seconds (a long query: the callers that came meanwhile
        waited that long, no longer). Calls that come while it waits wait too, else a stream of
        reads could keep it waiting for ever. The block must not read through this gate."""
        with self._cond:
            self._alone += 1
            try:
                yield self._cond.wait_for(lambda: self._inside == 0, timeout)
            finally:
                self._alone -= 1
                self._cond.notify_all()

    def close(self) -> None:
        """No call passes from now on; returns when the last one inside has left."""
        with self._cond:
            self.closed = True
            self._cond.wait_for(lambda: self._inside == 0)


class ReadCursor:
    """A thread's reading connection whose results are always read to the end.

    `fetchone()` on a DuckDB result leaves the rest of it streaming, and the unfinished scan
    holds a lock on its table until that cursor runs its next query. The automatic checkpoint
    that the next large write starts (any connection of the process, once the write-ahead log
    passes 16 MB) waits for that lock, forever when the reader is the writer's own thread or an
    idle one (duckdb/duckdb#14303; reported fixed in DuckDB 1.5). So `fetchone()` reads it all.
    Every call goes through the store's gate (above).
    """

    def __init__(self, conn: duckdb.DuckDBPyConnection, store: Store | None = None, gate: Gate | None = None):
        self._conn = conn
        self._store = store
        self._gate = gate or Gate()

    def execute(self, query: str, parameters=None) -> "ReadCursor":
        try:
            with self._gate.passing():
                self._conn.execute(query, parameters)
        except StoreClosed:
            raise
        except duckdb.Error as exc:
            if self._store is not None:
                self._store.report(exc)
            raise
        return self

    def fetchone(self) -> tuple | None:
        with self._gate.passing():
            rows = self._conn.fetchall()
        return rows[0] if rows else None

    def __getattr__(self, name):  # fetchall, fetchnumpy, register... as they are, through the gate
        value = getattr(self._conn, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            with self._gate.passing():
                return value(*args, **kwargs)
        return call
