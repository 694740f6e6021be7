"""The memory commands: teach, capture, memories, edit, forget, feedback, approve, pin, reanchor,
import, export (registered in `commands.COMMANDS`).

Writes go to the event log through `target.book` and never need the index; reads use the index
when the target has it, else replay the log (see `commands.Target.memories`).
"""

from __future__ import annotations

from memory_lsp.commands import Param, command
from memory_lsp.errors import UserError
from memory_lsp.memory import export, secrets
from memory_lsp.memory.model import SOURCES, STATES, TYPES, VERDICTS

EXPORT_FORMATS = ("json", "markdown", "agents")
_TYPE = Param(str, choices=tuple(TYPES))
_OPTIONAL_TYPE = Param(str, None, choices=tuple(TYPES))
_OPTIONAL = Param(str, None)
_FLAG = Param(bool, False)
_ID = Param(str)


@command("memory.teach", writes_memories=True, text=Param(str), type=_TYPE, cite=Param(list, []), tag=Param(list, []),
         scope=_OPTIONAL, pin=_FLAG, priority=_OPTIONAL, source=Param(str, "user_taught", choices=SOURCES),
         redact=_FLAG, match=_OPTIONAL)
def teach(t, a) -> dict:
    written = t.book.teach(a.text, a.type, cite=a.cite, tags=a.tag, scope=a.scope, pin=a.pin, priority=a.priority,
                           source=a.source, redact=a.redact, match=a.match)
    t.after_write()
    m = written.memory
    return {"id": m.id, "created": written.created, "memory": m.to_json(), "warnings": written.warnings,
            "redacted": written.redacted}


@command("memory.capture", writes_memories=True, text=Param(str),
         source=Param(str, "observer_inferred", choices=SOURCES), dry_run=_FLAG)
def capture(t, a) -> dict:
    captured = []
    for cand, written in t.book.capture(a.text, source=a.source, dry_run=a.dry_run):
        entry = {"text": cand.text, "type": cand.type, "pattern": cand.pattern, "importance": round(cand.importance, 3)}
        if isinstance(written, str):
            entry["refused"] = written
        elif written is not None:
            entry.update(id=written.memory.id, created=written.created)
        captured.append(entry)
    t.after_write()
    return {"captured": captured}


@command("memory.memories", reads_memories=True, file=_OPTIONAL, type=_OPTIONAL_TYPE,
         state=Param(str, None, choices=STATES), at=_OPTIONAL, all=_FLAG)
def memories(t, a) -> dict:
    found = t.memories(file=a.file, type_=a.type, state=a.state, at=a.at, include_retired=a.all)
    return {"memories": [m.to_json() for m in found]}


def _change(t, action) -> dict:
    """A write that names a memory: `action(book, memories by id)` appends the event."""
    m = action(t.book, t.by_id())
    t.after_write()
    return {"id": m.id, "ok": True}


@command("memory.edit", reads_memories=True, writes_memories=True, id=_ID, text=_OPTIONAL, type=_OPTIONAL_TYPE,
         tag=Param(list, None), scope=_OPTIONAL, priority=_OPTIONAL, cite=Param(list, None), redact=_FLAG,
         match=_OPTIONAL)
def edit(t, a) -> dict:
    return _change(t, lambda book, ms: book.edit(ms, a.id, text=a.text, type_=a.type, tags=a.tag, scope=a.scope,
                                                 priority=a.priority, cite=a.cite, redact=a.redact,
                                                 lookup=t.lookup(), match=a.match))


@command("memory.forget", reads_memories=True, writes_memories=True, id=_ID, reason=Param(str), by=_OPTIONAL,
         invalidate=_FLAG)
def forget(t, a) -> dict:
    return _change(t, lambda book, ms: book.forget(ms, a.id, a.reason, by=a.by, invalidate=a.invalidate))


@command("memory.feedback", reads_memories=True, writes_memories=True, id=_ID, verdict=Param(str, choices=VERDICTS))
def feedback(t, a) -> dict:
    return _change(t, lambda book, ms: book.feedback(ms, a.id, a.verdict))


@command("memory.approve", reads_memories=True, writes_memories=True, id=_ID)
def approve(t, a) -> dict:
    return _change(t, lambda book, ms: book.approve(ms, a.id))


@command("memory.pin", reads_memories=True, writes_memories=True, id=_ID, off=_FLAG)
def pin(t, a) -> dict:
    return _change(t, lambda book, ms: book.pin(ms, a.id, pinned=not a.off))


@command("memory.reanchor", reads_memories=True, writes_memories=True, id=_ID, index=Param(int, None))
def reanchor(t, a) -> dict:
    return _change(t, lambda book, ms: book.reanchor(ms, a.id, t.lookup(), index=a.index))


@command("memory.import", writes_memories=True, files=Param(list, []), redact=_FLAG)
def import_rules(t, a) -> dict:
    report = t.book.import_rules(a.files or None, redact=a.redact)
    for line in report.warnings:
        t.warn(line)
    t.after_write()
    return {"files": report.files, "created": [m.id for m in report.created], "unchanged": report.unchanged,
            "retired": [m.id for m in report.retired], "refused": report.refused}


@command("memory.export", reads_memories=True, format=Param(str, "markdown", choices=EXPORT_FORMATS), redact=_FLAG)
def export_memories(t, a) -> dict:
    memories = [m.to_json() for m in t.memories()]
    for m in memories:  # a secret that reached the log some other way (a merge, a hand edit) stops here
        findings = secrets.scan(m["text"])
        if secrets.blocking(findings) and not a.redact:
            raise UserError(f"refused: memory {m['id']} contains a secret: "
                            + "; ".join(map(secrets.describe, secrets.blocking(findings)))
                            + " (forget it, or pass --redact)")
        if findings and a.redact:
            m["text"] = secrets.redact(m["text"], findings)
    if a.format == "agents":
        memories = [m for m in memories if m["state"] != "orphaned"]
    render = {"json": export.to_json, "markdown": export.to_markdown, "agents": export.to_agents_block}[a.format]
    return {"format": a.format, "count": len(memories), "text": render(memories)}
