"""The retrieval commands of `memory-lsp`: search, context, expand (their arguments and their
text; the work is in `commands_index`), and embed (a long job of the CLI's own)."""

from __future__ import annotations

import sys

from memory_lsp.cli_output import call, emit
from memory_lsp.commands import LocalTarget
from memory_lsp.commands_index import SEARCH_KINDS, SEARCH_MODES


def add_commands(sub, common) -> None:
    p = sub.add_parser("search", parents=[common], help="hybrid search over memories and code")
    p.add_argument("query")
    p.add_argument("--kind", choices=SEARCH_KINDS, default="all")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--file", action="append", default=[], help="context: rank what is near this file higher")
    p.add_argument("--mode", choices=SEARCH_MODES, default="hybrid")
    p.add_argument("--orphaned", action="store_true", help="include memories whose code is gone")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("context", parents=[common], help="what an agent should read first, within a token budget")
    p.add_argument("--file", action="append", default=[])
    p.add_argument("--query")
    p.add_argument("--budget", type=int, default=2000, help="tokens (default 2000)")
    p.set_defaults(func=cmd_context)

    p = sub.add_parser("expand", parents=[common], help="one file's relationships and memories")
    p.add_argument("file", metavar="PATH")
    p.set_defaults(func=cmd_expand)

    p = sub.add_parser("embed", parents=[common], help="compute missing embeddings (resumable; Ctrl-C keeps what is done)")
    p.add_argument("--limit", type=int, help="at most this many items")
    p.set_defaults(func=cmd_embed)


def cmd_search(args) -> int:
    out = call(args, "memory.search", {"query": args.query, "kind": args.kind, "k": args.k, "file": args.file,
                                       "mode": args.mode, "orphaned": args.orphaned})
    lines = [f"note: {out['note']}"] if out["note"] else []
    for r in out["results"]:
        where = f"{r['path']}:{r['lines'][0]}-{r['lines'][1]}" if r["lines"] else (r["path"] or "")
        flag = "" if r["state"] == "valid" else f" [{r['state'].upper()}]"
        first = r["text"].strip().splitlines()[0][:100] if r["text"].strip() else ""
        label = r["type"] if r["kind"] == "memory" else f"{r['type']} {r['symbol']}"
        lines.append(f"{r['score']:.4f}  {r['kind']:6} {label}{flag}  {where}\n        {first}")
    emit(args, out, "\n".join(lines) or "nothing found")
    return 0


def cmd_context(args) -> int:
    out = call(args, "memory.context", {"file": args.file, "query": args.query, "budget": args.budget})
    emit(args, out, out["text"])
    return 0


def cmd_expand(args) -> int:
    out = call(args, "memory.expand", {"file": args.file})
    lines = [f"{out['path']} ({out['lang']}, {out['loc']} lines{', test' if out['is_test'] else ''}): "
             f"{out['dependents']} dependents, {out['commits']} commits"]
    lines += [f"  defines {s['kind']} {s['symbol']} :{s['lines'][0]}" for s in out["symbols"][:30]]
    lines += [f"  -> {e['kind']} {e['path']} ({e['count']})" for e in out["outgoing"]]
    lines += [f"  <- {e['kind']} {e['path']} ({e['count']})" for e in out["incoming"]]
    lines += [f"  memory {m['id']} {m['type']} [{m['state']}]: {m['text'][:100]}" for m in out["memories"]]
    emit(args, out, "\n".join(lines))
    return 0


def cmd_embed(args) -> int:
    def progress(done, total):
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} items embedded")

    with LocalTarget(args.workspace, db=args.db) as target:
        ws = target.workspace()
        try:
            out = ws.embed_pending(limit=args.limit, progress=progress)
        except KeyboardInterrupt:
            out = {"interrupted": True}
    if "error" in out:
        print(f"memory-lsp: cannot embed: {out['error']}", file=sys.stderr)
        return 2
    emit(args, out, f"embedded {out.get('embedded', 0)} items, reused {out.get('reused', 0)} cached vectors "
                    f"in {out.get('seconds', 0)} s" if not out.get("interrupted") else "interrupted: progress kept")
    return 0
