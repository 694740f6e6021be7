"""The memory commands of `memory-lsp`: teach, capture, memories, forget, feedback, approve, pin,
reanchor, import, export.

Writes go to the event log and never need the index, so they work while an editor's server owns
it. Reads use the index when it is free; when it is busy they replay the log and resolve
citations from the files themselves (and say so).
"""

from __future__ import annotations

import sys
from pathlib import Path

from memory_lsp.cli_output import emit, warn
from memory_lsp.errors import IndexBusy, UserError
from memory_lsp.memory import citations as cites
from memory_lsp.memory import export, secrets
from memory_lsp.memory.book import MemoryBook, select
from memory_lsp.memory.model import SOURCES, STATES, TYPES, VERDICTS, Memory, iso, parse_time
from memory_lsp.paths import relpath, workspace_root


def add_commands(sub, common) -> None:
    p = sub.add_parser("teach", parents=[common], help="store a memory about the project")
    p.add_argument("text")
    p.add_argument("--type", "-t", required=True, choices=list(TYPES), metavar="TYPE",
                   help="one of: " + ", ".join(TYPES))
    p.add_argument("--cite", "-c", action="append", default=[], metavar="PATH[::SYMBOL][:START-END]")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--scope", help="file glob the memory applies to (default: global)")
    p.add_argument("--pin", action="store_true", help="never decays")
    p.add_argument("--priority", help="critical, high, medium, normal or low (default: by type)")
    p.add_argument("--source", default="user_taught", choices=SOURCES,
                   help="who says so (agents: agent_explicit; starts unreviewed)")
    p.add_argument("--redact", action="store_true", help="replace secrets instead of refusing")
    p.set_defaults(func=cmd_teach)

    p = sub.add_parser("capture", parents=[common], help="store what free text on stdin says (preferences, corrections, constraints)")
    p.add_argument("--source", default="observer_inferred", choices=SOURCES)
    p.add_argument("--dry-run", action="store_true", help="show what would be stored")
    p.set_defaults(func=cmd_capture)

    p = sub.add_parser("memories", parents=[common], help="list memories")
    p.add_argument("--file", help="memories citing or scoped to this file")
    p.add_argument("--type", choices=list(TYPES), metavar="TYPE")
    p.add_argument("--state", choices=STATES)
    p.add_argument("--at", help="what was valid at this time (ISO 8601)")
    p.add_argument("--all", action="store_true", help="include forgotten (superseded, invalidated) memories")
    p.set_defaults(func=cmd_memories)

    p = sub.add_parser("edit", parents=[common], help="change a memory's text, type, tags, scope, priority or citations")
    p.add_argument("id")
    p.add_argument("--text")
    p.add_argument("--type", choices=list(TYPES), metavar="TYPE")
    p.add_argument("--tag", action="append", help="replaces the tags (repeat for several)")
    p.add_argument("--scope")
    p.add_argument("--priority")
    p.add_argument("--cite", action="append", help="replaces the citations (repeat for several)")
    p.add_argument("--redact", action="store_true")
    p.set_defaults(func=cmd_edit)

    p = sub.add_parser("forget", parents=[common], help="retire a memory (superseded; nothing is deleted)")
    p.add_argument("id")
    p.add_argument("--reason", required=True)
    p.add_argument("--by", help="the memory that replaces it")
    p.add_argument("--invalidate", action="store_true", help="it was never true (instead of: no longer true)")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("feedback", parents=[common], help="record a verdict on a memory")
    p.add_argument("id")
    p.add_argument("verdict", choices=VERDICTS)
    p.set_defaults(func=cmd_feedback)

    p = sub.add_parser("approve", parents=[common], help="mark an agent's or captured memory reviewed")
    p.add_argument("id")
    p.set_defaults(func=cmd_approve)

    p = sub.add_parser("pin", parents=[common], help="pin a memory (it never decays)")
    p.add_argument("id")
    p.add_argument("--off", action="store_true", help="unpin")
    p.set_defaults(func=cmd_pin)

    p = sub.add_parser("reanchor", parents=[common], help="accept today's code for a memory's drifted citations")
    p.add_argument("id")
    p.add_argument("--index", type=int, help="only this citation (0-based)")
    p.set_defaults(func=cmd_reanchor)

    p = sub.add_parser("import", parents=[common], help="import CLAUDE.md, AGENTS.md, .cursorrules, ... or a JSON export")
    p.add_argument("files", nargs="*", help="default: every rules file found in the workspace")
    p.add_argument("--redact", action="store_true")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("export", parents=[common], help="write the memories as json, markdown or an agents block")
    p.add_argument("--format", "-f", choices=("json", "markdown", "agents"), default="markdown")
    p.add_argument("--output", "-o", help="file to write (agents: the block inside it is replaced)")
    p.add_argument("--redact", action="store_true", help="replace secrets instead of refusing")
    p.set_defaults(func=cmd_export)


