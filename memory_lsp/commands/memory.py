"""The memory commands: teach, capture, memories, edit, forget, feedback, approve, pin, reanchor,
import, export.

Each runs against a workspace: an open `Workspace`, or `OfflineWorkspace` (the log alone, while
another process owns the index). Writes go to the event log (`ws.book`) and never need the
index; `ws.sync_memories()` then brings the index's projection in step, where there is one.
"""

from __future__ import annotations

from memory_lsp.commands.spec import Command, Param
from memory_lsp.errors import UserError
from memory_lsp.memory.model import SOURCES, STATES, TYPES, VERDICTS

EXPORT_FORMATS = ("json", "markdown", "agents")
_TYPE = Param(str, choices=tuple(TYPES), short="-t", metavar="TYPE", help="one of: " + ", ".join(TYPES))
_OPTIONAL_TYPE = Param(str, None, choices=tuple(TYPES), metavar="TYPE")
_OPTIONAL = Param(str, None)
_FLAG = Param(bool, False)
_ID = Param(str, cli="positional")
_REDACT = Param(bool, False, help="replace secrets instead of refusing")
_MATCH = Param(str, None, metavar="REGEX", help="where the memory applies (within its scope)")


def teach(ws, a, ctx) -> dict:
    written = ws.book.teach(a.text, a.type, cite=a.cite, tags=a.tag, scope=a.scope, pin=a.pin, priority=a.priority,
                            source=a.source, redact=a.redact, match=a.match)
    ws.sync_memories()
    m = written.memory
    return {"id": m.id, "created": written.created, "memory": m.to_json(), "warnings": written.warnings,
            "redacted": written.redacted, "similar": written.similar}


def capture(ws, a, ctx) -> dict:
    captured = []
    for cand, written in ws.book.capture(a.text, source=a.source, dry_run=a.dry_run, all_turns=a.all_turns):
        entry = {"text": cand.text, "type": cand.type, "pattern": cand.pattern, "importance": round(cand.importance, 3)}
        if isinstance(written, str):
            entry["refused"] = written
        elif written is not None:
            entry.update(id=written.memory.id, created=written.created)
        captured.append(entry)
    ws.sync_memories()
    return {"captured": captured}


def memories(ws, a, ctx) -> dict:
    found = ws.memories(file=a.file, type_=a.type, state=a.state, at=a.at, include_retired=a.all)
    return {"memories": [m.to_json() for m in found]}


def _change(ws, action) -> dict:
    """A write that names a memory: `action(book, memories by id)` appends the event."""
    m = action(ws.book, {m.id: m for m in ws.memories(include_retired=True)})
    ws.sync_memories()
    return {"id": m.id, "ok": True}


def edit(ws, a, ctx) -> dict:
    return _change(ws, lambda book, ms: book.edit(ms, a.id, text=a.text, type_=a.type, tags=a.tag, scope=a.scope,
                                                  priority=a.priority, cite=a.cite, redact=a.redact,
                                                  lookup=ws.snapshot().lookup(), match=a.match))


def forget(ws, a, ctx) -> dict:
    return _change(ws, lambda book, ms: book.forget(ms, a.id, a.reason, by=a.by, invalidate=a.invalidate))


def feedback(ws, a, ctx) -> dict:
    return _change(ws, lambda book, ms: book.feedback(ms, a.id, a.verdict))


def approve(ws, a, ctx) -> dict:
    return _change(ws, lambda book, ms: book.approve(ms, a.id))


def pin(ws, a, ctx) -> dict:
    return _change(ws, lambda book, ms: book.pin(ms, a.id, pinned=not a.off))


def reanchor(ws, a, ctx) -> dict:
    return _change(ws, lambda book, ms: book.reanchor(ms, a.id, ws.snapshot().lookup(), index=a.index))


def import_rules(ws, a, ctx) -> dict:
    report = ws.book.import_rules(a.files or None, redact=a.redact)
    for line in report.warnings:
        ctx.warn(line)
    ws.sync_memories()
    return {"files": report.files, "created": [m.id for m in report.created], "unchanged": report.unchanged,
            "retired": [m.id for m in report.retired], "refused": report.refused, "duplicates": report.duplicates}


