"""`memory-lsp serve`: the language server editors and agents talk to.

The event loop only parses messages and routes them. Reads (hover, lenses, diagnostics,
symbols) run on a small reader pool over snapshots; everything that writes runs on the folder's
writer thread (see roots.py). Every request gets exactly one answer: a result, an empty result,
or an LSP error with one line of text; tracebacks go to the log only.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types as t
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from memory_lsp import __version__
from memory_lsp.commands import COMMANDS
from memory_lsp.errors import UserError
from memory_lsp.server import settings as cfg
from memory_lsp.server import views
from memory_lsp.server.protocol import MemoryProtocol
from memory_lsp.server.roots import Root

log = logging.getLogger("memory_lsp.server")

PROGRESS_EVERY = 0.25  # seconds between progress reports
REFRESH_DELAY = 0.15  # coalesce bursts of changes into one refresh request


class MemoryServer(LanguageServer):
    def __init__(self):
        super().__init__("memory-lsp", __version__, protocol_cls=MemoryProtocol,
                         text_document_sync_kind=t.TextDocumentSyncKind.Incremental)
        self.settings = cfg.ServerSettings()
        self.roots: dict[Path, Root] = {}
        self.reader = ThreadPoolExecutor(4, thread_name_prefix="memory-reader")
        self.loop: asyncio.AbstractEventLoop | None = None
        self._init_options = None
        self._debounce: dict[str, asyncio.TimerHandle] = {}
        self._refresh_pending = False
        self._bridges = {}  # folder -> its CLI bridge

    # -- where a document belongs -----------------------------------------------------------------
    def locate(self, uri: str) -> tuple[Root, str] | tuple[None, None]:
        """The folder holding this document and its workspace-relative path (None, None if outside)."""
        if not uri.startswith("file:"):
            return None, None
        full = to_fs_path(uri)
        if full is None:
            return None, None
        best = None
        for root in self.roots.values():
            rel = root.relpath(full)
            if rel is not None and (best is None or len(str(root.path)) > len(str(best[0].path))):
                best = (root, rel)
        return best or (None, None)

    def supports(self, *path: str) -> bool:
        node = self.client_capabilities
        for name in path:
            node = getattr(node, name, None)
            if node is None:
                return False
        return bool(node)

    # -- threads to the loop ------------------------------------------------------------------------
    def soon(self, fn, *args) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    async def read(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.reader, functools.partial(fn, *args))

    # -- folders ---------------------------------------------------------------------------------------
    def add_root(self, path: Path) -> Root:
        path = path.resolve()
        if path in self.roots:
            return self.roots[path]
        root = Root(path, self.settings, on_change=self.changed, on_progress=None)
        self.roots[path] = root
        return root

    def start_root(self, root: Root, token=None) -> None:
        last = [0.0]

        def progress(message: str, percent: int | None) -> None:
            now = time.monotonic()
            if token is not None and now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                self.soon(self.work_done_progress.report, token,
                          t.WorkDoneProgressReport(message=message, percentage=percent))
        root.on_progress = progress
        future = root.start()
        self._start_bridge(root)

        def finished(_fut) -> None:
            if token is not None:
                message = f"failed: {root.error}" if root.error else "done"
                self.soon(self.work_done_progress.end, token, t.WorkDoneProgressEnd(message=message))
            if root.error:
                self.soon(self.tell, t.MessageType.Error, f"memory-lsp: {root.path}: {root.error}")
        future.add_done_callback(finished)

    def _start_bridge(self, root: Root) -> None:
        """Lets the CLI ask this server while it owns the index (DuckDB allows one process)."""
        try:
            from memory_lsp import bridge

            self._bridges[root.path] = bridge.Bridge.start(root.path,
                                                           lambda name, args: root.run_command(name, args).result())
        except Exception:
            log.exception("the CLI bridge for %s did not start", root.path)

    def close_all(self) -> None:
        for b in self._bridges.values():
            b.close()
        self._bridges = {}
        self.reader.shutdown(wait=True, cancel_futures=True)  # no read may be using a cursor below
        self.reader = ThreadPoolExecutor(4, thread_name_prefix="memory-reader")
        for root in self.roots.values():
            root.close()
        self.roots = {}

    def remove_root(self, path: Path) -> None:
        # its bridge first: left open, it would answer the CLI from the closed folder, and the
        # folder added again could not start its own
        b = self._bridges.pop(path, None)
        if b is not None:
            b.close()
        root = self.roots.pop(path, None)
        if root is not None:
            root.close()

    # -- after changes: tell the editor ------------------------------------------------------------------
    def changed(self, root: Root, paths: set[str] | None) -> None:
        """Called from any thread when a folder's index or memories changed."""
        self.soon(self._schedule_refresh)

    def _schedule_refresh(self) -> None:
        if not self._refresh_pending:
            self._refresh_pending = True
            self.loop.call_later(REFRESH_DELAY, lambda: asyncio.ensure_future(self._refresh()))

    async def _refresh(self) -> None:
        self._refresh_pending = False
        if self.supports("workspace", "code_lens", "refresh_support"):
            self.workspace_code_lens_refresh(None)
        if self.supports("workspace", "diagnostics", "refresh_support") and self.pull_diagnostics():
            self.workspace_diagnostic_refresh(None)
        if not self.pull_diagnostics():
            for uri in list(self.workspace.text_documents):
                await self.publish(uri)

    def pull_diagnostics(self) -> bool:
        return self.supports("text_document", "diagnostic")

    async def publish(self, uri: str) -> None:
        root, path = self.locate(uri)
        if root is None:
            return
        doc = self.workspace.text_documents.get(uri)
        snap = root.snapshot()
        if snap is None:
            return
        items = await self.read(views.diagnostics, snap, path, doc.source if doc else None, self.settings)
        items = self.client_units(items, doc.source if doc else None)
        self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=items,
                                                                          version=doc.version if doc else None))

    def client_units(self, items: list[t.Diagnostic], text: str | None) -> list[t.Diagnostic]:
        """Views count characters in code points; the client counts in the encoding negotiated at
        initialize (UTF-16 unless it offered another). Only lines beyond ASCII differ."""
        if not text or text.isascii():
            return items
        lines, codec = views.lsp_lines(text), self.workspace.position_codec

        def convert(rng: t.Range) -> t.Range:
            return t.Range(*(t.Position(p.line, codec.client_num_units(lines[p.line][:p.character]))
                             if p.character and p.line < len(lines) else p for p in (rng.start, rng.end)))
        for d in items:
            d.range = convert(d.range)
            for info in d.related_information or ():
                info.location.range = convert(info.location.range)  # the cited lines, in this file
        return items

    def tell(self, kind: t.MessageType, message: str) -> None:
        self.window_show_message(t.ShowMessageParams(type=kind, message=message))

    def apply_settings(self, raw, source: str) -> None:
        self.settings, problems = cfg.parse(raw, self.settings)
        for root in self.roots.values():
            root.settings = self.settings
        for p in problems:
            log.warning("%s: %s", source, p)
            self.tell(t.MessageType.Warning, f"memory-lsp settings ({source}): {p}")

    # -- buffers ---------------------------------------------------------------------------------------------
    def reindex_buffer(self, uri: str) -> None:
        handle = self._debounce.pop(uri, None)
        if handle:  # a save comes before the debounce: do not index the same text again later
            handle.cancel()
        root, path = self.locate(uri)
        doc = self.workspace.text_documents.get(uri)
        if root is not None and doc is not None:
            root.reindex({path: doc.source.encode("utf-8", "surrogatepass")})

    def debounce_reindex(self, uri: str) -> None:
        handle = self._debounce.pop(uri, None)
        if handle:
            handle.cancel()
        self._debounce[uri] = self.loop.call_later(self.settings.indexing.debounce_ms / 1000,
                                                   self.reindex_buffer, uri)


