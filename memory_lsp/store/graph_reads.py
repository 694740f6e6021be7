"""Columnar reads for the in-memory impact graph (graph/impact.py), fetched as numpy columns.

A whole load numbers every node name in SQL (a temporary table of the names in byte order) and
reads the edges, symbols and call sites as integer ids: no Python string per row, so the load's
transient peak is the numbers, not a million short-lived strings that the allocator keeps
after they are freed. The names come back once, as one string. A graph that follows an edit
(`edge_fingerprints`, `edges_at`, `files_state`, `symbols_of_files`, `call_sites_of_files`)
reads what changed only, names as text (a few hundred rows).

All reads of one load (or one update) run in one read transaction, so they see the same index.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from memory_lsp.store.code import REFS_VERSION
from memory_lsp.store.edges import FINGERPRINT

SYMBOL_NO_LINE = 2147483647  # a symbol's line that is NULL (sorted last, as DuckDB sorts NULLs)
SEP = "\x1f"  # joins lists of names into one parameter (binding a list costs ~85 us an element)
IN_NAMES = f"(SELECT unnest(string_split(?, '{SEP}')))"


@contextmanager
def graph_transaction(cur):
    """One consistent view of the index for the reads of one graph load."""
    cur.execute("BEGIN TRANSACTION")
    try:
        yield cur
    finally:
        cur.execute("ROLLBACK")  # nothing was written (the temporary tables go with it)


def refs_version(cur) -> str | None:
    """The index's references version (store/code.py REFS_VERSION), read in the graph's transaction."""
    row = cur.execute("SELECT max(value) FROM meta WHERE key = ?", [REFS_VERSION]).fetchone()
    return row[0] if row else None


# an edge's fingerprint: the row's, or for a row no write has filled yet (a whole run's history and
# scores are written after its edges) the same hash made here (store/edges.py FINGERPRINT)
EDGE_FINGERPRINT = f"coalesce(e.fingerprint, {FINGERPRINT})"
FILE_FINGERPRINT = "hash(f.hash, coalesce(f.is_test, false))"

# the names of the nodes, gathered one source at a time (one UNION of all seven held every
# edge end's string in one hash table: +200 MB at 10,000 files)
_NAMES = ("SELECT path FROM files", "SELECT id FROM symbols", "SELECT path FROM symbols",
          "SELECT coalesce(src, '') FROM edges", "SELECT coalesce(dst, '') FROM edges",
          "SELECT coalesce(src_path, '') FROM edges", "SELECT coalesce(dst_path, '') FROM edges")


def names(cur, release=None) -> tuple[bytes, np.ndarray]:
    """Number every node name (files, symbols, edge ends) in byte order in a temporary table:
    (the names in id order joined as one UTF-8 string, the length of each in bytes)."""
    release = release or (lambda _cur: None)
    cur.execute("CREATE TEMP TABLE _graph_names (name VARCHAR)")
    for source in _NAMES:
        cur.execute(f"INSERT INTO _graph_names SELECT DISTINCT name FROM ({source}) AS s(name) "
                    "WHERE name NOT IN (SELECT name FROM _graph_names)")
        release(cur)
    cur.execute("CREATE TEMP TABLE _graph_nodes AS SELECT name, "
                "(row_number() OVER (ORDER BY encode(name)) - 1)::INTEGER AS id FROM _graph_names")
    cur.execute("DROP TABLE _graph_names")
    # the files' ids alone: a join on a file path builds its hash table over these, not every name
    cur.execute("CREATE TEMP TABLE _graph_files AS SELECT name, id FROM _graph_nodes "
                "WHERE name IN (SELECT path FROM files UNION SELECT path FROM symbols)")
    release(cur)
    lengths = cur.execute("SELECT strlen(name) AS n FROM _graph_nodes ORDER BY id").fetchnumpy()["n"]
    return _joined(cur, "_graph_nodes", "id"), lengths.astype(np.int64)


def _joined(cur, table: str, order: str) -> bytes:
    """A names table's names in order as one UTF-8 string, fetched as bytes (as text, Python's
    copy and its encoding were two more copies of it at the graph load's peak)."""
    return cur.execute(f"SELECT encode(coalesce(string_agg(name, '' ORDER BY {order}), '')) "
                       f"FROM {table}").fetchall()[0][0]


def files(cur) -> dict[str, np.ndarray]:
    """Every indexed file: node id, is_test, fingerprint (its content hash and test flag), the
    hash of its path."""
    return cur.execute(f"""SELECT n.id, coalesce(f.is_test, false) AS is_test, {FILE_FINGERPRINT} AS fp,
                                  hash(f.path) AS ph
                           FROM files f JOIN _graph_files n ON n.name = f.path ORDER BY n.id""").fetchnumpy()


def labels(cur, column: str) -> list[str]:
    """The distinct values of an edge's text column (kind, strategy: '' for none)."""
    if column not in ("kind", "strategy"):
        raise ValueError(column)
    return [r[0] for r in cur.execute(f"SELECT DISTINCT coalesce({column}, '') FROM edges ORDER BY 1").fetchall()]


