"""`textDocument/hover`: the memories about the symbol under the cursor, then about its file, then
a one-line impact summary. `hover_for` is the body; the handler runs it on the reader pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.memory.model import Memory
from memory_lsp.server.convert import age, file_uri, inert, plural, quote, type_name, where
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer
    from memory_lsp.workspace import Snapshot


def register(server: MemoryServer, settings: Config) -> None:
    if settings.hover.enabled:  # not advertised when the settings the server starts with turn it off
        server.feature(t.TEXT_DOCUMENT_HOVER)(hover)


@guarded
async def hover(ls: MemoryServer, params: t.HoverParams) -> t.Hover | None:
    snap, path = ls.snapshot(params.text_document.uri)
    if snap is None or not ls.config.hover.enabled:
        return None
    return await ls.read(hover_for, snap, path, params.position.line + 1, ls.config)


def hover_for(snap: Snapshot, path: str, line: int, settings: Config) -> t.Hover | None:
    """The hover at `line` (1-based) of `path`; None when there is nothing to say."""
    around = snap.symbols_at(path, line)
    symbol = around[0] if around else None
    view = snap.memories
    on_symbol: list[Memory] = []
    for s in around:  # a class's memories speak for its methods too, before the rest of the file
        on_symbol += [m for m in view.for_symbol(path, s.qualname) if m not in on_symbol]
    on_file = [m for m in view.for_file(path) if m not in on_symbol]
    shown = (on_symbol + on_file)[:settings.hover.max_memories]
    parts = [_memory_markdown(snap, m, "symbol" if m in on_symbol else "file") for m in shown]
    hidden = len(on_symbol) + len(on_file) - len(shown)
    if hidden > 0:
        parts.append(f"_{hidden} more: `memory-lsp memories --file {path}`_")
    node = f"{path}::{symbol.qualname}" if symbol else path
    depth = settings.hover.depth
    counts = snap.impact_counts(node, path, depth)
    if counts and counts[0]:
        name = f"`{symbol.qualname}`" if symbol else "this file"
        parts.append(f"**Impact** of changing {name}: {plural(counts[0], 'dependent')}, "
                     f"{plural(counts[1], 'test')} (depth {depth})")
    if not parts:
        return None
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)))


def _memory_markdown(snap: Snapshot, m: Memory, about: str) -> str:
    flags = [type_name(m.type), age(m.updated or m.created), m.source.replace("_", " ")]
    if m.state != "valid":
        flags.append(f"**{m.state}**")
    if m.needs_review:
        flags.append("unreviewed")
    if m.pinned:
        flags.append("pinned")
    head = f"**{flags[0]}** · " + " · ".join(flags[1:]) + f" · `{m.id[-8:]}`"
    links = []
    for c in m.citations:
        path, start, _end = where(c)
        label = f"{path}:{start}" if start else path
        # the one link a memory gets: to the cited workspace location (the URI is percent-encoded)
        links.append(f"[{inert(label)}]({file_uri(snap.root, path, start)}) ({c.state})")
    cited = ("\n\ncites " + ", ".join(links)) if links else (f"\n\napplies to {_code(m.scope)}" if about == "file" else "")
    return f"{head}\n\n{quote(m.text)}{cited}"


def _code(text: str) -> str:
    """A glob as a code span (inert); text that could close the span is escaped instead."""
    return f"`{text}`" if "`" not in text and "\n" not in text else inert(text)
