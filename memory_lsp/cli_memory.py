"""The memory commands of `memory-lsp`: teach, capture, memories, edit, forget, feedback, approve,
pin, reanchor, import, export (their arguments and their text; the work is in `commands_memory`).

Writes go to the event log and never need the index, so they work while an editor's server owns
it. Reads use the index when it is free; when it is busy they are asked of the server, or replay
the log and resolve citations from the files themselves (and say so).
"""

from __future__ import annotations

import sys
from pathlib import Path

from memory_lsp.cli_output import call, emit, warn
from memory_lsp.commands_memory import EXPORT_FORMATS
from memory_lsp.memory import citations as cites
from memory_lsp.memory import export
from memory_lsp.memory.book import MemoryBook
from memory_lsp.memory.model import SOURCES, STATES, TYPES, VERDICTS, Memory
from memory_lsp.paths import workspace_root


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
    p.add_argument("--match", metavar="REGEX", help="the memory applies where this pattern matches (within --scope)")
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
    p.add_argument("--match", metavar="REGEX", help="where the memory applies (within its scope)")
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
    p.add_argument("--format", "-f", choices=EXPORT_FORMATS, default="markdown")
    p.add_argument("--output", "-o", help="file to write (agents: the block inside it is replaced)")
    p.add_argument("--redact", action="store_true", help="replace secrets instead of refusing")
    p.set_defaults(func=cmd_export)


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
    data = call(args, "memory.teach", {
        "text": args.text, "type": args.type, "cite": args.cite, "tag": args.tag, "scope": args.scope, "pin": args.pin,
        "priority": args.priority, "source": args.source, "redact": args.redact, "match": args.match})
    warn([f"possible secret kept: {w}" for w in data["warnings"]])
    warn([f"redacted: {r}" for r in data["redacted"]])
    emit(args, data, data["id"] if data["created"] else f"{data['id']} (already known: nothing written)")
    return 0


def cmd_capture(args) -> int:
    workspace_root(args.workspace)  # a wrong folder is said before stdin is read
    data = call(args, "memory.capture", {"text": sys.stdin.read(), "source": args.source, "dry_run": args.dry_run})
    lines = []
    for c in data["captured"]:
        if "refused" in c:
            lines.append(f"refused ({c['pattern']}): {c['refused']}")
        elif "id" in c:
            lines.append(f"{c['id']}  {c['type']} ({c['pattern']}, importance {c['importance']:.2f})"
                         f"{'' if c['created'] else ' already known'}: {c['text']}")
        else:
            lines.append(f"would store {c['type']} ({c['pattern']}, importance {c['importance']:.2f}): {c['text']}")
    emit(args, data, "\n".join(lines) or "nothing worth keeping found")
    return 0


def cmd_memories(args) -> int:
    data = call(args, "memory.memories", {"file": args.file, "type": args.type, "state": args.state, "at": args.at,
                                          "all": args.all})
    lines = [line for m in data["memories"] for line in describe(Memory.from_json(m))] or ["no memories"]
    emit(args, data, "\n".join(lines))
    return 0


def _change(args, **arguments) -> int:
    data = call(args, f"memory.{args.command}", {"id": args.id, **arguments})
    emit(args, data, f"{args.command}: {data['id']}")
    return 0


def cmd_edit(args) -> int:
    return _change(args, text=args.text, type=args.type, tag=args.tag, scope=args.scope, priority=args.priority,
                   cite=args.cite, redact=args.redact, match=args.match)


def cmd_forget(args) -> int:
    return _change(args, reason=args.reason, by=args.by, invalidate=args.invalidate)


def cmd_feedback(args) -> int:
    return _change(args, verdict=args.verdict)


def cmd_approve(args) -> int:
    return _change(args)


def cmd_pin(args) -> int:
    return _change(args, off=args.off)


def cmd_reanchor(args) -> int:
    return _change(args, index=args.index)


def cmd_import(args) -> int:
    data = call(args, "memory.import", {"files": args.files, "redact": args.redact})
    lines = [f"imported {len(data['created'])} memories from {', '.join(data['files']) or 'no rules files'} "
             f"({data['unchanged']} already known, {len(data['retired'])} retired, {len(data['refused'])} refused)"]
    if data["created"] and not args.json:
        known = MemoryBook(workspace_root(args.workspace)).load().memories  # the result names them only
        lines += [f"  {i}  {known[i].type}: {known[i].text[:100]}" for i in data["created"]]
    lines += [f"  refused {r}" for r in data["refused"]]
    emit(args, data, "\n".join(lines))
    return 2 if data["refused"] else 0


def cmd_export(args) -> int:
    data = call(args, "memory.export", {"format": args.format, "redact": args.redact})
    text = data["text"]
    if not args.output:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    out = Path(args.output)
    if args.format == "agents" and out.exists():
        text = export.replace_block(out.read_text(encoding="utf-8"), text)
    out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(f"wrote {data['count']} memories to {out}", file=sys.stderr)
    return 0