def edge_ends(cur, column: str) -> np.ndarray:
    """One end of every edge (src, dst, src_path, dst_path) as node ids, in table order: one join
    at a time (four at once hold four hash tables and a wide sort: +170 MB at 10,000 files)."""
    if column not in ("src", "dst", "src_path", "dst_path"):
        raise ValueError(column)
    return cur.execute(f"SELECT n.id FROM edges e JOIN _graph_nodes n ON n.name = coalesce(e.{column}, '') "
                       "ORDER BY e.rowid").fetchnumpy()["id"]


def edges(cur, kinds: list[str], strategies: list[str]) -> dict[str, np.ndarray]:
    """Every edge's other columns in table order: kind and strategy as indexes into the given
    lists, line (-1: none), confidence, score (0 for none), fingerprint, rowid."""
    out = cur.execute("""
        SELECT (list_position(?, coalesce(e.kind, '')) - 1)::TINYINT AS kind,
               (list_position(?, coalesce(e.strategy, '')) - 1)::SMALLINT AS strategy,
               coalesce(e.line, -1)::INTEGER AS line, e.confidence::DOUBLE AS confidence,
               coalesce(e.score, 0.0)::DOUBLE AS score, e.fingerprint AS fp, e.rowid AS r
        FROM edges e ORDER BY e.rowid""", [kinds, strategies]).fetchnumpy()
    return _filled(cur, out)


def _filled(cur, cols: dict) -> dict:
    """`cols` (in rowid order) with the fingerprints no write has filled yet hashed here: reading
    the stored ones leaves every edge's text unread (a few such rows at most, but for an index
    whose rows a version before the column made)."""
    fp = cols["fp"]
    if np.ma.isMaskedArray(fp):
        fp = fp.filled(0)
        missing = cur.execute(f"SELECT e.rowid AS r, {FINGERPRINT} AS fp FROM edges e "
                              "WHERE e.fingerprint IS NULL ORDER BY e.rowid").fetchnumpy()
        fp[np.searchsorted(cols["r"], missing["r"])] = missing["fp"]
    cols["fp"] = np.asarray(fp).astype(np.uint64, copy=False)
    return cols


_CALL_SITES = """
    WITH best AS (SELECT src_path, line, name, max(confidence) AS c FROM edges WHERE kind = 'CALLS'
                  {where_edges} GROUP BY src_path, line, name)
    SELECT r.path, r.name, coalesce(b.c, '-inf'::DOUBLE) AS best
    FROM refs r LEFT JOIN best b ON b.src_path = r.path AND b.line = r.line AND b.name = r.name
    WHERE r.kind = 'call' AND r.name IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
          {where_refs}"""


def call_names(cur) -> tuple[bytes, np.ndarray]:
    """Number the names of every call site that `store.code.unresolved_call_sites` may count
    (and every symbol's name, with no sites yet: a file's symbols then always have their name's
    id) in a temporary table; (the names joined, their lengths) as `names`."""
    cur.execute("CREATE TEMP TABLE _graph_calls AS SELECT name, (row_number() OVER (ORDER BY encode(name)) - 1)::INTEGER "
                "AS k FROM (SELECT name FROM refs r WHERE r.kind = 'call' AND r.name IS NOT NULL AND "
                "coalesce(r.rtype, '') NOT IN ('builtin', 'local') UNION SELECT name FROM symbols WHERE name IS NOT NULL)")
    lengths = cur.execute("SELECT strlen(name) AS n FROM _graph_calls ORDER BY k").fetchnumpy()["n"]
    return _joined(cur, "_graph_calls", "k"), lengths.astype(np.int64)


def call_sites(cur, release=None) -> dict[str, np.ndarray]:
    """Every such call site, by name id (`call_names`): its file's node id and the best
    confidence of the CALLS edges that resolve it (-inf: none). In three steps over ids, so that
    `release` can hand the memory of each back before the next (one query over the names: +120
    MB at 10,000 files)."""
    release = release or (lambda _cur: None)
    cur.execute("""CREATE TEMP TABLE _graph_best AS
        SELECT n.id AS file, e.line, c.k AS name, max(e.confidence) AS c FROM edges e
        JOIN _graph_files n ON n.name = e.src_path JOIN _graph_calls c ON c.name = e.name
        WHERE e.kind = 'CALLS' GROUP BY ALL""")
    release(cur)
    cur.execute("""CREATE TEMP TABLE _graph_sites AS
        SELECT coalesce(n.id, -1) AS file, r.line, c.k AS name FROM refs r
        LEFT JOIN _graph_files n ON n.name = r.path JOIN _graph_calls c ON c.name = r.name
        WHERE r.kind = 'call' AND r.name IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')""")
    release(cur)
    return cur.execute("""SELECT s.name, s.file::INTEGER AS file, coalesce(b.c, '-inf'::DOUBLE)::DOUBLE AS best
                          FROM _graph_sites s LEFT JOIN _graph_best b
                          ON b.file = s.file AND b.line = s.line AND b.name = s.name ORDER BY s.name""").fetchnumpy()


