"""The CLI's output: a command's result printed for people, or as JSON with --json.

One `render_<command>(args, data) -> exit code` per command, listed in `RENDERERS` by the CLI's
name for it; `data` is the command's result (what --json prints). No domain logic here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from memory_lsp.cli.text import printable
from memory_lsp.memory.model import Memory
from memory_lsp.paths import workspace_root


def emit(args, data: dict, text: str) -> None:
    print(json.dumps(data, indent=2, default=str) if args.json else printable(text))


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"warning: {line}", file=sys.stderr)


# -- memories ----------------------------------------------------------------------------------
def describe(m: Memory) -> list[str]:
    from memory_lsp.memory import citations as cites  # the code reading it needs: only where a memory is shown

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
             "    " + m.text.replace("\n", "\n    ")]  # control characters: cli.text.printable
    for c in m.citations:
        moved = f" (was {c.path}{'::' + c.symbol if c.symbol else ''})" if cites.moved(c) else ""
        lines.append(f"    cites {c.label()}  {c.state}{moved}")
    if m.scope != "global":
        lines.append(f"    scope {m.scope}")
    if m.tags:
        lines.append(f"    tags {', '.join(m.tags)}")
    return lines


def render_teach(args, data) -> int:
    warn([f"possible secret kept: {w}" for w in data["warnings"]])
    warn([f"redacted: {r}" for r in data["redacted"]])
    for other in data.get("similar", []):  # stored anyway: a correction often differs by one character
        print(f"note: similar to memory {other} (forget one of them if they say the same)", file=sys.stderr)
    emit(args, data, data["id"] if data["created"] else f"{data['id']} (already known: nothing written)")
    return 0


def render_capture(args, data) -> int:
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


def render_memories(args, data) -> int:
    lines = [line for m in data["memories"] for line in describe(Memory.from_json(m))] or ["no memories"]
    emit(args, data, "\n".join(lines))
    return 0


def render_change(args, data) -> int:
    """edit, forget, feedback, approve, pin, reanchor: `NAME: ID`."""
    emit(args, data, f"{args.command}: {data['id']}")
    return 0


def render_import(args, data) -> int:
    lines = [f"imported {len(data['created'])} memories from {', '.join(data['files']) or 'no rules files'} "
             f"({data['unchanged']} already known, {len(data['retired'])} retired, {len(data['refused'])} refused)"]
    if data["created"] and not args.json:
        from memory_lsp.memory.book import MemoryBook

        known = MemoryBook(workspace_root(args.workspace)).load().memories  # the result names them only
        lines += [f"  {i}  {known[i].type}: {known[i].text[:100]}" for i in data["created"]]
    lines += [f"  refused {r}" for r in data["refused"]]
    lines += [f"  possible duplicate: {d['id']} ({d['where']}) of {', '.join(d['similar'])}"
              f" (see `memory-lsp consolidate`)" for d in data.get("duplicates", [])]
    emit(args, data, "\n".join(lines))
    return 2 if data["refused"] else 0


def render_consolidate(args, data) -> int:
    lines = [f"applied {', '.join(data['applied'])}"] if data["applied"] else []
    for p in data["proposals"]:
        verb = "merge into" if p["kind"] == "merge" else "superseded by"
        lines.append(f"{p['id']}  {p['kind']} ({p['why']}, {data['similarity']} {p['score']:.2f}): "
                     f"{', '.join(p['retire'])} {verb} {p['keep']}")
        lines += [f"    {i}: {t[:100]}" for i, t in p["texts"].items()]
    if data["proposals"]:
        lines.append("accept with: memory-lsp consolidate --apply ID [--apply ID]...")
    emit(args, data, "\n".join(lines) or "nothing to consolidate")
    return 0


def render_export(args, data) -> int:
    text = data["text"]
    if not args.output:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    out = Path(args.output)
    if args.format == "agents" and out.exists():
        from memory_lsp.memory import export

        text = export.replace_block(out.read_text(encoding="utf-8"), text)
    out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    print(f"wrote {data['count']} memories to {out}", file=sys.stderr)
    return 0


# -- code --------------------------------------------------------------------------------------
def render_search(args, out) -> int:
    lines = [f"note: {out['note']}"] if out["note"] else []
    for r in out["results"]:
        where = f"{r['path']}:{r['lines'][0]}-{r['lines'][1]}" if r["lines"] else (r["path"] or "")
        flag = "" if r["state"] == "valid" else f" [{r['state'].upper()}]"
        first = r["text"].strip().splitlines()[0][:100] if r["text"].strip() else ""
        label = r["type"] if r["kind"] == "memory" else f"{r['type']} {r['symbol']}"
        lines.append(f"{r['score']:.4f}  {r['kind']:6} {label}{flag}  {where}\n        {first}")
    emit(args, out, "\n".join(lines) or "nothing found")
    return 0


def render_context(args, out) -> int:
    emit(args, out, out["text"])
    return 0


def _condition(edge: dict) -> str:
    return f", conditional: {edge['strategy']}" if edge.get("conditional") else ""


def render_expand(args, out) -> int:
    lines = [f"{out['path']} ({out['lang']}, {out['loc']} lines{', test' if out['is_test'] else ''}): "
             f"{out['dependents']} dependents, {out['commits']} commits"]
    lines += [f"  defines {s['kind']} {s['symbol']} :{s['lines'][0]}" for s in out["symbols"][:30]]
    lines += [f"  -> {e['kind']} {e['path']} ({e['count']}{_condition(e)})" for e in out["outgoing"]]
    lines += [f"  <- {e['kind']} {e['path']} ({e['count']}{_condition(e)})" for e in out["incoming"]]
    lines += [f"  memory {m['id']} {m['type']} [{m['state']}]: {m['text'][:100]}" for m in out["memories"]]
    emit(args, out, "\n".join(lines))
    return 0


def render_impact(args, result) -> int:
    uncalled = f", used without a call by {result['reads_total']} more (below)" if result.get("reads_total") else ""
    lines = [f"impact of {result['target']} (depth {result['depth']}, min confidence "
             f"{result.get('min_confidence', 0)}): {len(result['dependents'])} dependents, {len(result['tests'])} tests"
             + uncalled]
    for d in result["dependents"][:50]:
        name = f"{d['path']}::{d['symbol']}" if d["symbol"] else d["path"]
        chain = " <- ".join(f"{k}" for k in d["edge_kinds"])
        lines.append(f"  [{d['depth']}] {name}  via {chain}  (score {d['score']}, confidence {d['confidence']})")
    if len(result["dependents"]) > 50:
        lines.append(f"  ... {len(result['dependents']) - 50} more (--json for all)")
    if result["tests"]:
        lines.append("tests to run:")
        lines += [f"  {t}" for t in result["tests"]]
    if result["unresolved"]:
        lines.append(f"note: {result['unresolved']} unresolved call sites are named like a symbol of this "
                     "answer and could hide more dependents")
    if result.get("reads_total"):
        leaf = result["target"].rsplit(".", 1)[-1]
        n = result["reads_total"]
        functions = f"{n} function{'s' if n != 1 else ''}"
        if result.get("reads_kind") == "value":
            lines.append(f"used without a call (handed on, checked against, annotated) by {functions} where it is "
                         "imported (the graph has no edge for these):")
        else:
            lines.append(f"read as `.{leaf}` by {functions} (found by name, untyped: "
                         "the graph has no edge for a read):")
        for r in result["reads"]:
            where = f"{r['path']}::{r['symbol']}" if r["symbol"] else f"{r['path']} (module level)"
            lines.append(f"  {where}  (line{'s' if len(r['lines']) > 1 else ''} {', '.join(map(str, r['lines']))})")
        if result["reads_total"] > len(result["reads"]):
            lines.append(f"  ... {result['reads_total'] - len(result['reads'])} more")
        if result.get("reads_also_defined_in"):
            lines.append(f"  (`.{leaf}` is a method of other classes too, whose readers may be among these: "
                         f"{', '.join(result['reads_also_defined_in'])})")
    emit(args, result, "\n".join(lines))
    return 0


def render_stats(args, summary) -> int:
    lines = _summary_lines(summary, central=True)
    if "example" in summary:
        top, result = summary["central"][0]["path"], summary["example"]
        lines.append(f"impact example: `memory-lsp impact {top} --depth 2`: "
                     f"{len(result['dependents'])} dependents, {len(result['tests'])} tests")
        for d in result["dependents"][:5]:
            lines.append(f"  [{d['depth']}] {d['path']}  via {' <- '.join(d['edge_kinds'])}")
    emit(args, summary, "\n".join(lines))
    return 0


def render_doctor(args, d) -> int:
    lines = [f"workspace: {d['workspace']}", f"database: {d['database']}",
             f"schema: v{d['schema_version']} (expected v{d['expected_schema_version']})",
             "extensions: " + ", ".join(f"{k} {v}" for k, v in d["extensions"].items()),
             "embedding model: " + (d["embedding_model"]["model"] if d["embedding_model"]["found"]
                                    else f"NOT FOUND ({d['embedding_model']['error']})"),
             f"healthy: {'yes' if d['healthy'] else 'NO'}"]
    if d["recovered"]:
        lines.append(f"recovered: {d['recovered']}")
    lines.append("rows: " + ", ".join(f"{k} {v}" for k, v in d["counts"].items()))
    lines.append("skipped: " + (", ".join(f"{n} {r}" for r, n in d["skipped"].items()) or "none"))
    for reason, named in d.get("skipped_files", {}).items():
        for f in named["files"]:
            why = f"{reason}, {f['detail']}" if f["detail"] else reason
            lines.append(f"  {f['path']}  ({why}" + (f", {f['size']:,} bytes)" if f["size"] else ")"))
        if named["more"]:
            lines.append(f"  ... and {named['more']} more {reason}")
    lines.append("partially indexed: " + (", ".join(f"{n} {r}" for r, n in d["partially_indexed"].items()) or "none"))
    for note, named in d.get("partially_indexed_files", {}).items():
        lines += [f"  {path}  ({note})" for path in named["files"]]
        if named["more"]:
            lines.append(f"  ... and {named['more']} more {note}")
    lines.append(f"unresolved: {d['unresolved_imports']} workspace imports, {d['unresolved_calls']} call sites")
    found = d["search_index"]
    lines.append(f"search index: {found['documents']} documents, " + (
        "up to date" if found["up_to_date"] else
        f"brought up to date at the next search ({found['files_behind']} files and any changed memories)"))
    log = d["memory_log"]
    lines.append(f"memory log: {log['events']} events, {log['memories']} memories, {log['duplicates']} duplicate lines"
                 + (", last line torn (a writer was killed or is writing)" if log["torn_tail"] else ""))
    lines += [f"  skipped {s}" for s in log["skipped_lines"]]
    lines += [f"  quarantined fragment: {q}" for q in log["quarantined"]]
    emit(args, d, "\n".join(lines))
    return 0


def render_index(args, data) -> int:
    lines = []
    if data["recovered"]:
        lines.append(f"note: {data['recovered']}")
    lines.append(f"indexed {workspace_root(args.workspace)}: {data['files']} files ({data['parsed']} parsed, "
                 f"{data['unchanged']} unchanged, {data['deleted']} removed) in {data['seconds']:.2f} s")
    if data["skipped"]:
        most = sorted(data["skipped"].items(), key=lambda item: item[1], reverse=True)
        lines.append("skipped: " + ", ".join(f"{n} {r}" for r, n in most))
    lines += _summary_lines(data, central=False)
    emit(args, data, "\n".join(lines))
    return 0


def _summary_lines(summary: dict, central: bool) -> list[str]:
    lines = ["languages: " + ", ".join(f"{l['lang']} {l['files']} files/{l['symbols']} symbols"
                                       for l in summary["languages"])]
    lines.append("edges: " + ", ".join(f"{k} {n}" for k, n in summary["edges"].items()))
    if central:
        lines.append("most central files (transitive dependents):")
        lines += [f"  {c['path']}  {c['dependents']} dependents, score {c['score']}" for c in summary["central"]]
    return lines


RENDERERS = {
    "teach": render_teach, "capture": render_capture, "memories": render_memories, "edit": render_change,
    "forget": render_change, "feedback": render_change, "approve": render_change, "pin": render_change,
    "reanchor": render_change, "import": render_import, "export": render_export, "search": render_search,
    "consolidate": render_consolidate,
    "context": render_context, "expand": render_expand, "impact": render_impact, "stats": render_stats,
    "doctor": render_doctor, "index": render_index,
}
