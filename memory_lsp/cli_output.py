"""What every `memory-lsp` command shares: `call` runs it (here, or through the running language
server), `emit` prints it (JSON with --json, else lines for people), `warn` writes warnings on stderr."""

from __future__ import annotations

import json
import sys

from memory_lsp.errors import IndexBusy


def call(args, name: str, arguments: dict, progress=None) -> dict:
    """Run the command `name` for the CLI and return its result (what --json prints).

    Here when the index is free. While another process owns it, a command that reads (the index
    or the memories) is asked of the language server that process runs (found by
    `bridge.find`); with no server, memory reads replay the log (and say so on stderr) and index
    commands fail with the IndexBusy line. Writes always go to the event log from here.
    """
    from memory_lsp import bridge, commands

    command = commands.COMMANDS[name]
    with commands.LocalTarget(getattr(args, "path", None) or args.workspace, db=args.db) as target:
        target.progress = progress
        if command.forwardable and args.db is None and _busy(target, command):
            command.arguments(arguments)  # a mistake is ours to report, not the server's
            server = bridge.find(target.root)
            if server is not None:
                try:
                    result = bridge.ask(target.root, name, arguments, timeout=command.timeout)
                except bridge.Unreachable as exc:  # gone or stuck: as if there were no server
                    print(f"note: {exc}", file=sys.stderr)
                else:
                    print(f"note: answered by the running language server (pid {server['pid']})", file=sys.stderr)
                    return result
        result = commands.run(target, name, arguments)
        warn(target.warnings)
        if target.note:
            print(f"note: {target.note}", file=sys.stderr)
    return result


def _busy(target, command) -> bool:
    """Is the index owned by another process? (Opens it here when it is free.)"""
    try:
        target.workspace() if command.needs_index else target.index()
    except IndexBusy:
        pass
    return target.busy is not None


def emit(args, data: dict, text: str) -> None:
    print(json.dumps(data, indent=2, default=str) if args.json else text)


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"warning: {line}", file=sys.stderr)
