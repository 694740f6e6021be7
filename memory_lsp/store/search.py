"""Search SQL: the vector table and its scan, graph neighbours (the BM25 index: fulltext.py).

Vectors stay in a plain column keyed by item id and content hash; the hash is also the
embedding cache: a chunk that moved keeps its vector.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.store.db import Store

# what a chunk is embedded and searched as: where it is, what it is, then its head
CHUNK_TEXT = "c.path || ' | ' || c.kind || ' ' || c.name || chr(10) || left(c.text, 1200)"
MEMORY_TEXT = ("m.type || ' memory' || coalesce(' about ' || (SELECT string_agg(DISTINCT x.path, ', ') "
               "FROM citations x WHERE x.memory_id = m.id), '') || ': ' || m.text")
# a list of ids or paths as one string: DuckDB's Python client binds a list parameter at about
# 85 us an element (10 ms for the 120 candidates of a search), one string in microseconds
IN_LIST = "(SELECT unnest(string_split(?, chr(31))))"


def joined(values) -> str:
    return "\x1f".join(values)


# -- vectors --------------------------------------------------------------------------------
# everything that can be embedded, with its text and its priority (memories, then central files)
# (`rid`: a chunk's rowid, by which a group's texts are read: an IN list of ids scanned the whole
# table for every group, ~195 MB of text kept in DuckDB's cache at 11,282 files)
def _items(chunks_where: str = "") -> str:
    return f"""
    SELECT m.id, 'memory' AS kind, {MEMORY_TEXT} AS text, 1e9 AS rank, NULL::BIGINT AS rid
    FROM memories m WHERE m.valid_to IS NULL
    UNION ALL
    SELECT c.id, 'code', {CHUNK_TEXT}, coalesce(f.score, 0) + coalesce(f.reach, 0), c.rowid
    FROM chunks c LEFT JOIN files f ON f.path = c.path {chunks_where}"""


ITEMS = _items()


def pending_items(store: Store, model: str, limit: int, kind: str | None = None,
                  code_chunks: int | None = None) -> list[tuple[str, str, str, int | None]]:
    """(id, kind, hash, rid) without a current vector, most useful first (only `kind`: memory or code,
    when given; of the code, only the `code_chunks` most useful chunks, when given: the same ones
    run after run, so that a budget never walks through the whole code a slice at a time).
    Texts are fetched per group (`item_texts`): holding every pending text at once would cost
    about 100 MB on the stdlib."""
    # the items chosen by rank first, their texts hashed after (hashing every text then choosing:
    # +100 MB of peak and 0.76 against 0.54 s at 11,282 files)
    return store.cursor().execute(f"""
        WITH items AS ({ITEMS}),
        chosen AS (SELECT id FROM (SELECT id, kind, row_number() OVER (PARTITION BY kind ORDER BY rank DESC, id) AS place
                                   FROM items)
                   WHERE (? IS NULL OR kind = ?) AND (? IS NULL OR kind = 'memory' OR place <= ?))
        SELECT i.id, i.kind, md5(i.text) AS hash, i.rid FROM items i SEMI JOIN chosen c ON c.id = i.id
        WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item_id = i.id AND v.hash = md5(i.text) AND v.model = ?)
        ORDER BY i.rank DESC, i.id LIMIT ?""", [kind, kind, code_chunks, code_chunks, model, limit]).fetchall()


def item_texts(store: Store, ids: list[str], rids: list[int] = ()) -> list[tuple[str, str, str, str]]:
    """(id, kind, hash, text) of these items as they are now; `rids`: the chunks' rowids (a group
    of chunks close in the table reads only that stretch of it)."""
    if not ids:
        return []
    known = [r for r in rids if r is not None]
    span = (min(known), max(known)) if known else (0, -1)
    return store.cursor().execute(f"""
        WITH items AS ({_items("WHERE c.rowid BETWEEN ? AND ?")})
        SELECT id, kind, md5(text), text FROM items WHERE id IN {IN_LIST}""", [*span, joined(ids)]).fetchall()


def reuse_vectors(store: Store, model: str, items: list[tuple]) -> set[str]:
    """Give items (id, kind, hash) whose text was embedded before (under any id) that vector,
    in place of the one their old text had. -> ids served."""
    if not items:
        return set()
    with store.transaction() as cur:
        cur.execute("CREATE OR REPLACE TEMP TABLE _pending (item_id VARCHAR, kind VARCHAR, hash VARCHAR)")
        store.bulk_insert("_pending", ["item_id", "kind", "hash"], ["VARCHAR", "VARCHAR", "VARCHAR"],
                          [tuple(it[:3]) for it in items], cur=cur)
        served = [r[0] for r in cur.execute("""
            INSERT INTO vectors SELECT p.item_id, p.kind, p.hash, ?, v.vec FROM _pending p
            JOIN (SELECT hash, any_value(vec) AS vec FROM vectors WHERE model = ? GROUP BY hash) v USING (hash)
            WHERE NOT EXISTS (SELECT 1 FROM vectors w WHERE w.item_id = p.item_id AND w.hash = p.hash
                              AND w.model = ?)
            RETURNING item_id""", [model, model, model]).fetchall()]
        cur.execute("""DELETE FROM vectors v USING _pending p WHERE v.item_id = p.item_id AND v.hash <> p.hash
                       AND p.item_id IN (SELECT item_id FROM vectors WHERE hash = p.hash AND model = ?)""",
                    [model])
        cur.execute("DROP TABLE _pending")
        if served:
            _bump(store)
    return set(served)


def write_vectors(store: Store, model: str, rows: list[tuple]) -> None:
    """rows: (item id, kind, hash, float32 vector), replacing the items' vectors in one transaction.
    Stored as raw float32 bytes (fast to write and load). Callers write in groups: every write
    bumps the version, and a new version makes each searcher load the whole matrix again."""
    if not rows:
        return
    with store.transaction() as cur:
        cur.execute("CREATE OR REPLACE TEMP TABLE _new_vectors AS FROM vectors LIMIT 0")
        # as hex text: numpy object columns cannot carry bytes, and row-by-row inserts are slow
        store.bulk_insert("_new_vectors", ["item_id", "kind", "hash", "model", "vec"],
                          ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "unhex({})"],
                          [(i, k, h, model, np.asarray(v, dtype=np.float32).tobytes().hex())
                           for i, k, h, v in rows], cur=cur)
        # a join, not a list parameter: binding a list of 5,000 ids alone takes half a second
        cur.execute("DELETE FROM vectors WHERE item_id IN (SELECT item_id FROM _new_vectors)")
        cur.execute("INSERT INTO vectors FROM _new_vectors")
        cur.execute("DROP TABLE _new_vectors")
        _bump(store)


def drop_stale_vectors(store: Store, model: str) -> None:
    """Vectors of items that are gone, or of another model (a changed item's vector is replaced
    when it is embedded again)."""
    with store.write_lock:
        dropped = store.conn.execute("""
            DELETE FROM vectors WHERE model <> ? OR (kind = 'code' AND item_id NOT IN (SELECT id FROM chunks))
            OR (kind = 'memory' AND item_id NOT IN (SELECT id FROM memories WHERE valid_to IS NULL))""",
                                     [model]).fetchall()[0][0]
    if dropped:  # a new version makes every searcher reload the whole matrix
        _bump(store)


def _bump(store: Store) -> None:
    store.set_meta("vectors_version", str(int(store.meta("vectors_version", "0")) + 1))


def vector_counts(store: Store, model: str) -> tuple[int, int]:
    """(items with a vector, items)."""
    cur = store.cursor()
    total = cur.execute("SELECT (SELECT count(*) FROM chunks) + "
                        "(SELECT count(*) FROM memories WHERE valid_to IS NULL)").fetchone()[0]
    done = cur.execute("SELECT count(DISTINCT item_id) FROM vectors WHERE model = ?", [model]).fetchone()[0]
    return min(done, total), total


def load_vectors(store: Store, model: str) -> tuple[list[str], list[str], np.ndarray]:
    """(ids, kinds, matrix) of every stored vector of the model. The matrix holds one item per
    column (dimensions x items): a query vector times it runs about a third faster in BLAS than
    against one item per row, and it is filled in blocks, never held twice."""
    rows = store.cursor().execute("SELECT item_id, kind, vec FROM vectors WHERE model = ? ORDER BY item_id",
                                  [model]).fetchall()
    if not rows:
        return [], [], np.zeros((0, 0), dtype=np.float32)
    dim = len(rows[0][2]) // 4
    matrix = np.empty((dim, len(rows)), dtype=np.float32)
    for start in range(0, len(rows), 4096):
        block = rows[start:start + 4096]
        vecs = np.frombuffer(b"".join(r[2] for r in block), dtype=np.float32).reshape(-1, dim)
        matrix[:, start:start + len(block)] = vecs.T
    return [r[0] for r in rows], [r[1] for r in rows], matrix


def item_count(store: Store) -> int:
    """Items a search can find: chunks and live memories."""
    return store.cursor().execute("SELECT (SELECT count(*) FROM chunks) + "
                                  "(SELECT count(*) FROM memories WHERE valid_to IS NULL)").fetchone()[0]


# -- graph ----------------------------------------------------------------------------------
def file_links(store: Store) -> list[tuple[str, str, float]]:
    """(path, other path, strength) for every pair of files an edge links, one way; searchers
    keep them as a map (retrieval/links.py)."""
    return store.cursor().execute("""
        SELECT src_path, dst_path, max(confidence * (1 + score)) FROM edges
        WHERE dst_path IS NOT NULL AND src_path <> dst_path GROUP BY ALL""").fetchall()


def neighbours(store: Store, paths: list[str], limit: int) -> list[str]:
    """The files `file_links` links to any of `paths` (either direction), strongest first, ties by
    path, `paths` left out: what the map answers, as one query (two scans of the edges)."""
    if not paths:
        return []
    return [r[0] for r in store.cursor().execute(f"""
        WITH given AS {IN_LIST},
        linked AS (SELECT dst_path AS other, confidence * (1 + score) AS s FROM edges
                   WHERE src_path IN (SELECT * FROM given) AND dst_path IS NOT NULL AND src_path <> dst_path
                   UNION ALL
                   SELECT src_path, confidence * (1 + score) FROM edges
                   WHERE dst_path IN (SELECT * FROM given) AND src_path <> dst_path)
        SELECT other FROM linked WHERE other NOT IN (SELECT * FROM given)
        GROUP BY other ORDER BY max(s) DESC, other LIMIT ?""", [joined(paths), limit]).fetchall()]


def symbols_named(store: Store, names: list[str]) -> list[str]:
    """Symbol ids whose name or qualified name is one of `names`."""
    if not names:
        return []
    return [r[0] for r in store.cursor().execute(  # a union: an OR of two IN lists plans slower
        f"SELECT id FROM symbols WHERE name IN {IN_LIST} UNION SELECT id FROM symbols WHERE qualname IN {IN_LIST} "
        "ORDER BY id LIMIT 20", [joined(names)] * 2).fetchall()]


def related_symbols(store: Store, symbol_ids: list[str], limit: int) -> list[tuple[str, str, float]]:
    """Symbols linked to the given ones by CALLS/INHERITS/ASSERTS_ON (callers first): (id, via kind, strength)."""
    if not symbol_ids:
        return []
    return store.cursor().execute(f"""
        SELECT src, kind, confidence FROM edges WHERE dst IN {IN_LIST}
          AND kind IN ('CALLS', 'INHERITS', 'ASSERTS_ON') AND src LIKE '%::%'
        ORDER BY confidence DESC, src LIMIT ?""", [joined(symbol_ids), limit]).fetchall()


def chunks_of(store: Store, paths: list[str], limit: int) -> list[str]:
    if not paths:
        return []
    return [r[0] for r in store.cursor().execute(
        f"SELECT id FROM chunks WHERE path IN {IN_LIST} ORDER BY path, start_line LIMIT ?",
        [joined(paths), limit]).fetchall()]


def chunk_for_symbol(store: Store, symbol_ids: list[str]) -> dict[str, str]:
    """symbol id -> the id of its chunk, which the indexer names `<symbol id>:<start line>`
    (a lookup by the symbols' ids: matching `path || '::' || name` scanned every chunk)."""
    if not symbol_ids:
        return {}
    return {sid: f"{sid}:{start}" for sid, start in store.cursor().execute(
        f"SELECT id, start_line FROM symbols WHERE id IN {IN_LIST}", [joined(symbol_ids)]).fetchall()}


def chunk_rows(store: Store, ids: list[str]) -> dict[str, tuple]:
    """id -> (path, kind, name, start_line, end_line, text)."""
    if not ids:
        return {}
    return {r[0]: r[1:] for r in store.cursor().execute(
        f"SELECT id, path, kind, name, start_line, end_line, text FROM chunks WHERE id IN {IN_LIST}",
        [joined(ids)]).fetchall()}


def memory_ids_about(store: Store, paths: list[str]) -> list[str]:
    if not paths:
        return []
    return [r[0] for r in store.cursor().execute(
        f"SELECT DISTINCT memory_id FROM citations WHERE coalesce(cur_path, path) IN {IN_LIST} ORDER BY 1",
        [joined(paths)]).fetchall()]
