"""The `memory-lsp` command line: the parser is generated from the command table
(`commands.COMMANDS`, the same one the language server's workspace/executeCommand uses), each
command's text is in `render`, and `forward.call` runs it here or asks a running server.

Every command takes --workspace and --json. A user error is one line on stderr and exit
code 2; tracebacks are for bugs only. `serve` starts the language server; `embed` is a long job
of the CLI's own.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from memory_lsp import __version__
from memory_lsp.cli import forward, render, text
from memory_lsp.commands import COMMANDS
from memory_lsp.commands.spec import add_parser, cli_arguments
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
    order = {name: i for i, name in enumerate(_FIRST)}
    listed = sorted(COMMANDS.values(), key=lambda c: order.get(c.cli_name, len(order)))  # else table order
    for command in listed:
        p = add_parser(sub, command, [common])
        _CLI_ONLY.get(command.cli_name, lambda p: None)(p)

    p = sub.add_parser("embed", parents=[common], help="compute missing embeddings (resumable; Ctrl-C keeps what is done)")
    p.add_argument("--limit", type=int, help="at most this many items")
    p.set_defaults(func=cmd_embed)

    p = sub.add_parser("serve", help="run the language server (stdio by default)")
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead")
    p.add_argument("--log-file", help="write the log here (default: stderr)")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    p.add_argument("--standalone", action="store_true",
                   help="hold the index in this process instead of sharing the owner with other windows and the CLI")
    p.set_defaults(func=cmd_serve)
    return parser


def _index_arguments(p) -> None:
    p.add_argument("path", nargs="?", help="workspace folder (same as --workspace)")


def _export_arguments(p) -> None:
    p.add_argument("--output", "-o", help="file to write (agents: the block inside it is replaced)")


# `memory-lsp --help` has always listed the graph commands first
_FIRST = ("index", "impact", "doctor", "stats")
# arguments about the CLI's own output or spelling, not the command's
_CLI_ONLY = {"index": _index_arguments, "export": _export_arguments}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        text.check_arguments(argv)
    except UserError as exc:
        print(f"memory-lsp: {exc}", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "func"):
            return args.func(args) or 0
        return run_command(args)
    except UserError as exc:
        print(f"memory-lsp: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memory-lsp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `memory-lsp memories | head`: the reader left, as a pipe's writer would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 141


def run_command(args) -> int:
    """A command of the table: its arguments from the parsed CLI, its result rendered."""
    if getattr(args, "path", None):
        args.workspace = args.path
    workspace_root(args.workspace)  # a wrong folder is said before stdin is read
    command = args.spec
    arguments = cli_arguments(command, args, stdin=text.read_stdin)
    bar = _ProgressBar() if command.name == "memory.reindex" and sys.stderr.isatty() and not args.json else None
    data = forward.call(args.workspace, args.db, command.name, arguments, progress=bar)
    if bar:
        bar.done()
    return render.RENDERERS[command.cli_name](args, data)


def cmd_serve(args) -> int:
    if args.standalone or args.tcp:
        from memory_lsp.server.server import start  # pygls and lsprotocol load only for the server

        return start(args)
    from memory_lsp.server import proxy  # a relay to the owner: neither pygls nor DuckDB

    return proxy.start(args)


def cmd_embed(args) -> int:
    from memory_lsp.workspace.host import Workspace  # duckdb and numpy load only here

    def progress(done, total):
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} items embedded")

    ws = Workspace.open(workspace_root(args.workspace), db=args.db)
    try:
        out = ws.embed_pending(limit=args.limit, progress=progress)
    except KeyboardInterrupt:
        out = {"interrupted": True}
    finally:
        ws.close()
    if "error" in out:
        print(f"memory-lsp: cannot embed: {out['error']}", file=sys.stderr)
        return 2
    render.emit(args, out, f"embedded {out.get('embedded', 0)} items, reused {out.get('reused', 0)} cached vectors "
                           f"in {out.get('seconds', 0)} s" if not out.get("interrupted") else "interrupted: progress kept")
    return 0


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
