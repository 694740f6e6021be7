"""Columnar reads for the in-memory impact graph (graph/impact.py): plain scans fetched as numpy
columns (graph/ interns the names; a join against a numbered node table in SQL costs tens of
milliseconds per query even on a tiny index, and the first lenses wait for the graph).

All reads of one load run in one read transaction, so they see the same index.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np


@contextmanager
def graph_transaction(cur):
    """One consistent view of the index for the reads of one graph load."""
    cur.execute("BEGIN TRANSACTION")
    try:
        yield cur
    finally:
        cur.execute("ROLLBACK")  # nothing was written


def files(cur) -> dict[str, np.ndarray]:
    """Every indexed file: path, is_test."""
    return cur.execute("SELECT path, coalesce(is_test, false) AS is_test FROM files ORDER BY path").fetchnumpy()


def symbols(cur) -> dict[str, np.ndarray]:
    """The symbol rows of every file (duplicates kept) as `store.code.symbols_of` lists them:
    id, path and name, by path then start line."""
    return cur.execute("SELECT id, path, name FROM symbols ORDER BY path, start_line, rowid").fetchnumpy()


EDGE_TEXT = ("src", "dst", "src_path", "dst_path", "kind", "strategy")


def edge_columns(cur) -> dict[str, np.ndarray]:
    """Every edge's numbers in table order (as `store.edges.all_edges`): line (-1: none),
    confidence, score (0 for none)."""
    return cur.execute("SELECT coalesce(line, -1) AS line, confidence, coalesce(score, 0.0) AS score "
                       "FROM edges").fetchnumpy()


def edge_text(cur, column: str) -> np.ndarray:
    """One text column of every edge in table order (strategy: '' for none): one at a time, so a
    load never holds every edge's names as Python strings at once."""
    if column not in EDGE_TEXT:
        raise ValueError(column)
    return cur.execute(f"SELECT coalesce({column}, '') AS v FROM edges").fetchnumpy()["v"]


_CALL_SITES = """
    WITH best AS (SELECT src_path, line, name, max(confidence) AS c FROM edges WHERE kind = 'CALLS'
                  GROUP BY src_path, line, name)
    SELECT r.name, coalesce(b.c, '-inf'::DOUBLE) AS best
    FROM refs r LEFT JOIN best b ON b.src_path = r.path AND b.line = r.line AND b.name = r.name
    WHERE r.kind = 'call' AND r.name IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')"""


def call_site_confidences(cur) -> dict[str, np.ndarray]:
    """Every call site that `store.code.unresolved_call_sites` may count (not a builtin's nor a
    local's), with the best confidence of the CALLS edges that resolve it (-inf: none), by name
    then confidence (`best`), and each name once with its number of sites (`name`, `sites`): the
    count of those below a threshold is then a bisection per name. Names come once, not per
    site: a million call sites would be a million Python strings."""
    names = cur.execute(f"SELECT name, count(*) AS sites FROM ({_CALL_SITES}) GROUP BY name ORDER BY name").fetchnumpy()
    best = cur.execute(f"SELECT best FROM ({_CALL_SITES}) ORDER BY name, best").fetchnumpy()["best"]
    return {"name": names["name"], "sites": names["sites"], "best": best}