def symbols(cur, release=None) -> dict[str, np.ndarray]:
    """The symbol rows of every file (duplicates kept) as `store.code.symbols_of` lists them, by
    path then start line: node id, its file's node id, its name's id among the call names (-1:
    none), its kind (an index into `kinds`), its start and end lines (SYMBOL_NO_LINE: none). One join at a
    time in table order, sorted here (three joins and a sort by path at once: +80 MB at 10,000 files)."""
    release = release or (lambda _cur: None)
    kinds = [r[0] for r in cur.execute("SELECT DISTINCT coalesce(kind, '') FROM symbols ORDER BY 1").fetchall()]
    cols = {}
    for column, sql in (("node", "SELECT n.id AS v FROM symbols s JOIN _graph_nodes n ON n.name = s.id"),
                        ("path", "SELECT n.id AS v FROM symbols s JOIN _graph_files n ON n.name = s.path"),
                        ("call", "SELECT coalesce(c.k, -1)::INTEGER AS v FROM symbols s "
                                 "LEFT JOIN _graph_calls c ON c.name = s.name"),
                        ("kind", "SELECT (list_position(?, coalesce(s.kind, '')) - 1)::UTINYINT AS v FROM symbols s"),
                        ("start", f"SELECT coalesce(s.start_line, {SYMBOL_NO_LINE})::INTEGER AS v FROM symbols s"),
                        ("end", f"SELECT coalesce(s.end_line, {SYMBOL_NO_LINE})::INTEGER AS v FROM symbols s")):
        cols[column] = cur.execute(f"{sql} ORDER BY s.rowid", [kinds] if "?" in sql else []).fetchnumpy()["v"]
        release(cur)
    order = np.lexsort((cols["start"], cols["path"]))  # stable: table order on ties, as rowid
    return {**{c: v[order] for c, v in cols.items()}, "kinds": kinds}


# -- what an update reads -------------------------------------------------------------------------
def edge_fingerprints(cur) -> dict[str, np.ndarray]:
    """Every edge's rowid and fingerprint, in table order (a scan gives that order: sorted here
    only when it does not; ORDER BY cost 7 of 11 ms on the stdlib)."""
    cols = cur.execute("SELECT e.rowid AS r, e.fingerprint AS fp FROM edges e").fetchnumpy()
    r = np.asarray(cols["r"])
    if len(r) > 1 and not (r[1:] > r[:-1]).all():
        order = np.argsort(r, kind="stable")
        cols = {"r": r[order], "fp": cols["fp"][order]}
    return _filled(cur, cols)


def edges_at(cur, rowids: np.ndarray) -> dict[str, np.ndarray]:
    """The edges at these rowids (of this transaction), in table order, their text as text."""
    return cur.execute(f"""
        SELECT coalesce(src, '') AS src, coalesce(dst, '') AS dst, coalesce(src_path, '') AS src_path,
               coalesce(dst_path, '') AS dst_path, coalesce(kind, '') AS kind, coalesce(strategy, '') AS strategy,
               coalesce(line, -1)::INTEGER AS line, confidence::DOUBLE AS confidence,
               coalesce(score, 0.0)::DOUBLE AS score, {EDGE_FINGERPRINT} AS fp
        FROM edges e WHERE rowid IN (SELECT unnest(string_split(?, ','))::BIGINT) ORDER BY rowid""",
                       [",".join(map(str, rowids.tolist()))]).fetchnumpy()


def files_state(cur) -> dict[str, np.ndarray]:
    """Every indexed file: path, is_test, fingerprint, the hash of its path."""
    return cur.execute(f"SELECT f.path, coalesce(f.is_test, false) AS is_test, {FILE_FINGERPRINT} AS fp, "
                       "hash(f.path) AS ph FROM files f").fetchnumpy()


def symbols_of_files(cur, paths: list[str]) -> dict[str, np.ndarray]:
    """The symbol rows of these files as `symbols` orders them: id, path, name, kind, start, end."""
    return cur.execute(f"""SELECT id, path, name, coalesce(kind, '') AS kind,
                                  coalesce(start_line, {SYMBOL_NO_LINE})::INTEGER AS start,
                                  coalesce(end_line, {SYMBOL_NO_LINE})::INTEGER AS "end"
                           FROM symbols WHERE path IN {IN_NAMES} ORDER BY path, start_line, rowid""",
                       [SEP.join(paths)]).fetchnumpy()


def call_sites_of_files(cur, paths: list[str]) -> dict[str, np.ndarray]:
    """`call_sites` of these files only: path, name, best."""
    where_edges = f"AND src_path IN {IN_NAMES}"
    where_refs = f"AND r.path IN {IN_NAMES}"
    sql = _CALL_SITES.format(where_edges=where_edges, where_refs=where_refs)
    return cur.execute(sql, [SEP.join(paths)] * 2).fetchnumpy()
