"""`textDocument/codeLens` and `codeLens/resolve`: a lens on a function or class only where there
is something to say (`lenses_for`): its memories, or dependents at or above
`codeLens.minDependents` (counting those reached with `codeLens.minConfidence`); none in test
files unless `codeLens.testFiles`. Titles leave zero parts out ("3 dependents · 1 test").
Lenses are sent resolved (choosing them needs the counts); `codeLens/resolve` still fills in a
lens that has only `data`. After a change the server asks for `workspace/codeLens/refresh`.
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
    return await ls.read(lenses_for, snap, params.text_document.uri, path, ls.config)


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


def lenses_for(snap: Snapshot, uri: str, path: str, settings: Config | None = None) -> list[t.CodeLens]:
    """The file's lenses, resolved: only where there is something to say (memories, or at least
    `codeLens.minDependents` dependents), none in test files unless `codeLens.testFiles`."""
    settings = settings or Config()
    if not settings.code_lens.test_files and snap.is_test(path):
        return []
    out = []
    for s in snap.symbols(path):
        if s.kind in LENS_KINDS:
            lens = resolved(snap, t.CodeLens(range=line_start(s.start),
                                             data={"uri": uri, "path": path, "symbol": s.qualname}), settings)
            if lens.command is not None:
                out.append(lens)
    return out


def resolved(snap: Snapshot, lens: t.CodeLens, settings: Config) -> t.CodeLens:
    """The lens with its title and command, e.g. "1 memory · 3 dependents · 1 test" (zero parts
    left out); without a command when there is nothing to say."""
    data = lens.data or {}
    path, symbol = data.get("path", ""), data.get("symbol", "")
    opts = settings.code_lens
    memories = len(snap.memories.for_symbol(path, symbol))
    # the tests are selected only for a lens that will show them
    counts = snap.impact_counts(f"{path}::{symbol}", path, opts.depth, opts.min_confidence, wait=True,
                                tests_from=0 if memories else opts.min_dependents)
    dependents, tests = counts or (0, 0)
    if not memories and dependents < opts.min_dependents:
        return t.CodeLens(range=lens.range, data=data)  # nothing to say
    parts = [plural(memories, "memory", "memories")] if memories else []
    parts += [plural(dependents, "dependent")] if dependents else []
    parts += [plural(tests, "test")] if tests else []
    title = " · ".join(parts)
    if memories:
        command = t.Command(title=title, command="memory.memories", arguments=[{"file": path}])
    else:
        command = t.Command(title=title, command="memory.impact", arguments=[{"target": f"{path}::{symbol}",
                                                                               "depth": opts.depth}])
    return t.CodeLens(range=lens.range, command=command, data=data)
