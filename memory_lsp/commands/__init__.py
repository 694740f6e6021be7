"""The workspace commands: one table under the CLI and the language server.

`COMMANDS` maps each LSP command name (`memory.search`, ...) to its `spec.Command`: typed
arguments, function, and how it touches the workspace; the memory commands first, then the code
commands, in the order the docs list them. `run(workspace, name, arguments)` checks the
arguments strictly (a mistake is one clear line), fills in the defaults and returns the
JSON-serialisable dict that `memory-lsp ... --json` prints and `workspace/executeCommand` answers.

A command runs against a `Workspace` (the index is open here) or a `workspace.offline.
OfflineWorkspace` (the log alone: memory commands work, index commands get the IndexBusy line).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Callable

from memory_lsp.commands import code, consolidate, memory
from memory_lsp.commands.spec import Command, Context, Param
from memory_lsp.errors import UserError

COMMANDS: dict[str, Command] = {c.name: c for c in (*memory.COMMANDS, *consolidate.COMMANDS, *code.COMMANDS)}

REINDEX = "memory.reindex"  # the one command that changes the index rather than the memories

__all__ = ["COMMANDS", "Command", "Param", "REINDEX", "run", "writes"]


def writes(name: str) -> bool:
    """Does the command change the workspace (a server runs it on the folder's writer)? Unknown
    names are not writes: they fail on a reader."""
    spec = COMMANDS.get(name)
    return spec is not None and (spec.writes_memories or name == REINDEX)


def run(workspace, name: str, arguments: dict | None = None, *, progress: Callable[[int, int], None] | None = None,
        warn: Callable[[str], None] | None = None) -> dict:
    """Run one command against `workspace`; the result is what `memory-lsp ... --json` prints.
    `progress` hears a full reindex's (done, total); `warn` gets lines for people (default: the log)."""
    found = COMMANDS.get(name)
    if found is None:
        raise UserError(f"unknown command {name!r}; the commands are: {', '.join(COMMANDS)}")
    arguments = found.arguments(arguments)
    from memory_lsp.workspace.offline import OfflineWorkspace  # the log reading loads with its first use

    if found.needs_index and isinstance(workspace, OfflineWorkspace):
        raise workspace.unavailable()
    context = Context(progress=progress) if warn is None else Context(progress=progress, warn=warn)
    return found.function(workspace, SimpleNamespace(**arguments), context)
