"""`textDocument/hover`: the memories about the symbol under the cursor, then about its file, then
a one-line impact summary (counting dependents reached with `hover.minConfidence`). `hover_for` is
the body; the handler runs it on the reader pool.

A memory that reaches the file only through its scope glob (a policy for `src/**`) speaks for a
line only where it applies: the lines or symbols it cites in the file, the lines its match
pattern matches, or, with neither, the file's head (above its first definition); never on every
line.
"""

from __future__ import annotations

import re
from pathlib import Path
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
    doc = ls.workspace.text_documents.get(params.text_document.uri)
    lines = doc.lines if doc is not None else None
    line = params.position.line
    text = lines[line] if lines is not None and line < len(lines) else None
    return await ls.read(hover_for, snap, path, line + 1, ls.config, text)


def hover_for(snap: Snapshot, path: str, line: int, settings: Config, text: str | None = None) -> t.Hover | None:
    """The hover at `line` (1-based) of `path` (`text`: that line in the editor's buffer, else read
    from the file when a pattern needs it); None when there is nothing to say."""
    around = snap.symbols_at(path, line)
    symbol = around[0] if around else None
    view = snap.memories
    on_symbol: list[Memory] = []
    for s in around:  # a class's memories speak for its methods too, before the rest of the file
        on_symbol += [m for m in view.for_symbol(path, s.qualname) if m not in on_symbol]
    here = _Line(snap, path, line, text)
    on_file = [m for m in view.for_file(path) if m not in on_symbol and here.applies(m)]
    shown = (on_symbol + on_file)[:settings.hover.max_memories]
    parts = [_memory_markdown(snap, m, "symbol" if m in on_symbol else "file") for m in shown]
    hidden = len(on_symbol) + len(on_file) - len(shown)
    if hidden > 0:
        parts.append(f"_{hidden} more: `memory-lsp memories --file {path}`_")
    node = f"{path}::{symbol.qualname}" if symbol else path
    depth = settings.hover.depth
    counts = snap.impact_counts(node, path, depth, settings.hover.min_confidence, tests_from=1)  # shown beside dependents
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


class _Line:
    """The hovered line, for deciding where a memory reached through its scope glob applies."""

    def __init__(self, snap: Snapshot, path: str, line: int, text: str | None):
        self.snap, self.path, self.line, self._text = snap, path, line, text

    def applies(self, m: Memory) -> bool:
        cited = [where(c) for c in m.citations if c.path == self.path or where(c)[0] == self.path]
        if m.scope == "global" or (cited and not any(start for _p, start, _e in cited)):
            return True  # about the file as a whole: every line
        if cited:
            return any(start and start <= self.line <= (end or start) for _p, start, end in cited)
        if m.match:
            try:
                return re.search(m.match, self.text()) is not None
            except re.error:
                return False
        symbols = self.snap.symbols(self.path)
        first = min((s.start for s in symbols), default=2)
        return self.line == 1 or self.line < first

    def text(self) -> str:
        if self._text is None:  # not open in the editor: the file on disk
            try:
                with open(Path(self.snap.root) / self.path, encoding="utf-8", errors="replace") as fh:
                    self._text = next((x for i, x in enumerate(fh, 1) if i == self.line), "")
            except OSError:
                self._text = ""
        return self._text
