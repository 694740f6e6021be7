"""Columnar reads for the in-memory impact graph (graph/impact.py): every node interned to an
integer in DuckDB, so no Python object is made per edge or per call site.

All reads of one load run in one read transaction: the node ids of one query are the ids of the
next.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

# every name an edge or a symbol can carry, numbered in name order (a temporary table, dropped
# with the transaction: the joins below read it five times)
_NODES = """
    CREATE OR REPLACE TEMP TABLE graph_nodes AS
    SELECT n, (row_number() OVER (ORDER BY n)) - 1 AS i FROM (
        SELECT path AS n FROM files UNION SELECT id FROM symbols UNION SELECT path FROM symbols
        UNION SELECT src FROM edges UNION SELECT dst FROM edges
        UNION SELECT src_path FROM edges UNION SELECT dst_path FROM edges) WHERE n IS NOT NULL"""


@contextmanager
def graph_transaction(cur):
    """One consistent view of the index for the reads of one graph load."""
    cur.execute("BEGIN TRANSACTION")
    try:
        cur.execute(_NODES)
        yield cur
    finally:
        cur.execute("ROLLBACK")  # nothing was written but the temporary table


def node_table(cur) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(names by id, the id of each node's file (its path before '::'; -1 if unknown), is an
    indexed file, is a test file)."""
    cols = cur.execute("""
        SELECT g.n, coalesce(p.i, -1) AS path_id, f.path IS NOT NULL AS is_file, coalesce(f.is_test, false) AS is_test
        FROM graph_nodes g LEFT JOIN graph_nodes p ON p.n = split_part(g.n, '::', 1)
        LEFT JOIN files f ON f.path = g.n ORDER BY g.i""").fetchnumpy()
    return (cols["n"].tolist(), cols["path_id"].astype(np.int32), cols["is_file"].astype(bool),
            cols["is_test"].astype(bool))


def edge_labels(cur) -> tuple[list[str], list[str]]:
    """The edge kinds and strategies ('' for none) in name order: `edge_columns` numbers them so."""
    kinds = [r[0] for r in cur.execute("SELECT DISTINCT kind FROM edges ORDER BY kind").fetchall()]
    strategies = [r[0] for r in cur.execute(
        "SELECT DISTINCT coalesce(strategy, '') AS s FROM edges ORDER BY s").fetchall()]
    return kinds, strategies


def edge_columns(cur) -> dict[str, np.ndarray]:
    """Every edge in table order as integer ids: src, dst, src_path, dst_path (node ids), kind and
    strategy (their positions in `edge_labels`), line (-1: none), confidence, score (0 for none)."""
    return cur.execute("""
        SELECT s.i AS src, d.i AS dst, sp.i AS src_path, dp.i AS dst_path,
               dense_rank() OVER (ORDER BY e.kind) - 1 AS kind,
               dense_rank() OVER (ORDER BY coalesce(e.strategy, '')) - 1 AS strategy, coalesce(e.line, -1) AS line,
               e.confidence, coalesce(e.score, 0.0) AS score
        FROM edges e JOIN graph_nodes s ON s.n = e.src JOIN graph_nodes d ON d.n = e.dst
        JOIN graph_nodes sp ON sp.n = e.src_path JOIN graph_nodes dp ON dp.n = e.dst_path
        ORDER BY e.rowid""").fetchnumpy()


def file_symbols(cur) -> dict[str, np.ndarray]:
    """The symbol rows of every file (duplicates kept), as `store.code.symbols_of` lists them:
    path id, symbol node id and name, by path then start line."""
    return cur.execute("""
        SELECT p.i AS path, s.i AS node, y.name
        FROM symbols y JOIN graph_nodes p ON p.n = y.path JOIN graph_nodes s ON s.n = y.id
        ORDER BY p.i, y.start_line, y.rowid""").fetchnumpy()


def call_site_confidences(cur) -> dict[str, np.ndarray]:
    """Every call site that `store.code.unresolved_call_sites` may count (not a builtin's nor a
    local's), with the best confidence of the CALLS edges that resolve it (-inf: none), by name
    then confidence: the count of those below a threshold is then a bisection per name."""
    return cur.execute("""
        WITH best AS (SELECT src_path, line, name, max(confidence) AS c FROM edges WHERE kind = 'CALLS'
                      GROUP BY src_path, line, name)
        SELECT r.name, coalesce(b.c, '-inf'::DOUBLE) AS best
        FROM refs r LEFT JOIN best b ON b.src_path = r.path AND b.line = r.line AND b.name = r.name
        WHERE r.kind = 'call' AND r.name IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
        ORDER BY r.name, best""").fetchnumpy()
