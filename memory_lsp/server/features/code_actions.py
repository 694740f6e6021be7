"""`textDocument/codeAction`: teach a memory about the selection or the symbol at the cursor (through a
draft file any editor can fill in: drafts.py), and
for each memory cited there (or behind a diagnostic in the request): re-anchor a drifted one,
mark it outdated or wrong, pin or unpin it. The actions run `memory.*` commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.memory.model import Memory
from memory_lsp.server.convert import where
from memory_lsp.server.features.diagnostics import SOURCE
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer
    from memory_lsp.workspace import Snapshot

KINDS = [t.CodeActionKind.QuickFix, t.CodeActionKind.Refactor]


def register(server: MemoryServer, settings: Config) -> None:
    server.feature(t.TEXT_DOCUMENT_CODE_ACTION, t.CodeActionOptions(code_action_kinds=KINDS))(code_action)


@guarded
async def code_action(ls: MemoryServer, params: t.CodeActionParams) -> list[t.CodeAction]:
    snap, path = ls.snapshot(params.text_document.uri)
    if snap is None:
        return []
    return await ls.read(actions_for, snap, path, params.range, list(params.context.diagnostics))


def actions_for(snap: Snapshot, path: str, rng: t.Range, diagnostics: list[t.Diagnostic]) -> list[t.CodeAction]:
    """The actions for `rng` in `path` (`diagnostics`: the ones the editor sent with the request)."""
    first, last = rng.start.line + 1, max(rng.start.line + 1, rng.end.line + (1 if rng.end.character else 0))
    actions = [_teach(snap, path, rng, first, last)]
    near = [m for m in snap.memories.for_file(path) if _touches(m, path, first, last)]
    by_diagnostic = {d.code for d in diagnostics if d.source == SOURCE}
    seen = set()
    for m in near + [m for m in snap.memories.active if m.id in by_diagnostic]:
        if m.id not in seen:
            seen.add(m.id)
            actions += _about(m, [d for d in diagnostics if d.code == m.id])
    return actions


def _teach(snap: Snapshot, path: str, rng: t.Range, first: int, last: int) -> t.CodeAction:
    symbol = snap.symbol_at(path, first)
    selection = rng.start != rng.end
    cite = f"{path}:{first}-{last}" if selection or not symbol else f"{path}::{symbol.qualname}"
    about = "this selection" if selection else (symbol.qualname if symbol else path)
    return t.CodeAction(title=f"Teach a memory about {about}", kind=t.CodeActionKind.Refactor,
                        command=t.Command(title="Teach a memory", command="memory.teachDraft",
                                          arguments=[{"cite": [cite], "type": "gotcha"}]))


def _about(m: Memory, diagnostics: list[t.Diagnostic]) -> list[t.CodeAction]:
    short = m.text if len(m.text) <= 40 else m.text[:39] + "…"
    out = []
    if m.state == "drifted":
        out.append(t.CodeAction(title=f"Re-anchor “{short}” to the current code", kind=t.CodeActionKind.QuickFix,
                                diagnostics=diagnostics or None, is_preferred=True,
                                command=t.Command(title="Re-anchor", command="memory.reanchor",
                                                  arguments=[{"id": m.id}])))
    for verdict in ("outdated", "wrong"):
        out.append(t.CodeAction(title=f"Mark “{short}” {verdict}", kind=t.CodeActionKind.QuickFix,
                                diagnostics=diagnostics or None,
                                command=t.Command(title=f"Mark {verdict}", command="memory.feedback",
                                                  arguments=[{"id": m.id, "verdict": verdict}])))
    pin = "Unpin" if m.pinned else "Pin"
    out.append(t.CodeAction(title=f"{pin} “{short}”", kind=t.CodeActionKind.QuickFix,
                            command=t.Command(title=pin, command="memory.pin", arguments=[{"id": m.id, "off": m.pinned}])))
    return out


def _touches(m: Memory, path: str, first: int, last: int) -> bool:
    for c in m.citations:
        cpath, start, end = where(c)
        if cpath == path and start and start <= last and (end or start) >= first:
            return True
    return False
