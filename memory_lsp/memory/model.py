"""What a memory is: its types, priorities, half-lives, sources, citations, and how it decays.

Priorities follow seed 004 (policy critical; workflows, pitfalls and architecture high;
decisions and preferences medium; facts normal). Half-lives follow seed 001; decisions and
policies never decay, nor does a pinned memory. Decay counts from the last time someone
vouched for the memory (created, edited, approved, found useful, re-anchored), never from
when it was last read: freshness is about the code, not about access.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import NamedTuple

from memory_lsp.errors import UserError

# type -> (default priority, half-life in days; None = never decays)
TYPES: dict[str, tuple[str, float | None]] = {
    "policy": ("critical", None),
    "requirement": ("high", None),
    "gotcha": ("high", 60),
    "error_pattern": ("high", 60),
    "dead_end": ("high", 90),
    "workflow_recipe": ("high", 120),
    "module_insight": ("high", 90),
    "decision": ("medium", None),
    "preference": ("medium", 180),
    "pattern": ("medium", 120),
    "causal_dependency": ("medium", 120),
    "fact": ("normal", 90),
}
PRIORITIES = {"critical": 4, "high": 3, "medium": 2, "normal": 1, "low": 0}
SOURCES = ("user_taught", "agent_explicit", "imported", "git_mined", "observer_inferred")
# what a memory from each source is worth before anyone has reviewed it
INITIAL_CONFIDENCE = {"user_taught": 1.0, "imported": 0.9, "agent_explicit": 0.8,
                      "observer_inferred": 0.6, "git_mined": 0.7}
# sources whose memories a person has not vouched for yet
UNREVIEWED_SOURCES = ("agent_explicit", "observer_inferred")
VERDICTS = ("useful", "wrong", "outdated")
STATES = ("valid", "drifted", "orphaned")
MAX_TEXT = 4000


class Where(NamedTuple):
    path: str
    symbol: str | None
    start_line: int | None
    end_line: int | None


@dataclass
class Citation:
    """Where a memory points in the code. `kind`: file, symbol or range (lines of a file)."""
    path: str
    symbol: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    fingerprint: str | None = None
    shape: str | None = None  # memory/shapes.py: the code without comments, annotations, its own name
    sketch: list[int] | None = None  # memory/shapes.py: to find it again by likeness after it moved and changed
    # filled in by resolution against today's code (not part of the event)
    state: str = "valid"
    current: dict | None = None  # {"path", "symbol", "start_line", "end_line"} where it is now

    @property
    def kind(self) -> str:
        return "symbol" if self.symbol else "range" if self.start_line else "file"

    @property
    def now(self) -> "Where":
        """Where the cited code is today, each part falling back to where it was when cited."""
        cur = self.current or {}
        return Where(cur.get("path") or self.path, cur.get("symbol") or self.symbol,
                     cur.get("start_line") or self.start_line, cur.get("end_line") or self.end_line)

    def to_event(self) -> dict:
        d = {"path": self.path, "symbol": self.symbol, "start_line": self.start_line,
             "end_line": self.end_line, "fingerprint": self.fingerprint}
        return d | ({"shape": self.shape, "sketch": self.sketch} if self.shape else {})

    @classmethod
    def from_event(cls, d: dict) -> "Citation":
        return cls(path=d["path"], symbol=d.get("symbol"), start_line=d.get("start_line"),
                   end_line=d.get("end_line"), fingerprint=d.get("fingerprint"), shape=d.get("shape"),
                   sketch=d.get("sketch"))

    @classmethod
    def from_json(cls, d: dict) -> "Citation":
        c = cls.from_event(d)
        c.state, c.current = d.get("state", "valid"), d.get("current")
        return c

    def label(self) -> str:
        where = self.current or self.to_event()
        text = where["path"] + (f"::{where['symbol']}" if where.get("symbol") else "")
        if where.get("start_line"):
            text += f":{where['start_line']}-{where['end_line']}"
        return text

    def to_json(self) -> dict:
        where = self.current or {}
        return {**self.to_event(), "kind": self.kind, "state": self.state,
                "current": {k: where.get(k) for k in ("path", "symbol", "start_line", "end_line")}
                if self.current else None}


@dataclass
class Memory:
    id: str
    type: str
    text: str
    source: str
    created: str  # ISO 8601 UTC
    priority: str = "normal"
    confidence: float = 1.0
    tags: list[str] = field(default_factory=list)
    scope: str = "global"  # global, a file glob, or path::Symbol
    pinned: bool = False
    needs_review: bool = False
    citations: list[Citation] = field(default_factory=list)
    provenance: dict | None = None  # {"path", "line"} for imported memories
    match: str | None = None  # a regular expression: where it matches (within scope), the memory applies
    updated: str = ""  # last time someone vouched for it: the decay clock starts here
    valid_to: str | None = None  # set when superseded or invalidated
    superseded_by: str | None = None
    invalid_reason: str | None = None
    feedback: dict = field(default_factory=lambda: {v: 0 for v in VERDICTS})

    @property
    def half_life(self) -> float | None:
        return None if self.pinned else TYPES[self.type][1]

    @property
    def state(self) -> str:
        """valid, or the worst of its citations' states: a memory with any citation off needs review."""
        states = {c.state for c in self.citations}
        if not states or states == {"valid"}:
            return "valid"
        return "orphaned" if states == {"orphaned"} else "drifted"

    def valid_at(self, when: str) -> bool:
        return self.created <= when and (self.valid_to is None or self.valid_to > when)

    def effective_confidence(self, now: datetime | None = None) -> float:
        if self.half_life is None:
            return self.confidence
        now = now or datetime.now(timezone.utc)
        days = max(0.0, (now - parse_time(self.updated or self.created)).total_seconds() / 86400)
        return self.confidence * math.pow(0.5, days / self.half_life)

    def to_json(self) -> dict:
        return {"id": self.id, "type": self.type, "text": self.text, "priority": self.priority,
                "confidence": round(self.confidence, 4),
                "effective_confidence": round(self.effective_confidence(), 4),
                "tags": self.tags, "scope": self.scope, "source": self.source, "pinned": self.pinned,
                "needs_review": self.needs_review, "created": self.created, "updated": self.updated,
                "valid_to": self.valid_to, "superseded_by": self.superseded_by,
                "invalid_reason": self.invalid_reason, "feedback": dict(self.feedback),
                "state": self.state, "citations": [c.to_json() for c in self.citations],
                "provenance": self.provenance, "match": self.match}

    @classmethod
    def from_json(cls, d: dict) -> "Memory":
        return cls(id=d["id"], type=d["type"], text=d["text"], source=d["source"], created=d["created"],
                   priority=d["priority"], confidence=d["confidence"], tags=list(d["tags"]), scope=d["scope"],
                   pinned=d["pinned"], needs_review=d["needs_review"],
                   citations=[Citation.from_json(c) for c in d["citations"]], provenance=d.get("provenance"),
                   updated=d["updated"], valid_to=d["valid_to"], superseded_by=d["superseded_by"],
                   invalid_reason=d["invalid_reason"], feedback=dict(d["feedback"]), match=d.get("match"))


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """ISO 8601 (a date alone, or with a time; no zone = UTC) -> aware datetime."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f"not a time: {text!r} (use ISO 8601, e.g. 2026-11-21 or 2026-11-21T09:30)") from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def iso(value: datetime) -> str:
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_type(type_: str) -> str:
    if type_ not in TYPES:
        raise UserError(f"unknown memory type {type_!r}; use one of: {', '.join(TYPES)}")
    return type_


def check_priority(priority: str) -> str:
    if priority not in PRIORITIES:
        raise UserError(f"unknown priority {priority!r}; use one of: {', '.join(PRIORITIES)}")
    return priority


def check_source(source: str) -> str:
    if source not in SOURCES:
        raise UserError(f"unknown source {source!r}; use one of: {', '.join(SOURCES)}")
    return source


def check_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise UserError("a memory needs some text")
    if len(text) > MAX_TEXT:
        raise UserError(f"a memory is at most {MAX_TEXT} characters (this one has {len(text)}); "
                        "split it or cite the code instead of quoting it")
    return text


_TAG = re.compile(r"^[\w.:/-]{1,64}$")


def check_tags(tags: list[str]) -> list[str]:
    for tag in tags:
        if not _TAG.match(tag):
            raise UserError(f"bad tag {tag!r}: use letters, digits and . _ : / - (at most 64)")
    return sorted(set(tags))


def check_match(pattern: str | None) -> str | None:
    if pattern is None or pattern == "":
        return None
    if len(pattern) > 500:
        raise UserError("the match pattern is longer than 500 characters")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise UserError(f"the match pattern {pattern!r} is not a regular expression: {exc}") from None
    return pattern


def check_scope(scope: str | None) -> str:
    scope = (scope or "global").strip()
    if scope.startswith("/") or scope.startswith("..") or "/../" in scope:
        raise UserError(f"scope {scope!r} must be a workspace-relative glob such as src/api/**")
    return scope
