"""The memories as rows of the store's projection tables (store/memories.py), which the host
replaces whole from a replay of the event log."""

from __future__ import annotations

import json

from memory_lsp.memory.model import PRIORITIES, Memory


def projection_rows(memories: list[Memory]) -> tuple[list[tuple], list[tuple]]:
    """The memories and their citations as rows of the store's projection tables."""
    rows, cites_ = [], []
    for m in memories:
        rows.append((m.id, m.type, m.text, m.priority, PRIORITIES.get(m.priority, 1), m.confidence, ",".join(m.tags),
                     m.scope, m.source, m.pinned, m.needs_review, m.created, m.updated, m.valid_to,
                     m.superseded_by, m.state, json.dumps(m.to_json(), ensure_ascii=False)))
        for i, c in enumerate(m.citations):
            now = c.current or {}
            cites_.append((m.id, i, c.kind, c.path, c.symbol, c.start_line, c.end_line, c.fingerprint, c.state,
                           now.get("path"), now.get("symbol"), now.get("start_line"), now.get("end_line")))
    return rows, cites_
