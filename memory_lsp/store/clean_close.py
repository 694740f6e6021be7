"""Whether the DuckDB file is as the last clean close left it (a stamp of its size and time,
written at a clean close and removed at open: a process that dies while it holds the file leaves
none), and the check a file gets when it is not (store/db.py opens it)."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb


def closed_cleanly(path: str) -> bool:
    """Is the file as the last clean close left it? (the stamp is removed: a process that dies
    while it holds the file leaves none behind)"""
    stamp = Path(path + ".clean")
    try:
        written = stamp.read_text(encoding="utf-8")
        stamp.unlink()
        st = os.stat(path)
    except (OSError, ValueError):
        return not os.path.exists(path)  # a new database needs no check
    return written == f"{st.st_size}:{st.st_mtime_ns}" and not os.path.exists(path + ".wal")


def stamp_clean_close(path: str) -> None:
    if path == ":memory:":
        return
    try:
        st = os.stat(path)
        Path(path + ".clean").write_text(f"{st.st_size}:{st.st_mtime_ns}", encoding="utf-8")
    except OSError:
        pass


def read_every_block(conn: duckdb.DuckDBPyConnection) -> None:
    """Read every column of every table once: DuckDB checks a block's checksum only when it reads
    it, so a damaged block would otherwise fail some later query (an index run, a search)."""
    tables = conn.execute("SELECT table_schema, table_name FROM information_schema.tables "
                          "WHERE table_type = 'BASE TABLE' AND table_catalog = current_database()").fetchall()
    for schema, table in tables:  # main, and the fts extension's schema
        conn.execute(f'SELECT count(*), max(hash(COLUMNS(*))) FROM "{schema}"."{table}"').fetchall()