def export_memories(ws, a, ctx) -> dict:
    from memory_lsp.memory import export, secrets  # not on the way of every CLI command

    memories = [m.to_json() for m in ws.memories()]
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


_WRITE = {"reads_memories": True, "writes_memories": True}  # a change to a memory named by its id

COMMANDS = (
    Command("memory.teach", teach, help="store a memory about the project", writes_memories=True, params={
        "text": Param(str, cli="positional"), "type": _TYPE,
        "cite": Param(list, [], short="-c", metavar="PATH[::SYMBOL][:START-END]"), "tag": Param(list, []),
        "scope": Param(str, None, help="file glob the memory applies to (default: global)"),
        "pin": Param(bool, False, help="never decays"),
        "priority": Param(str, None, help="critical, high, medium, normal or low (default: by type)"),
        "source": Param(str, "user_taught", choices=SOURCES,
                        help="who says so (agents: agent_explicit; starts unreviewed)"),
        "redact": _REDACT, "match": Param(str, None, metavar="REGEX",
                                          help="the memory applies where this pattern matches (within --scope)")}),
    Command("memory.capture", capture, writes_memories=True,
            help="store what free text on stdin says (rules, preferences, corrections, dead ends)", params={
                "text": Param(str, cli="stdin"), "source": Param(str, "observer_inferred", choices=SOURCES),
                "dry_run": Param(bool, False, help="show what would be stored"),
                "all_turns": Param(bool, False, help="also the assistant's turns (default: the user's only)")}),
    Command("memory.memories", memories, help="list memories", reads_memories=True, params={
        "file": Param(str, None, help="memories citing or scoped to this file"), "type": _OPTIONAL_TYPE,
        "state": Param(str, None, choices=STATES), "at": Param(str, None, help="what was valid at this time (ISO 8601)"),
        "all": Param(bool, False, help="include forgotten (superseded, invalidated) memories")}),
    Command("memory.edit", edit, help="change a memory's text, type, tags, scope, priority or citations", **_WRITE,
            params={"id": _ID, "text": _OPTIONAL, "type": _OPTIONAL_TYPE,
                    "tag": Param(list, None, help="replaces the tags (repeat for several)"), "scope": _OPTIONAL,
                    "priority": _OPTIONAL, "cite": Param(list, None, help="replaces the citations (repeat for several)"),
                    "redact": _FLAG, "match": _MATCH}),
    Command("memory.forget", forget, help="retire a memory (superseded; nothing is deleted)", **_WRITE, params={
        "id": _ID, "reason": Param(str), "by": Param(str, None, help="the memory that replaces it"),
        "invalidate": Param(bool, False, help="it was never true (instead of: no longer true)")}),
    Command("memory.feedback", feedback, help="record a verdict on a memory", **_WRITE, params={
        "id": _ID, "verdict": Param(str, choices=VERDICTS, cli="positional")}),
    Command("memory.approve", approve, help="mark an agent's or captured memory reviewed", **_WRITE,
            params={"id": _ID}),
    Command("memory.pin", pin, help="pin a memory (it never decays)", **_WRITE, params={
        "id": _ID, "off": Param(bool, False, help="unpin")}),
    Command("memory.reanchor", reanchor, help="accept today's code for a memory's drifted citations", **_WRITE,
            params={"id": _ID, "index": Param(int, None, help="only this citation (0-based)")}),
    Command("memory.import", import_rules, writes_memories=True,
            help="import CLAUDE.md, AGENTS.md, .cursorrules, ... or a JSON export", params={
                "files": Param(list, [], cli="positional", help="default: every rules file found in the workspace"),
                "redact": _FLAG}),
    Command("memory.export", export_memories, reads_memories=True,
            help="write the memories as json, markdown or an agents block", params={
                "format": Param(str, "markdown", choices=EXPORT_FORMATS, short="-f"), "redact": _REDACT}),
)