server = MemoryServer()


TIMINGS: dict[str, deque] = {}  # handler name -> the last durations in ms, measured inside the server


def guarded(fn):
    """One answer per request, whatever happens: a user error becomes InvalidParams with its line,
    a bug becomes InternalError without the traceback (which goes to the log). Each handler's
    time is recorded for `memory/timings`."""
    timings = TIMINGS.setdefault(fn.__name__, deque(maxlen=10_000))

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return await fn(*args, **kwargs)
        except (JsonRpcException, asyncio.CancelledError):
            raise
        except UserError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        except Exception as exc:
            log.exception("%s failed", fn.__name__)
            raise JsonRpcInternalError(f"internal error in {fn.__name__}: {type(exc).__name__} "
                                       "(details in the server log)") from None
        finally:
            timings.append((time.perf_counter() - started) * 1000)
    return wrapper


@server.feature("memory/timings")
def timings(ls: MemoryServer, params) -> dict:
    """Durations (ms) of recent requests per handler, for benchmarks; `{"reset": true}` clears them."""
    out = {name: list(values) for name, values in TIMINGS.items()}
    if getattr(params, "reset", None) or (isinstance(params, dict) and params.get("reset")):
        for values in TIMINGS.values():
            values.clear()
    return out


# -- lifecycle -----------------------------------------------------------------------------------------------------
@server.feature(t.INITIALIZE)
def initialize(ls: MemoryServer, params: t.InitializeParams) -> None:
    ls.loop = asyncio.get_event_loop()
    ls._init_options = params.initialization_options
    ls.apply_settings(params.initialization_options, "initializationOptions")
    folders = [f.uri for f in params.workspace_folders or []]
    if not folders and params.root_uri:
        folders = [params.root_uri]
    if not folders and params.root_path:
        folders = [Path(params.root_path).as_uri()]
    for uri in folders:
        path = to_fs_path(uri) if uri else None
        if path and Path(path).is_dir():
            ls.add_root(Path(path))
        else:
            log.warning("workspace folder %s is not a folder: ignored", uri)
    if params.process_id:
        _watch_parent(ls, params.process_id)


