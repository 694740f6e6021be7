"""The `memory-lsp` command line: a thin front door over the workspace service.

Every command takes --workspace and --json. A user error is one line on stderr and exit
code 2; tracebacks are for bugs only.
"""

from __future__ import annotations

import argparse
import sys
import time

from memory_lsp import __version__
from memory_lsp import cli_memory, cli_retrieval
from memory_lsp.cli_output import emit
from memory_lsp.errors import UserError


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
    cli_retrieval.add_commands(sub, common, _open)
    return parser


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


def _open(args):
    from memory_lsp.service import Workspace

    root = getattr(args, "path", None) or args.workspace
    return Workspace.open(root, db=args.db)


def cmd_index(args) -> int:
    ws = _open(args)
    try:
        bar = _ProgressBar() if sys.stderr.isatty() and not args.json else None
        report = ws.index(progress=bar, workers=args.workers)
        if bar:
            bar.done()
        summary = ws.summary()
        data = {"files": report.files, "parsed": report.parsed, "unchanged": report.unchanged,
                "deleted": report.deleted, "skipped": dict(report.skipped),
                "seconds": round(report.seconds, 3), "recovered": report.recovered, **summary}
        lines = []
        if report.recovered:
            lines.append(f"note: {report.recovered}")
        lines.append(f"indexed {ws.root}: {report.files} files ({report.parsed} parsed, "
                     f"{report.unchanged} unchanged, {report.deleted} removed) in {report.seconds:.2f} s")
        if report.skipped:
            lines.append("skipped: " + ", ".join(f"{n} {r}" for r, n in report.skipped.most_common()))
        lines += _summary_lines(summary, central=False)
        emit(args, data, "\n".join(lines))
    finally:
        ws.close()
    return 0


def cmd_impact(args) -> int:
    ws = _open(args)
    try:
        result = ws.impact(args.target, args.depth)
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
    finally:
        ws.close()
    return 0


def cmd_doctor(args) -> int:
    ws = _open(args)
    try:
        d = ws.doctor()
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
    finally:
        ws.close()
    return 0


def cmd_stats(args) -> int:
    ws = _open(args)
    try:
        summary = ws.summary(args.top)
        lines = _summary_lines(summary, central=True)
        if args.example and summary["central"]:
            top = summary["central"][0]["path"]
            result = ws.impact(top, 2)
            summary["example"] = result
            lines.append(f"impact example: `memory-lsp impact {top} --depth 2`: "
                         f"{len(result['dependents'])} dependents, {len(result['tests'])} tests")
            for d in result["dependents"][:5]:
                lines.append(f"  [{d['depth']}] {d['path']}  via {' <- '.join(d['edge_kinds'])}")
        emit(args, summary, "\n".join(lines))
    finally:
        ws.close()
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
