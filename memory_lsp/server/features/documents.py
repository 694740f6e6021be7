"""Keeping the index in step with the editor: `textDocument/didOpen`, `didChange` (re-indexed after
`indexing.debounceMs` without keystrokes), `didSave`, `didClose` (the disk is the truth again)
and `workspace/didChangeWatchedFiles` (files and the memory log changed outside the editor).
Buffers are re-indexed on their folder's writer; editors without pull diagnostics get theirs
pushed after an open or a save. Files under .memory/ are never indexed; a saved or closed teach
draft goes to drafts.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.memory.drafts import is_draft
from memory_lsp.paths import MEMORY_DIR
from memory_lsp.server.features import drafts
from memory_lsp.server.features.diagnostics import publish
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer

MEMORY_LOG = ".memory/events.jsonl"


def register(server: MemoryServer, settings: Config) -> None:
    server.feature(t.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(t.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(t.TEXT_DOCUMENT_DID_SAVE)(did_save)
    server.feature(t.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)


async def did_open(ls: MemoryServer, params: t.DidOpenTextDocumentParams) -> None:
    folder, path = ls.locate(params.text_document.uri)
    if folder is None or not _indexed(path):
        return
    folder.open_buffers.add(path)
    reindex_buffer(ls, params.text_document.uri)  # unchanged content costs a hash comparison
    if not ls.client.pull_diagnostics:
        await publish(ls, params.text_document.uri)


def did_change(ls: MemoryServer, params: t.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    folder, path = ls.locate(uri)
    if folder is not None and _indexed(path):
        _cancel_pending(ls, uri)
        ls.debounce[uri] = ls.loop.call_later(ls.config.indexing.debounce_ms / 1000, reindex_buffer, ls, uri)


async def did_save(ls: MemoryServer, params: t.DidSaveTextDocumentParams) -> None:
    folder, path = ls.locate(params.text_document.uri)
    if folder is not None and is_draft(path):
        await drafts.saved(ls, params.text_document.uri)
    elif folder is not None and _indexed(path):
        reindex_buffer(ls, params.text_document.uri)
        if not ls.client.pull_diagnostics:
            await publish(ls, params.text_document.uri)


def did_close(ls: MemoryServer, params: t.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    _cancel_pending(ls, uri)
    folder, path = ls.locate(uri)
    if folder is not None and is_draft(path):
        drafts.closed(ls, uri)
    if folder is None or not _indexed(path):
        return
    folder.open_buffers.discard(path)
    folder.reindex({path: None})  # the disk is the truth again (unsaved edits are gone)
    if not ls.client.pull_diagnostics:
        ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def did_change_watched_files(ls: MemoryServer, params: t.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        folder, path = ls.locate(change.uri)
        if folder is None:
            continue
        if path == MEMORY_LOG:
            folder.sync_memories()
        elif path not in folder.open_buffers and not path.startswith(".memory/"):
            folder.reindex({path: None})


def _indexed(path: str) -> bool:
    """Is this document part of the code index? (.memory/ holds the log, the index and drafts)"""
    return not path.startswith(MEMORY_DIR + "/")


def reindex_buffer(ls: MemoryServer, uri: str) -> None:
    """Re-index the buffer's text now (a save comes before the debounce: no second run later)."""
    _cancel_pending(ls, uri)
    folder, path = ls.locate(uri)
    doc = ls.workspace.text_documents.get(uri)
    if folder is not None and doc is not None:
        folder.reindex({path: doc.source.encode("utf-8", "surrogatepass")})


def _cancel_pending(ls: MemoryServer, uri: str) -> None:
    handle = ls.debounce.pop(uri, None)
    if handle:
        handle.cancel()
