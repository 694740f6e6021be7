"""Teaching through a draft file, for editors that cannot prompt for a memory's text: the
`memory.teachDraft` command (the "Teach a memory" code action runs it) writes
`.memory/drafts/<id>.md` with the citations and the type and opens it in the editor
(`window/showDocument`, else a `workspace/applyEdit` that creates it, else a message naming it).
Saving the draft with text stores the memory through `memory.teach` (secret scan and all) and
deletes the draft; saved without text it stores nothing; closed without text it is deleted.

LSP only: the CLI has `memory-lsp teach TEXT` and needs no draft.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.errors import UserError
from memory_lsp.memory import drafts
from memory_lsp.server.features.execute_command import folder_for
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer

log = logging.getLogger("memory_lsp.server")

COMMAND = "memory.teachDraft"
_storing: set[str] = set()  # drafts being stored: a second save meanwhile must not store twice


def register(server: MemoryServer, settings: Config) -> None:
    server.command(COMMAND)(teach_draft)


@guarded
async def teach_draft(ls, *args):  # no annotations: pygls structures arguments by them
    """Write a draft for `{"cite": [...], "type": ..., "workspace"?: ...}` and open it."""
    arguments = args[0] if len(args) == 1 and isinstance(args[0], dict) else None
    if arguments is None:
        raise UserError(f"{COMMAND} takes one argument, a JSON object with `cite` and `type`")
    cite, type_ = arguments.get("cite", []), arguments.get("type", "gotcha")
    if not isinstance(cite, list) or not all(isinstance(c, str) for c in cite) or not isinstance(type_, str):
        raise UserError(f"{COMMAND}: `cite` must be a list of strings and `type` a string")
    folder = folder_for(ls, arguments.get("workspace"))
    rel = drafts.new_path(folder.path)
    full = folder.path / rel
    content = drafts.render(cite, type_)
    uri = full.as_uri()
    opened = await _open(ls, full, uri, content)
    return {"draft": rel, "uri": uri, "opened": opened}


async def _open(ls: MemoryServer, full: Path, uri: str, content: str) -> str:
    """Put the draft in front of the user; how it was done ("showDocument", "applyEdit", "message")."""
    # the end of the `text:` line: the empty line under it is past the last line in editors whose
    # buffers end with the file's last newline (Neovim 0.10+ refuses such a cursor)
    end = t.Position(line=content.count("\n") - 1, character=len(content.splitlines()[-1]))
    if ls.client.show_document:
        full.write_text(content, encoding="utf-8")
        try:
            shown = await ls.window_show_document_async(t.ShowDocumentParams(
                uri=uri, take_focus=True, selection=t.Range(start=end, end=end)))
            if shown and shown.success:
                return "showDocument"
        except Exception:
            log.warning("window/showDocument failed for %s", uri, exc_info=True)
    elif ls.client.apply_edit and ls.client.create_files:
        edit = t.WorkspaceEdit(document_changes=[
            t.CreateFile(uri=uri, options=t.CreateFileOptions(ignore_if_exists=True)),
            t.TextDocumentEdit(text_document=t.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                               edits=[t.TextEdit(range=t.Range(start=t.Position(0, 0), end=t.Position(0, 0)),
                                                 new_text=content)])])
        try:
            applied = await ls.workspace_apply_edit_async(t.ApplyWorkspaceEditParams(edit=edit, label="Teach a memory"))
            if applied and applied.applied:
                return "applyEdit"
        except Exception:
            log.warning("workspace/applyEdit failed for %s", uri, exc_info=True)
    if not full.exists():
        full.write_text(content, encoding="utf-8")
    ls.tell(t.MessageType.Info, f"memory-lsp: write the memory under `text:` in {full} and save it")
    return "message"


async def saved(ls: MemoryServer, uri: str) -> None:
    """A draft was saved: store its memory and delete it, or say why not and keep it."""
    folder, rel = ls.locate(uri)
    if folder is None or uri in _storing:
        return
    full = folder.path / rel
    try:
        content = full.read_text(encoding="utf-8")
    except OSError:
        doc = ls.workspace.text_documents.get(uri)
        if doc is None:
            return
        content = doc.source
    _storing.add(uri)
    try:
        draft = drafts.parse(content)
        if not draft.text:
            ls.tell(t.MessageType.Info, f"memory-lsp: {rel} has no text under `text:`: nothing stored")
            return
        arguments = {"text": draft.text, "type": draft.type, "cite": draft.cite}
        warnings: list[str] = []
        result = await asyncio.wrap_future(folder.command("memory.teach", arguments, warn=warnings.append))
    except UserError as exc:
        ls.tell(t.MessageType.Error, f"memory-lsp: {rel} not stored: {exc}")
        return
    except Exception as exc:  # a bug: keep the draft, say so
        log.exception("storing %s failed", rel)
        ls.tell(t.MessageType.Error, f"memory-lsp: {rel} not stored: {exc}")
        return
    finally:
        _storing.discard(uri)
    full.unlink(missing_ok=True)
    for line in warnings + list(result.get("warnings") or []):
        ls.tell(t.MessageType.Warning, f"memory-lsp: {line}")
    verb = "stored" if result.get("created") else "already known as"
    ls.tell(t.MessageType.Info, f"memory-lsp: {verb} memory {result['id']}; the draft is deleted")


def closed(ls: MemoryServer, uri: str) -> None:
    """A draft closed without text is dropped; one with text stays (its writing is not lost)."""
    folder, rel = ls.locate(uri)
    if folder is None or uri in _storing:
        return
    full = folder.path / rel
    try:
        empty = not drafts.parse(full.read_text(encoding="utf-8")).text
    except (OSError, UserError):
        return
    if empty:
        full.unlink(missing_ok=True)
