"""`workspace/symbol`: indexed definitions whose name contains the query, in every folder,
shortest names first. `symbols_matching` is the body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.server.convert import file_uri, line_start
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer
    from memory_lsp.workspace import Snapshot

SYMBOL_KINDS = {"function": t.SymbolKind.Function, "method": t.SymbolKind.Method, "class": t.SymbolKind.Class,
                "interface": t.SymbolKind.Interface, "struct": t.SymbolKind.Struct, "enum": t.SymbolKind.Enum,
                "trait": t.SymbolKind.Interface, "type": t.SymbolKind.TypeParameter, "module": t.SymbolKind.Module,
                "impl": t.SymbolKind.Class, "constant": t.SymbolKind.Constant, "variable": t.SymbolKind.Variable}
LIMIT = 200  # per folder


def register(server: MemoryServer, settings: Config) -> None:
    server.feature(t.WORKSPACE_SYMBOL)(workspace_symbol)


@guarded
async def workspace_symbol(ls: MemoryServer, params: t.WorkspaceSymbolParams) -> list[t.WorkspaceSymbol]:
    out = []
    for folder in list(ls.folders.values()):
        snap = folder.snapshot()
        if snap is not None:
            out += await ls.read(symbols_matching, snap, params.query)
    return out


def symbols_matching(snap: Snapshot, query: str, limit: int = LIMIT) -> list[t.WorkspaceSymbol]:
    rows = snap.find_symbols(query, limit)
    return [t.WorkspaceSymbol(name=qual, kind=SYMBOL_KINDS.get(kind, t.SymbolKind.Variable),
                              location=t.Location(file_uri(snap.root, path), line_start(line)), container_name=path)
            for path, _name, qual, kind, line in rows]