@server.feature(t.INITIALIZED)
async def initialized(ls: MemoryServer, params: t.InitializedParams) -> None:
    if ls.supports("workspace", "configuration"):
        try:
            config = await ls.workspace_configuration_async(t.ConfigurationParams(
                items=[t.ConfigurationItem(section="memory")]))
            if config and config[0] is not None:
                ls.apply_settings(config[0], "workspace/configuration")
        except Exception:
            log.warning("workspace/configuration failed; keeping initializationOptions", exc_info=True)
    if not ls.roots:
        ls.tell(t.MessageType.Info, "memory-lsp: no workspace folder: open a folder to get its memory")
    for root in list(ls.roots.values()):
        token = None
        if ls.supports("window", "work_done_progress"):
            token = f"memory-lsp-index-{len(ls._bridges)}-{os.getpid()}-{root.path.name}"
            try:
                await ls.work_done_progress.create_async(token)
                ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(
                    title=f"Indexing {root.path.name}", message="opening the index", percentage=0))
            except Exception:
                log.warning("the client refused a progress token", exc_info=True)
                token = None
        ls.start_root(root, token)


@server.feature(t.SHUTDOWN)
def shutdown(ls: MemoryServer, params) -> None:
    ls.close_all()


def _watch_parent(ls: MemoryServer, pid: int) -> None:
    """The editor died without saying goodbye: release the database and leave."""

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                # no waiting for a running index: its transaction rolls back, DuckDB's lock goes with us
                log.warning("the client process %d is gone: exiting", pid)
                logging.shutdown()
                os._exit(0)
            except PermissionError:
                pass  # it exists, under another user
    threading.Thread(target=watch, name="memory-parent-watch", daemon=True).start()