# -- plumbing ------------------------------------------------------------------------------
def _book(args) -> MemoryBook:
    return MemoryBook(workspace_root(args.workspace))


class _Reader:
    """Memories for a command: from the index if it is free, else replayed from the log."""

    def __init__(self, args):
        from memory_lsp.service import Workspace

        self.book = _book(args)
        self.ws, self.note = None, None
        if args.db or (self.book.root / ".memory" / "index.duckdb").exists():
            try:
                self.ws = Workspace.open(self.book.root, db=args.db)
            except IndexBusy as exc:
                self.note = f"{exc}: citation states are read from the files"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.ws:
            self.ws.close()

    def lookup(self) -> cites.CodeLookup:
        return cites.IndexLookup(self.ws.store, self.ws.root) if self.ws else cites.FileLookup(self.book.root)

    def memories(self, **filters) -> list[Memory]:
        if self.ws:
            return self.ws.memories(**filters)
        at = filters.get("at")
        memories = list(self.book.load(until=iso(parse_time(at)) if at else None).memories.values())
        lookup = self.lookup()
        for m in memories:
            for c in m.citations:
                cites.resolve(c, lookup)
        if filters.get("file"):
            filters["file"] = relpath(self.book.root, filters["file"])
        return select(memories, **filters)

    def by_id(self) -> dict[str, Memory]:
        return {m.id: m for m in self.memories(include_retired=True)}

    def notify(self) -> None:
        if self.note:
            print(f"note: {self.note}", file=sys.stderr)
        if self.ws:  # keep the projection in step with what was just written
            self.ws.sync_memories()


def describe(m: Memory) -> list[str]:
    flags = [m.priority]
    if m.needs_review:
        flags.append("unreviewed")
    if m.pinned:
        flags.append("pinned")
    if m.state != "valid":
        flags.append(m.state.upper())
    if m.valid_to:
        flags.append(f"retired {m.valid_to[:10]}: {m.invalid_reason or ''}".strip())
    lines = [f"{m.id}  {m.type} [{', '.join(flags)}] {m.source}, {m.created[:10]}, confidence {m.effective_confidence():.2f}",
             f"    {m.text}"]
    for c in m.citations:
        moved = f" (was {c.path}{'::' + c.symbol if c.symbol else ''})" if cites.moved(c) else ""
        lines.append(f"    cites {c.label()}  {c.state}{moved}")
    if m.scope != "global":
        lines.append(f"    scope {m.scope}")
    if m.tags:
        lines.append(f"    tags {', '.join(m.tags)}")
    return lines


# -- commands ------------------------------------------------------------------------------
def cmd_teach(args) -> int:
    book = _book(args)
    written = book.teach(args.text, args.type, cite=args.cite, tags=args.tag, scope=args.scope, pin=args.pin,
                         priority=args.priority, source=args.source, redact=args.redact)
    warn([f"possible secret kept: {w}" for w in written.warnings])
    warn([f"redacted: {r}" for r in written.redacted])
    m = written.memory
    text = m.id if written.created else f"{m.id} (already known: nothing written)"
    emit(args, {"id": m.id, "created": written.created, "memory": m.to_json(), "warnings": written.warnings,
                 "redacted": written.redacted}, text)
    return 0


