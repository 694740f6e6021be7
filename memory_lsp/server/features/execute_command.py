"""`workspace/executeCommand` for every `memory.*` command of `commands.COMMANDS`: the same
arguments and results as `memory-lsp ... --json`. Its one argument is a JSON object of named
arguments, plus `workspace` (a folder path or URI) to pick a folder other than the first.

The folder schedules it (folders.py): a command that writes runs on the folder's writer, a read on
the reader pool. `$/cancelRequest` reaches the command's task (protocol.py), which cancels the
queued job.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from memory_lsp.errors import UserError
from memory_lsp.server.convert import folder_path
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.folders import Folder
    from memory_lsp.server.server import MemoryServer

START_WAIT = 10.0  # seconds a command waits for its folder to start opening (initialize -> initialized)


def register(server: MemoryServer, settings: Config) -> None:
    from memory_lsp.commands import COMMANDS

    for name in COMMANDS:
        server.command(name)(_handler(name))


def _handler(name: str):
    async def workspace_execute_command(ls, *args):  # no annotations: pygls structures arguments by them
        return await execute_command(ls, name, args)
    workspace_execute_command.__name__ = name  # errors and timings name the command
    return guarded(workspace_execute_command)


async def execute_command(ls: MemoryServer, name: str, args: tuple):
    if len(args) > 1 or (args and not isinstance(args[0], dict)):
        raise UserError(f"{name} takes one argument, a JSON object of named arguments (got {len(args)} arguments)")
    arguments = dict(args[0]) if args else {}
    folder = folder_for(ls, arguments.pop("workspace", None))
    request_id = ls.protocol.msg_id
    if request_id is not None:  # so that $/cancelRequest reaches this task (see protocol.py)
        ls.protocol.command_tasks[request_id] = asyncio.current_task()
    try:
        for _ in range(int(START_WAIT / 0.05)):  # between initialize and initialized the folder is not opening yet
            if folder.started:
                break
            await asyncio.sleep(0.05)
        return await asyncio.wrap_future(folder.command(name, arguments))
    finally:
        ls.protocol.command_tasks.pop(request_id, None)


def folder_for(ls: MemoryServer, workspace) -> Folder:
    """The folder a command runs in: the first, or the one `workspace` names."""
    if not ls.folders:
        raise UserError("no workspace folder is open")
    if workspace is None:
        return next(iter(ls.folders.values()))
    if not isinstance(workspace, str):
        raise UserError("argument 'workspace' must be a folder path or file URI")
    path = folder_path(workspace)
    if path not in ls.folders:
        raise UserError(f"{workspace} is not one of the open workspace folders: "
                        + ", ".join(str(p) for p in ls.folders))
    return ls.folders[path]