@server.feature(t.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: MemoryServer, params: t.DidChangeConfigurationParams) -> None:
    raw = params.settings.get("memory") if isinstance(params.settings, dict) else None
    if raw is None and ls.supports("workspace", "configuration"):
        config = await ls.workspace_configuration_async(t.ConfigurationParams(
            items=[t.ConfigurationItem(section="memory")]))
        raw = config[0] if config else None
    if raw is not None:
        ls.apply_settings(raw, "configuration")
        ls.changed(None, None)


@server.feature(t.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_folders(ls: MemoryServer, params: t.DidChangeWorkspaceFoldersParams) -> None:
    for f in params.event.removed:
        ls.remove_root(Path(to_fs_path(f.uri) or "").resolve())
    for f in params.event.added:
        path = to_fs_path(f.uri)
        if path and Path(path).is_dir():
            ls.start_root(ls.add_root(Path(path)))


# -- documents -------------------------------------------------------------------------------------------------------
@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: MemoryServer, params: t.DidOpenTextDocumentParams) -> None:
    root, path = ls.locate(params.text_document.uri)
    if root is None:
        return
    root.open_buffers.add(path)
    ls.reindex_buffer(params.text_document.uri)  # unchanged content costs a hash comparison
    if not ls.pull_diagnostics():
        await ls.publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: MemoryServer, params: t.DidChangeTextDocumentParams) -> None:
    if ls.locate(params.text_document.uri)[0] is not None:
        ls.debounce_reindex(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: MemoryServer, params: t.DidSaveTextDocumentParams) -> None:
    if ls.locate(params.text_document.uri)[0] is not None:
        ls.reindex_buffer(params.text_document.uri)
        if not ls.pull_diagnostics():
            await ls.publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: MemoryServer, params: t.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    handle = ls._debounce.pop(uri, None)
    if handle:
        handle.cancel()
    root, path = ls.locate(uri)
    if root is None:
        return
    root.open_buffers.discard(path)
    root.reindex({path: None})  # the disk is the truth again (unsaved edits are gone)
    if not ls.pull_diagnostics():
        ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: MemoryServer, params: t.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        root, path = ls.locate(change.uri)
        if root is None:
            continue
        if path == ".memory/events.jsonl":
            root.sync_memories()
        elif path not in root.open_buffers and not path.startswith(".memory/"):
            root.reindex({path: None})


# -- features --------------------------------------------------------------------------------------------------------
@server.feature(t.TEXT_DOCUMENT_HOVER)
@guarded
async def hover(ls: MemoryServer, params: t.HoverParams) -> t.Hover | None:
    root, path = ls.locate(params.text_document.uri)
    snap = root.snapshot() if root is not None else None
    if snap is None or not ls.settings.hover.enabled:
        return None
    text = await ls.read(views.hover_markdown, snap, path, params.position.line + 1, ls.settings)
    if not text:
        return None
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))


@server.feature(t.TEXT_DOCUMENT_DIAGNOSTIC, t.DiagnosticOptions(identifier="memory", inter_file_dependencies=True,
                                                                 workspace_diagnostics=False))
@guarded
async def pull_diagnostics(ls: MemoryServer, params: t.DocumentDiagnosticParams):
    root, path = ls.locate(params.text_document.uri)
    items = []
    snap = root.snapshot() if root is not None else None
    if snap is not None:
        doc = ls.workspace.text_documents.get(params.text_document.uri)
        items = await ls.read(views.diagnostics, snap, path, doc.source if doc else None, ls.settings)
        items = ls.client_units(items, doc.source if doc else None)
    return t.RelatedFullDocumentDiagnosticReport(items=items)


@server.feature(t.TEXT_DOCUMENT_CODE_LENS, t.CodeLensOptions(resolve_provider=True))
@guarded
async def code_lens(ls: MemoryServer, params: t.CodeLensParams) -> list[t.CodeLens]:
    root, path = ls.locate(params.text_document.uri)
    snap = root.snapshot() if root is not None else None
    if snap is None or not ls.settings.code_lens.enabled:
        return []
    return await ls.read(views.lenses, snap, params.text_document.uri, path)


