"""Reads that find cited code in the index: which files are indexed, their symbols with
fingerprints, a symbol by fingerprint, a file by content hash (workspace/lookup.py uses them)."""

from __future__ import annotations


def indexed_paths(cur) -> set[str]:
    # one query for all paths: a query per citation costs about 1 ms in DuckDB's Python API
    return {p for (p,) in cur.execute("SELECT path FROM files").fetchall()}


def symbol_spans(cur, path: str) -> list[tuple]:
    """(qualname, start_line, end_line, fingerprint) of the symbols of `path`, in file order."""
    return cur.execute("SELECT qualname, start_line, end_line, fingerprint FROM symbols WHERE path = ? "
                       "ORDER BY start_line", [path]).fetchall()


def symbols_with_fingerprint(cur, fingerprint: str) -> list[tuple]:
    """(path, qualname, start_line, end_line) of the symbols whose body has this fingerprint."""
    return cur.execute("SELECT path, qualname, start_line, end_line FROM symbols WHERE fingerprint = ?",
                       [fingerprint]).fetchall()


def path_with_hash(cur, content_hash: str) -> str | None:
    """An indexed file with this content (the first by path), or None."""
    row = cur.execute("SELECT min(path) FROM files WHERE hash = ?", [content_hash]).fetchone()
    return row[0] if row else None


def symbols_named(cur, name: str) -> list[tuple]:
    """(path, qualname, start_line, end_line) of the symbols with this (last) name, anywhere."""
    return cur.execute("SELECT path, qualname, start_line, end_line FROM symbols WHERE name = ? "
                       "ORDER BY path, start_line", [name]).fetchall()


def file_hash(cur, path: str) -> str | None:
    """The content hash the index has for `path` (None: not indexed)."""
    row = cur.execute("SELECT hash FROM files WHERE path = ?", [path]).fetchone()
    return row[0] if row else None
