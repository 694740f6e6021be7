"""Fold the event log into memories: a pure function of the set of events.

Events are applied in ULID order (time, then the random part), never file order, so two clones
whose logs were merged in either order, or with lines duplicated by a union merge, replay to
the same state. An event about a memory that does not exist (yet) is kept aside and applied if
the memory appears: git-mined memories are computed, not logged, but feedback on them is.
"""

from __future__ import annotations

from memory_lsp.memory.model import INITIAL_CONFIDENCE, TYPES, Citation, Memory

# how a verdict moves confidence: useful halves the distance to 1, wrong and outdated cut it
VERDICT_EFFECT = {"useful": lambda c: c + (1 - c) / 2, "wrong": lambda c: c * 0.3, "outdated": lambda c: c * 0.5}


def replay(events: list[dict], base: dict[str, Memory] | None = None,
           problems: list[str] | None = None) -> dict[str, Memory]:
    """Memories by id. An event with bad fields (a hand-edited log) is skipped and described in `problems`."""
    memories: dict[str, Memory] = dict(base or {})
    for event in sorted(events, key=lambda e: e["id"]):
        try:
            apply(memories, event)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if problems is not None:
                problems.append(f"event {event['id']} ({event['kind']}): {exc.__class__.__name__} {exc}: skipped")
    return memories


def apply(memories: dict[str, Memory], e: dict) -> None:
    kind, mid = e["kind"], e["memory"]
    if kind == "memory.created":
        if mid not in memories:  # the first creation wins; a re-import of the same id is a no-op
            memories[mid] = _created(e)
        return
    m = memories.get(mid)
    if m is None:
        return
    if kind == "memory.edited":
        if "type" in e and e["type"] not in TYPES:
            raise ValueError(f"unknown type {e['type']!r}")
        for key in ("text", "type", "priority", "scope", "match"):
            if key in e:
                setattr(m, key, e[key])
        if "tags" in e:
            m.tags = list(e["tags"])
        if "citations" in e:
            m.citations = [Citation.from_event(c) for c in e["citations"]]
        m.updated = e["ts"]
    elif kind in ("memory.superseded", "memory.invalidated"):
        if m.valid_to is None or e["ts"] < m.valid_to:  # the earliest closing event wins
            m.valid_to = e["ts"]
            m.superseded_by = e.get("by")
            m.invalid_reason = e.get("reason")
    elif kind == "memory.pinned":
        m.pinned = bool(e.get("pinned", True))
    elif kind == "memory.approved":
        m.needs_review = False
        m.updated = e["ts"]
    elif kind == "memory.feedback":
        verdict = e.get("verdict")
        if verdict in VERDICT_EFFECT:
            m.feedback[verdict] += 1
            m.confidence = round(VERDICT_EFFECT[verdict](m.confidence), 6)
            m.needs_review = False  # a verdict is a review
            if verdict == "useful":
                m.updated = e["ts"]
    elif kind == "citation.reanchored":
        index = e.get("index")
        if isinstance(index, int) and 0 <= index < len(m.citations) and isinstance(e.get("citation"), dict):
            m.citations[index] = Citation.from_event(e["citation"])
            m.updated = e["ts"]


def _created(e: dict) -> Memory:
    source = e.get("source", "user_taught")
    if e["type"] not in TYPES or not isinstance(e["text"], str):
        raise ValueError(f"unknown type {e['type']!r} or text not a string")
    return Memory(
        id=e["memory"], type=e["type"], text=e["text"], source=source, created=e["ts"], updated=e["ts"],
        priority=e.get("priority", "normal"),
        confidence=float(e.get("confidence", INITIAL_CONFIDENCE.get(source, 0.8))),
        tags=list(e.get("tags", [])), scope=e.get("scope") or "global", pinned=bool(e.get("pinned")),
        needs_review=bool(e.get("needs_review")),
        citations=[Citation.from_event(c) for c in e.get("citations", [])],
        provenance=e.get("provenance"), match=e.get("match"))