@server.feature(t.CODE_LENS_RESOLVE)
@guarded
async def code_lens_resolve(ls: MemoryServer, lens: t.CodeLens) -> t.CodeLens:
    data = lens.data if isinstance(lens.data, dict) else {}
    root, _path = ls.locate(str(data.get("uri", "")))
    snap = root.snapshot() if root is not None else None
    if snap is None:
        return lens
    return await ls.read(views.resolve_lens, snap, lens, ls.settings)


@server.feature(t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionOptions(
    code_action_kinds=[t.CodeActionKind.QuickFix, t.CodeActionKind.Refactor]))
@guarded
async def code_action(ls: MemoryServer, params: t.CodeActionParams) -> list[t.CodeAction]:
    root, path = ls.locate(params.text_document.uri)
    snap = root.snapshot() if root is not None else None
    if snap is None:
        return []
    return await ls.read(views.code_actions, snap, path, params.range, list(params.context.diagnostics))


@server.feature(t.WORKSPACE_SYMBOL)
@guarded
async def workspace_symbol(ls: MemoryServer, params: t.WorkspaceSymbolParams) -> list[t.WorkspaceSymbol]:
    out = []
    for root in list(ls.roots.values()):
        snap = root.snapshot()
        if snap is not None:
            out += await ls.read(views.workspace_symbols, snap, params.query)
    return out


def _command(name: str):
    @guarded
    async def run(ls: MemoryServer, *args):
        if len(args) > 1 or (args and not isinstance(args[0], dict)):
            raise UserError(f"{name} takes one argument, a JSON object of named arguments "
                            f"(got {len(args)} arguments)")
        arguments = dict(args[0]) if args else {}
        root = _root_for(ls, arguments.pop("workspace", None))
        request_id = ls.protocol.msg_id
        if request_id is not None:  # so that $/cancelRequest reaches this task (see protocol.py)
            ls.protocol.command_tasks[request_id] = asyncio.current_task()
        try:
            for _ in range(200):  # between initialize and initialized the folder is not opening yet: queue after it
                if root.started:
                    break
                await asyncio.sleep(0.05)
            return await asyncio.wrap_future(root.run_command(name, arguments))
        finally:
            ls.protocol.command_tasks.pop(request_id, None)
    run.__name__ = name
    return run


def _root_for(ls: MemoryServer, workspace) -> Root:
    if not ls.roots:
        raise UserError("no workspace folder is open")
    if workspace is None:
        return next(iter(ls.roots.values()))
    if not isinstance(workspace, str):
        raise UserError("argument 'workspace' must be a folder path or file URI")
    path = Path(to_fs_path(workspace) if workspace.startswith("file:") else workspace).resolve()
    if path not in ls.roots:
        raise UserError(f"{workspace} is not one of the open workspace folders: "
                        + ", ".join(str(p) for p in ls.roots))
    return ls.roots[path]


for _name in COMMANDS:  # the same commands, arguments and results as the CLI's --json
    server.command(_name)(_command(_name))


# -- entry point -------------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    from memory_lsp.cli import main as cli_main

    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


def serve(args) -> int:
    handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logging.getLogger("memory_lsp").setLevel(args.log_level)
    try:
        if args.tcp:
            host, _, port = args.tcp.rpartition(":")
            if not port.isdigit():
                print(f"memory-lsp: --tcp wants HOST:PORT, got {args.tcp!r}", file=sys.stderr)
                return 2
            server.start_tcp(host or "127.0.0.1", int(port))
        else:
            # pygls reads stdin on a thread that holds the buffer's lock while it waits; a forked
            # parse worker closes sys.stdin at start-up and would wait for that lock forever
            stdin, sys.stdin = sys.stdin.buffer, open(os.devnull)
            server.start_io(stdin)
    finally:
        server.close_all()
    return 0
