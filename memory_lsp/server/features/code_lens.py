"""`textDocument/codeLens` and `codeLens/resolve`: one lens per function or class, unresolved
(`lenses_for`); its title, the memories and the dependents and tests, is counted when the editor
shows it (`resolved`). After a change the server asks for `workspace/codeLens/refresh`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.server.convert import line_start, plural
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer
    from memory_lsp.workspace import Snapshot

LENS_KINDS = {"function", "method", "class", "interface", "struct", "trait", "enum", "type", "impl", "module"}


def register(server: MemoryServer, settings: Config) -> None:
    if settings.code_lens.enabled:  # not advertised when the settings the server starts with turn it off
        server.feature(t.TEXT_DOCUMENT_CODE_LENS, t.CodeLensOptions(resolve_provider=True))(code_lens)
        server.feature(t.CODE_LENS_RESOLVE)(code_lens_resolve)
        server.refreshers.append(refresh)


@guarded
async def code_lens(ls: MemoryServer, params: t.CodeLensParams) -> list[t.CodeLens]:
    snap, path = ls.snapshot(params.text_document.uri)
    if snap is None or not ls.config.code_lens.enabled:
        return []
    return await ls.read(lenses_for, snap, params.text_document.uri, path)


@guarded
async def code_lens_resolve(ls: MemoryServer, lens: t.CodeLens) -> t.CodeLens:
    data = lens.data if isinstance(lens.data, dict) else {}
    snap, _path = ls.snapshot(str(data.get("uri", "")))
    if snap is None:
        return lens
    return await ls.read(resolved, snap, lens, ls.config)


async def refresh(ls: MemoryServer) -> None:
    if ls.client.code_lens_refresh:
        ls.workspace_code_lens_refresh(None)


def lenses_for(snap: Snapshot, uri: str, path: str) -> list[t.CodeLens]:
    """The file's lenses, unresolved: `data` says what to count."""
    return [t.CodeLens(range=line_start(s.start), data={"uri": uri, "path": path, "symbol": s.qualname})
            for s in snap.symbols(path) if s.kind in LENS_KINDS]


def resolved(snap: Snapshot, lens: t.CodeLens, settings: Config) -> t.CodeLens:
    """The lens with its title and command: the memories when there are some, else the impact."""
    data = lens.data or {}
    path, symbol = data.get("path", ""), data.get("symbol", "")
    depth = settings.code_lens.depth
    memories = len(snap.memories.for_symbol(path, symbol))
    counts = snap.impact_counts(f"{path}::{symbol}", path, depth)
    impact = f"{plural(counts[0], 'dependent')} · {plural(counts[1], 'test')}" if counts else "dependents: indexing…"
    title = f"{plural(memories, 'memory', 'memories')} · {impact}"
    if memories:
        command = t.Command(title=title, command="memory.memories", arguments=[{"file": path}])
    else:
        command = t.Command(title=title, command="memory.impact", arguments=[{"target": f"{path}::{symbol}",
                                                                               "depth": depth}])
    return t.CodeLens(range=lens.range, command=command, data=data)
