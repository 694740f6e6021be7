"""Search SQL: the BM25 index (DuckDB fts), the vector table and its scan, graph neighbours.

The fts extension builds a static index, so it is rebuilt (in about a second on the standard
library) the first time a search needs it after the code or the memories changed. Vectors
stay in a plain column keyed by item id and content hash; the hash is also the embedding
cache: a chunk that moved keeps its vector.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.store.db import Store

# what a chunk is embedded and searched as: where it is, what it is, then its head
CHUNK_TEXT = "c.path || ' | ' || c.kind || ' ' || c.name || chr(10) || left(c.text, 1200)"
MEMORY_TEXT = ("m.type || ' memory' || coalesce(' about ' || (SELECT string_agg(DISTINCT x.path, ', ') "
               "FROM citations x WHERE x.memory_id = m.id), '') || ': ' || m.text")
# identifiers split for BM25: load_config -> load config, JSONDecoder -> JSON Decoder
SPLIT_NAME = "regexp_replace(c.name, '([a-z0-9])([A-Z])', '\\1 \\2', 'g')"


def mark_dirty(store: Store) -> None:
    store.set_meta("fts_dirty", "1")


def ensure_fts(store: Store) -> bool:
    """Rebuild the BM25 index if the chunks or memories changed since it was built. -> rebuilt?"""
    if store.meta("fts_dirty", "1") == "0":
        return False
    with store.write_lock:
        cur = store.conn
        cur.execute(f"""CREATE OR REPLACE TABLE fts_docs AS
            SELECT c.id, 'code' AS kind, c.name || ' ' || {SPLIT_NAME} || ' ' || c.path || ' ' || c.text AS words
            FROM chunks c
            UNION ALL
            SELECT m.id, 'memory', m.type || ' ' || m.text || ' ' || coalesce(m.tags, '') || ' ' ||
                   coalesce((SELECT string_agg(x.path || ' ' || coalesce(x.symbol, ''), ' ')
                             FROM citations x WHERE x.memory_id = m.id), '')
            FROM memories m WHERE m.valid_to IS NULL""")
        cur.execute("PRAGMA create_fts_index('fts_docs', 'id', 'words', stemmer='porter', "
                    "stopwords='english', overwrite=1)")
        store.set_meta("fts_dirty", "0")
    return True


def bm25(store: Store, query: str, kind: str | None, limit: int) -> list[tuple[str, str, float]]:
    """(id, kind, score) best first."""
    sql = ("SELECT id, kind, score FROM (SELECT id, kind, fts_main_fts_docs.match_bm25(id, ?) AS score "
           "FROM fts_docs) WHERE score IS NOT NULL" + (" AND kind = ?" if kind else "") +
           " ORDER BY score DESC, id LIMIT ?")
    return store.cursor().execute(sql, [query] + ([kind] if kind else []) + [limit]).fetchall()


# -- vectors --------------------------------------------------------------------------------
def pending_items(store: Store, model: str, limit: int) -> list[tuple[str, str, str, str]]:
    """(id, kind, hash, text) without a current vector: memories first, then central files' chunks."""
    return store.cursor().execute(f"""
        WITH items AS (
            SELECT m.id, 'memory' AS kind, {MEMORY_TEXT} AS text, 1e9 AS rank
            FROM memories m WHERE m.valid_to IS NULL
            UNION ALL
            SELECT c.id, 'code', {CHUNK_TEXT}, coalesce(f.score, 0) + coalesce(f.reach, 0)
            FROM chunks c LEFT JOIN files f ON f.path = c.path
        )
        SELECT i.id, i.kind, md5(i.text) AS hash, i.text FROM items i
        WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.item_id = i.id AND v.hash = md5(i.text) AND v.model = ?)
        ORDER BY i.rank DESC, i.id LIMIT ?""", [model, limit]).fetchall()


def reuse_vectors(store: Store, model: str, items: list[tuple]) -> set[str]:
    """Give items whose text was embedded before (under any id) that vector. -> ids served."""
    if not items:
        return set()
    with store.write_lock:
        cur = store.conn
        cur.execute("CREATE OR REPLACE TEMP TABLE _pending (item_id VARCHAR, kind VARCHAR, hash VARCHAR)")
        store.bulk_insert("_pending", ["item_id", "kind", "hash"], ["VARCHAR", "VARCHAR", "VARCHAR"],
                          [(i, k, h) for i, k, h, _ in items], cur=cur)
        served = [r[0] for r in cur.execute("""
            INSERT INTO vectors SELECT p.item_id, p.kind, p.hash, ?, v.vec FROM _pending p
            JOIN (SELECT hash, any_value(vec) AS vec FROM vectors WHERE model = ? GROUP BY hash) v USING (hash)
            WHERE NOT EXISTS (SELECT 1 FROM vectors w WHERE w.item_id = p.item_id AND w.hash = p.hash AND w.model = ?)
            RETURNING item_id""", [model, model, model]).fetchall()]
        cur.execute("DROP TABLE _pending")
    if served:
        _bump(store)
    return set(served)