def cmd_capture(args) -> int:
    book = _book(args)
    results = book.capture(sys.stdin.read(), source=args.source, dry_run=args.dry_run)
    data, lines = [], []
    for cand, written in results:
        entry = {"text": cand.text, "type": cand.type, "pattern": cand.pattern, "importance": round(cand.importance, 3)}
        if isinstance(written, str):
            entry["refused"] = written
            lines.append(f"refused ({cand.pattern}): {written}")
        elif written is not None:
            entry.update(id=written.memory.id, created=written.created)
            lines.append(f"{written.memory.id}  {cand.type} ({cand.pattern}, importance {cand.importance:.2f})"
                         f"{'' if written.created else ' already known'}: {cand.text}")
        else:
            lines.append(f"would store {cand.type} ({cand.pattern}, importance {cand.importance:.2f}): {cand.text}")
        data.append(entry)
    emit(args, {"captured": data}, "\n".join(lines) or "nothing worth keeping found")
    return 0


def cmd_memories(args) -> int:
    with _Reader(args) as reader:
        found = reader.memories(file=args.file, type_=args.type, state=args.state, at=args.at,
                                include_retired=args.all)
        if reader.note:
            print(f"note: {reader.note}", file=sys.stderr)
    lines = [line for m in found for line in describe(m)] or ["no memories"]
    emit(args, {"memories": [m.to_json() for m in found]}, "\n".join(lines))
    return 0


def _write(args, action) -> int:
    with _Reader(args) as reader:
        m = action(reader.book, reader.by_id(), reader)
        reader.notify()
    emit(args, {"id": m.id, "ok": True}, f"{args.command}: {m.id}")
    return 0


def cmd_edit(args) -> int:
    return _write(args, lambda book, ms, r: book.edit(ms, args.id, text=args.text, type_=args.type, tags=args.tag,
                                                     scope=args.scope, priority=args.priority, cite=args.cite,
                                                     redact=args.redact, lookup=r.lookup()))


def cmd_forget(args) -> int:
    return _write(args, lambda book, ms, r: book.forget(ms, args.id, args.reason, by=args.by, invalidate=args.invalidate))


def cmd_feedback(args) -> int:
    return _write(args, lambda book, ms, r: book.feedback(ms, args.id, args.verdict))


def cmd_approve(args) -> int:
    return _write(args, lambda book, ms, r: book.approve(ms, args.id))


def cmd_pin(args) -> int:
    return _write(args, lambda book, ms, r: book.pin(ms, args.id, pinned=not args.off))


def cmd_reanchor(args) -> int:
    return _write(args, lambda book, ms, r: book.reanchor(ms, args.id, r.lookup(), index=args.index))


def cmd_import(args) -> int:
    book = _book(args)
    report = book.import_rules(args.files or None, redact=args.redact)
    warn(report.warnings)
    lines = [f"imported {len(report.created)} memories from {', '.join(report.files) or 'no rules files'} "
             f"({report.unchanged} already known, {len(report.retired)} retired, {len(report.refused)} refused)"]
    lines += [f"  {m.id}  {m.type}: {m.text[:100]}" for m in report.created]
    lines += [f"  refused {r}" for r in report.refused]
    emit(args, {"files": report.files, "created": [m.id for m in report.created], "unchanged": report.unchanged,
                 "retired": [m.id for m in report.retired], "refused": report.refused}, "\n".join(lines))
    return 2 if report.refused else 0


def cmd_export(args) -> int:
    with _Reader(args) as reader:
        memories = [m.to_json() for m in reader.memories()]
    for m in memories:  # a secret that reached the log some other way (a merge, a hand edit) stops here
        findings = secrets.scan(m["text"])
        if secrets.blocking(findings) and not args.redact:
            raise UserError(f"refused: memory {m['id']} contains a secret: "
                            + "; ".join(map(secrets.describe, secrets.blocking(findings)))
                            + " (forget it, or pass --redact)")
        if findings and args.redact:
            m["text"] = secrets.redact(m["text"], findings)
    if args.format == "agents":
        memories = [m for m in memories if m["state"] != "orphaned"]
    render = {"json": export.to_json, "markdown": export.to_markdown, "agents": export.to_agents_block}[args.format]
    text = render(memories)
    if not args.output:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    out = Path(args.output)
    if args.format == "agents" and out.exists():
        text = export.replace_block(out.read_text(encoding="utf-8"), text)
    out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(f"wrote {len(memories)} memories to {out}", file=sys.stderr)
    return 0
