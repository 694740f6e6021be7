"""The `memory-lsp` command line: argparse and text for people over the command layer
(`memory_lsp.commands`), which the language server's workspace/executeCommand shares.

Every command takes --workspace and --json. A user error is one line on stderr and exit
code 2; tracebacks are for bugs only. While a language server owns the index, read commands
are answered by it (see `cli_output.call`).
"""

from __future__ import annotations

import argparse
import sys
import time

from memory_lsp import __version__
from memory_lsp import cli_memory, cli_retrieval
from memory_lsp.cli_output import call, emit
from memory_lsp.errors import UserError
from memory_lsp.paths import workspace_root


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--workspace", "-w", default=".", help="workspace folder (default: .)")
    common.add_argument("--db", help="index database file (default: WORKSPACE/.memory/index.duckdb)")
    common.add_argument("--json", action="store_true", help="machine-readable output")

    parser = argparse.ArgumentParser(prog="memory-lsp", description="Project memory language server.")
    parser.add_argument("--version", action="version", version=f"memory-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", parents=[common], help="index the workspace (incremental)")
    p.add_argument("path", nargs="?", help="workspace folder (same as --workspace)")
    p.add_argument("--workers", type=int, help="parse processes (default 2)")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("impact", parents=[common], help="what depends on a file or symbol")
    p.add_argument("target", help="path or path::Qualified.Name")
    p.add_argument("--depth", type=int, default=3)
    p.set_defaults(func=cmd_impact)

    p = sub.add_parser("doctor", parents=[common], help="health of the index")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("stats", parents=[common], help="files, symbols, edges, central files")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--example", action="store_true", help="also show the impact of the most central file")
    p.set_defaults(func=cmd_stats)

    cli_memory.add_commands(sub, common)
    cli_retrieval.add_commands(sub, common)

    p = sub.add_parser("serve", help="run the language server (stdio by default)")
    p.set_defaults(func=cmd_serve)
    _server_arguments(p)
    return parser


def _server_arguments(p) -> None:
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead")
    p.add_argument("--log-file", help="write the log here (default: stderr)")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def cmd_serve(args) -> int:
    from memory_lsp.server.server import start  # pygls and lsprotocol load only for the server

    return start(args)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except UserError as exc:
        print(f"memory-lsp: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memory-lsp: interrupted", file=sys.stderr)
        return 130


def cmd_index(args) -> int:
    bar = _ProgressBar() if sys.stderr.isatty() and not args.json else None
    data = call(args, "memory.reindex", {"workers": args.workers}, progress=bar)
    if bar:
        bar.done()
    lines = []
    if data["recovered"]:
        lines.append(f"note: {data['recovered']}")
    lines.append(f"indexed {workspace_root(args.path or args.workspace)}: {data['files']} files ({data['parsed']} parsed, "
                 f"{data['unchanged']} unchanged, {data['deleted']} removed) in {data['seconds']:.2f} s")
    if data["skipped"]:
        most = sorted(data["skipped"].items(), key=lambda item: item[1], reverse=True)
        lines.append("skipped: " + ", ".join(f"{n} {r}" for r, n in most))
    lines += _summary_lines(data, central=False)
    emit(args, data, "\n".join(lines))
    return 0


def cmd_impact(args) -> int:
    result = call(args, "memory.impact", {"target": args.target, "depth": args.depth})
    lines = [f"impact of {result['target']} (depth {result['depth']}): "
             f"{len(result['dependents'])} dependents, {len(result['tests'])} tests"]
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
        lines.append(f"note: {result['unresolved']} call sites with the same names were not resolved "
                     "to this target and could hide more dependents")
    emit(args, result, "\n".join(lines))
    return 0


def cmd_doctor(args) -> int:
    d = call(args, "memory.doctor", {})
    lines = [f"workspace: {d['workspace']}", f"database: {d['database']}",
             f"schema: v{d['schema_version']} (expected v{d['expected_schema_version']})",
             "extensions: " + ", ".join(f"{k} {v}" for k, v in d["extensions"].items()),
             f"healthy: {'yes' if d['healthy'] else 'NO'}"]
    if d["recovered"]:
        lines.append(f"recovered: {d['recovered']}")
    lines.append("rows: " + ", ".join(f"{k} {v}" for k, v in d["counts"].items()))
    lines.append("skipped: " + (", ".join(f"{n} {r}" for r, n in d["skipped"].items()) or "none"))
    lines.append("partially indexed: " + (", ".join(f"{n} {r}" for r, n in d["partially_indexed"].items()) or "none"))
    lines.append(f"unresolved: {d['unresolved_imports']} workspace imports, {d['unresolved_calls']} call sites")
    log = d["memory_log"]
    lines.append(f"memory log: {log['events']} events, {log['memories']} memories, {log['duplicates']} duplicate lines"
                 + (", last line torn (a writer was killed or is writing)" if log["torn_tail"] else ""))
    lines += [f"  skipped {s}" for s in log["skipped_lines"]]
    lines += [f"  quarantined fragment: {q}" for q in log["quarantined"]]
    emit(args, d, "\n".join(lines))
    return 0


def cmd_stats(args) -> int:
    summary = call(args, "memory.stats", {"top": args.top, "example": args.example})
    lines = _summary_lines(summary, central=True)
    if "example" in summary:
        top, result = summary["central"][0]["path"], summary["example"]
        lines.append(f"impact example: `memory-lsp impact {top} --depth 2`: "
                     f"{len(result['dependents'])} dependents, {len(result['tests'])} tests")
        for d in result["dependents"][:5]:
            lines.append(f"  [{d['depth']}] {d['path']}  via {' <- '.join(d['edge_kinds'])}")
    emit(args, summary, "\n".join(lines))
    return 0


def _summary_lines(summary: dict, central: bool) -> list[str]:
    lines = ["languages: " + ", ".join(f"{l['lang']} {l['files']} files/{l['symbols']} symbols"
                                       for l in summary["languages"])]
    lines.append("edges: " + ", ".join(f"{k} {n}" for k, n in summary["edges"].items()))
    if central:
        lines.append("most central files (transitive dependents):")
        lines += [f"  {c['path']}  {c['dependents']} dependents, score {c['score']}" for c in summary["central"]]
    return lines


class _ProgressBar:
    def __init__(self):
        self.started = time.perf_counter()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - self.last < 0.1 and done < total:
            return
        self.last = now
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
        sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\r" + " " * 60 + "\r")
        sys.stderr.flush()