def write_vectors(store: Store, model: str, rows: list[tuple]) -> None:
    """rows: (item id, kind, hash, float32 vector). Stored as raw float32 bytes (fast to write and load)."""
    if not rows:
        return
    with store.write_lock:
        cur = store.conn
        cur.execute("DELETE FROM vectors WHERE item_id IN (SELECT unnest(?::VARCHAR[]))", [[r[0] for r in rows]])
        # as hex text: numpy object columns cannot carry bytes, and row-by-row inserts are slow
        store.bulk_insert("vectors", ["item_id", "kind", "hash", "model", "vec"],
                          ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "unhex({})"],
                          [(i, k, h, model, np.asarray(v, dtype=np.float32).tobytes().hex()) for i, k, h, v in rows],
                          cur=cur)
    _bump(store)


def drop_stale_vectors(store: Store, model: str) -> None:
    """Vectors of items that are gone, changed, or of another model."""
    with store.write_lock:
        store.conn.execute("""DELETE FROM vectors WHERE model <> ? OR (kind = 'code' AND item_id NOT IN
                              (SELECT id FROM chunks)) OR (kind = 'memory' AND item_id NOT IN
                              (SELECT id FROM memories WHERE valid_to IS NULL))""", [model])
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
    """(ids, kinds, matrix) of every stored vector of the model."""
    rows = store.cursor().execute("SELECT item_id, kind, vec FROM vectors WHERE model = ? ORDER BY item_id",
                                  [model]).fetchall()
    if not rows:
        return [], [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1)
    return [r[0] for r in rows], [r[1] for r in rows], matrix


# -- graph ----------------------------------------------------------------------------------
def neighbour_files(store: Store, paths: list[str]) -> list[tuple[str, float]]:
    """Files one edge away from any of `paths` (either direction), strongest first."""
    if not paths:
        return []
    return store.cursor().execute("""
        SELECT other, max(strength) FROM (
            SELECT dst_path AS other, confidence * (1 + score) AS strength FROM edges
            WHERE src_path IN (SELECT unnest(?::VARCHAR[])) AND dst_path IS NOT NULL
            UNION ALL
            SELECT src_path, confidence * (1 + score) FROM edges WHERE dst_path IN (SELECT unnest(?::VARCHAR[])))
        WHERE other NOT IN (SELECT unnest(?::VARCHAR[]))
        GROUP BY other ORDER BY 2 DESC, other LIMIT 50""", [paths, paths, paths]).fetchall()


def symbols_named(store: Store, names: list[str]) -> list[str]:
    """Symbol ids whose name or qualified name is one of `names`."""
    if not names:
        return []
    return [r[0] for r in store.cursor().execute(
        "SELECT id FROM symbols WHERE name IN (SELECT unnest(?::VARCHAR[])) OR qualname IN "
        "(SELECT unnest(?::VARCHAR[])) ORDER BY id LIMIT 20", [names, names]).fetchall()]


def related_symbols(store: Store, symbol_ids: list[str], limit: int) -> list[tuple[str, str, float]]:
    """Symbols linked to the given ones by CALLS/INHERITS/ASSERTS_ON (callers first): (id, via kind, strength)."""
    if not symbol_ids:
        return []
    return store.cursor().execute("""
        SELECT src, kind, confidence FROM edges WHERE dst IN (SELECT unnest(?::VARCHAR[]))
          AND kind IN ('CALLS', 'INHERITS', 'ASSERTS_ON') AND src LIKE '%::%'
        ORDER BY confidence DESC, src LIMIT ?""", [symbol_ids, limit]).fetchall()


def chunks_of(store: Store, paths: list[str], limit: int) -> list[str]:
    if not paths:
        return []
    return [r[0] for r in store.cursor().execute(
        "SELECT id FROM chunks WHERE path IN (SELECT unnest(?::VARCHAR[])) ORDER BY path, start_line LIMIT ?",
        [paths, limit]).fetchall()]


def chunk_for_symbol(store: Store, symbol_ids: list[str]) -> dict[str, str]:
    """symbol id -> the id of its chunk."""
    if not symbol_ids:
        return {}
    return dict(store.cursor().execute(
        "SELECT c.path || '::' || c.name, c.id FROM chunks c WHERE c.path || '::' || c.name IN "
        "(SELECT unnest(?::VARCHAR[]))", [symbol_ids]).fetchall())


def chunk_rows(store: Store, ids: list[str]) -> dict[str, tuple]:
    """id -> (path, kind, name, start_line, end_line, text)."""
    if not ids:
        return {}
    return {r[0]: r[1:] for r in store.cursor().execute(
        "SELECT id, path, kind, name, start_line, end_line, text FROM chunks WHERE id IN (SELECT unnest(?::VARCHAR[]))",
        [ids]).fetchall()}


def memory_ids_about(store: Store, paths: list[str]) -> list[str]:
    if not paths:
        return []
    return [r[0] for r in store.cursor().execute(
        "SELECT DISTINCT memory_id FROM citations WHERE coalesce(cur_path, path) IN (SELECT unnest(?::VARCHAR[])) "
        "ORDER BY 1", [paths]).fetchall()]
