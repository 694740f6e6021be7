"""The memory projection in DuckDB: written whole from a replay, read back as memories.

The event log is the truth; these rows are rebuilt from it whenever the log or the code changes
(hundreds of memories replay in milliseconds, so the projection is simply replaced).
"""

from __future__ import annotations

import json

from memory_lsp.store.db import Store

MEMORY_COLUMNS = (
    ["id", "type", "text", "priority", "priority_rank", "confidence", "tags", "scope", "source", "pinned",
     "needs_review", "created", "updated", "valid_to", "superseded_by", "state", "doc"],
    ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "DOUBLE", "VARCHAR", "VARCHAR", "VARCHAR",
     "BOOLEAN", "BOOLEAN", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR"])
CITATION_COLUMNS = (
    ["memory_id", "idx", "kind", "path", "symbol", "start_line", "end_line", "fingerprint", "state",
     "cur_path", "cur_symbol", "cur_start", "cur_end"],
    ["VARCHAR", "INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "VARCHAR", "VARCHAR",
     "VARCHAR", "VARCHAR", "INTEGER", "INTEGER"])


def replace_all(store: Store, rows: list[tuple], cites: list[tuple]) -> None:
    """Replace the projection: `rows` in MEMORY_COLUMNS order (`doc` is the memory's JSON
    text), `cites` in CITATION_COLUMNS order."""
    with store.transaction() as cur:
        cur.execute("DELETE FROM memories")
        cur.execute("DELETE FROM citations")
        store.bulk_insert("memories", *MEMORY_COLUMNS, rows, cur=cur)
        store.bulk_insert("citations", *CITATION_COLUMNS, cites, cur=cur)


def all_docs(store: Store) -> list[dict]:
    """Every memory (valid or not) as its JSON document, most important first."""
    return [json.loads(doc) for (doc,) in store.cursor().execute(
        "SELECT doc FROM memories ORDER BY priority_rank DESC, created, id").fetchall()]


def strong_co_changes(store: Store, min_support: int, min_confidence: float) -> list[tuple]:
    """(path, partner, shared commits, commits of path, confidence, last change of either)."""
    return store.cursor().execute("""
        SELECT e.src_path, e.dst_path, e.support, f.churn, e.confidence,
               greatest(coalesce(f.last_change, 0), coalesce(g.last_change, 0))
        FROM edges e JOIN files f ON f.path = e.src_path LEFT JOIN files g ON g.path = e.dst_path
        WHERE e.kind = 'CO_CHANGES' AND e.support >= ? AND e.confidence >= ?
        ORDER BY e.src_path, e.dst_path""", [min_support, min_confidence]).fetchall()
