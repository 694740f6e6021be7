"""The session: `initialize` (settings, folders, the client's capabilities, the parent-process
watch), `initialized` (workspace/configuration, then each folder opens and indexes with
work-done progress), `shutdown`, `workspace/didChangeConfiguration` and
`workspace/didChangeWorkspaceFolders`. Also each folder's CLI bridge.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as t
from pygls.uris import to_fs_path

from memory_lsp import settings as cfg
from memory_lsp.server import link
from memory_lsp.server.capabilities import ClientCapabilities
from memory_lsp.server.convert import folder_path
from memory_lsp.server.folders import Folder

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer

log = logging.getLogger("memory_lsp.server")

PROGRESS_EVERY = 0.25  # seconds between progress reports
CONFIGURATION = t.ConfigurationParams(items=[t.ConfigurationItem(section="memory")])


def register(server: MemoryServer, settings: cfg.Config) -> None:
    server.feature(t.INITIALIZE)(initialize)
    server.feature(t.INITIALIZED)(initialized)
    server.feature(t.SHUTDOWN)(shutdown)
    server.feature(t.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)
    server.feature(t.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(did_change_workspace_folders)


def initialize(ls: MemoryServer, params: t.InitializeParams) -> None:
    ls.loop = asyncio.get_event_loop()
    ls.client = ClientCapabilities.resolve(params.capabilities)
    apply_settings(ls, params.initialization_options, "initializationOptions")
    folders = [f.uri for f in params.workspace_folders or []]
    if not folders and params.root_uri:
        folders = [params.root_uri]
    if not folders and params.root_path:
        folders = [Path(params.root_path).as_uri()]
    for uri in folders:
        path = to_fs_path(uri) if uri else None
        if path and Path(path).is_dir():
            add_folder(ls, Path(path))
        else:
            log.warning("workspace folder %s is not a folder: ignored", uri)
    if params.process_id and ls.standalone:  # an owner's session ends with its proxy, which watches the editor
        link.exit_when_gone(params.process_id, "the client")


async def initialized(ls: MemoryServer, params: t.InitializedParams) -> None:
    if ls.client.workspace_configuration:
        try:
            config = await ls.workspace_configuration_async(CONFIGURATION)
            if config and config[0] is not None:
                apply_settings(ls, config[0], "workspace/configuration")
        except Exception:
            log.warning("workspace/configuration failed; keeping initializationOptions", exc_info=True)
    if not ls.folders:
        ls.tell(t.MessageType.Info, "memory-lsp: no workspace folder: open a folder to get its memory")
    for number, folder in enumerate(list(ls.folders.values())):
        token = None
        if ls.client.work_done_progress:
            token = f"memory-lsp-index-{number}-{os.getpid()}-{folder.path.name}"
            try:
                await ls.work_done_progress.create_async(token)
                ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(
                    title=f"Indexing {folder.path.name}", message="opening the index", percentage=0))
            except Exception:
                log.warning("the client refused a progress token", exc_info=True)
                token = None
        start_folder(ls, folder, token)


def shutdown(ls: MemoryServer, params) -> None:
    # answered at once: the folders close on a thread of their own (an index run stops at its
    # next batch); `exit` waits for them a little (server.start, owner.py)
    ls.close_within(0)


async def did_change_configuration(ls: MemoryServer, params: t.DidChangeConfigurationParams) -> None:
    raw = params.settings.get("memory") if isinstance(params.settings, dict) else None
    if raw is None and ls.client.workspace_configuration:
        config = await ls.workspace_configuration_async(CONFIGURATION)
        raw = config[0] if config else None
    if raw is not None:
        apply_settings(ls, raw, "configuration")
        ls.changed(None, None)


def did_change_workspace_folders(ls: MemoryServer, params: t.DidChangeWorkspaceFoldersParams) -> None:
    for f in params.event.removed:
        folder = ls.folders.pop(folder_path(f.uri), None)
        if folder is not None:
            ls.pool.release(folder, ls)
    for f in params.event.added:
        path = to_fs_path(f.uri)
        if path and Path(path).is_dir():
            add_folder(ls, Path(path), start=True)


# -- settings and folders --------------------------------------------------------------------------------
def apply_settings(ls: MemoryServer, raw, source: str) -> None:
    ls.config, problems = cfg.parse(raw, ls.config)
    for folder in ls.folders.values():
        folder.config = ls.config
    for p in problems:
        log.warning("%s: %s", source, p)
        ls.tell(t.MessageType.Warning, f"memory-lsp settings ({source}): {p}")


def add_folder(ls: MemoryServer, path: Path, start: bool = False) -> Folder:
    """The session's folder at `path`: shared with the owner's other sessions when one of them
    holds it already (then already started), else new (started now if `start`, else by
    `initialized`)."""
    path = path.resolve()
    if path not in ls.folders:
        folder, created = ls.pool.acquire(path, ls.config, ls)
        ls.folders[path] = folder
        if created and start:
            start_folder(ls, folder)
    return ls.folders[path]


def start_folder(ls: MemoryServer, folder: Folder, token=None) -> None:
    """Open and index the folder on its writer, reporting progress under `token` (if any)."""
    last = [0.0]

    def progress(message: str, percent: int | None) -> None:
        now = time.monotonic()
        if token is not None and now - last[0] >= PROGRESS_EVERY:
            last[0] = now
            ls.soon(ls.work_done_progress.report, token, t.WorkDoneProgressReport(message=message, percentage=percent))
    future = None if folder.started else folder.start(progress)
    if future is None:  # another window opened it: this one's progress ends with that first index
        if token is not None:
            def shared() -> None:
                folder.ready.wait(timeout=3600)
                ls.soon(ls.work_done_progress.end, token, t.WorkDoneProgressEnd(message="done"))
            threading.Thread(target=shared, name="memory-shared-progress", daemon=True).start()
        return
    if ls.standalone:  # in the owner the CLI asks the owner itself
        start_bridge(folder)

    def finished(_fut) -> None:
        if token is not None:
            message = f"failed: {folder.error}" if folder.error else "done"
            ls.soon(ls.work_done_progress.end, token, t.WorkDoneProgressEnd(message=message))
        if folder.error:
            ls.soon(ls.tell, t.MessageType.Error, f"memory-lsp: {folder.path}: {folder.error}")
    future.add_done_callback(finished)


def start_bridge(folder: Folder) -> None:
    """Lets the CLI ask this server while it owns the index (DuckDB allows one process)."""
    try:
        from memory_lsp import bridge

        folder.bridge = bridge.Bridge.start(folder.path, lambda name, args: folder.command(name, args).result())
    except Exception:
        log.exception("the CLI bridge for %s did not start", folder.path)
