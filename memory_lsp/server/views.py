"""What the editor shows, built from a folder's snapshots: hover text, diagnostics, code lenses
and code actions. Pure functions of their inputs; nothing here writes or waits.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.memory.model import Memory, parse_time
from memory_lsp.server.settings import ServerSettings

if TYPE_CHECKING:  # the workspace (DuckDB) loads when a folder opens, not at start-up
    from memory_lsp.workspace import Snapshot

LENS_KINDS = {"function", "method", "class", "interface", "struct", "trait", "enum", "type", "impl", "module"}
SOURCE = "memory"


def file_uri(snap: Snapshot, path: str, line: int | None = None) -> str:
    uri = (snap.root / path).as_uri()
    return f"{uri}#L{line}" if line else uri


def age(when: str, now: datetime | None = None) -> str:
    days = ((now or datetime.now(timezone.utc)) - parse_time(when)).total_seconds() / 86400
    if days < 1:
        return "today"
    if days < 2:
        return "yesterday"
    if days < 60:
        return f"{int(days)} days ago"
    if days < 730:
        return f"{int(days / 30)} months ago"
    return f"{int(days / 365)} years ago"


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def where(c) -> tuple[str, int | None, int | None]:
    now = c.now
    return now.path, now.start_line, now.end_line


# -- hover -----------------------------------------------------------------------------------------
def hover_markdown(snap: Snapshot, path: str, line: int, settings: ServerSettings) -> str | None:
    """Memories for the symbol under the cursor, then for its file, then a one-line impact summary."""
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
    counts = snap.impact_counts(node, path, settings.hover.depth)
    if counts and counts[0]:
        name = f"`{symbol.qualname}`" if symbol else "this file"
        parts.append(f"**Impact** of changing {name}: {plural(counts[0], 'dependent')}, {plural(counts[1], 'test')} "
                     f"(depth {settings.hover.depth})")
    return "\n\n---\n\n".join(parts) if parts else None


def _memory_markdown(snap: Snapshot, m: Memory, about: str) -> str:
    flags = [m.type.replace("_", " "), age(m.updated or m.created), m.source.replace("_", " ")]
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
        links.append(f"[{label}]({file_uri(snap, path, start)}) ({c.state})")
    cited = ("\n\ncites " + ", ".join(links)) if links else (f"\n\napplies to `{m.scope}`" if about == "file" else "")
    return f"{head}\n\n{_quote(m.text)}{cited}"


def _quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines() or [""])


# -- diagnostics -------------------------------------------------------------------------------------
SEVERITY_BY_PRIORITY = {"critical": t.DiagnosticSeverity.Warning, "high": t.DiagnosticSeverity.Information,
                        "medium": t.DiagnosticSeverity.Hint, "normal": t.DiagnosticSeverity.Hint,
                        "low": t.DiagnosticSeverity.Hint}


def diagnostics(snap: Snapshot, path: str, text: str | None, settings: ServerSettings) -> list[t.Diagnostic]:
    """Memories anchored to ranges in the file, citations that drifted or lost their code, and
    policies whose pattern matches the text; capped, most severe first."""
    opts = settings.diagnostics
    if not opts.enabled:
        return []
    lines = lsp_lines(text) if text is not None else None
    out: list[t.Diagnostic] = []
    for m in snap.memories.for_file(path):
        if m.effective_confidence() < opts.min_confidence:
            continue
        if m.match and lines is not None:
            out += _pattern_hits(snap, m, lines)
        for c in m.citations:
            cpath, start, end = where(c)
            if cpath != path:
                continue
            if c.state != "valid" and opts.citations:
                out.append(_citation_diagnostic(snap, m, c, path, start, end, lines))
            elif c.state == "valid" and start:
                out.append(_anchored(snap, m, c, path, start, end, lines))
    out.sort(key=lambda d: (d.severity, d.range.start.line))
    return out[:opts.max_per_file]


def lsp_lines(text: str) -> list[str]:
    """The lines as LSP counts them: str.splitlines also breaks at form feeds, \u2028 and others,
    which would move every position after them."""
    return LINE_BREAK.split(text)


LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _line_range(lines: list[str] | None, line: int) -> t.Range:
    """Line `line` (1-based) from its first non-blank character to its end."""
    text = lines[line - 1] if lines and 0 < line <= len(lines) else ""
    start = len(text) - len(text.lstrip())
    return t.Range(t.Position(line - 1, start), t.Position(line - 1, len(text)))


def _related(snap: Snapshot, m: Memory, path: str, start: int | None, end: int | None, lines) -> list:
    rng = _line_range(lines, start) if start else t.Range(t.Position(0, 0), t.Position(0, 0))
    if end and end > (start or 0):  # through the end of the last cited line
        last = len(lines[end - 1]) if lines and end <= len(lines) else 0
        rng = t.Range(rng.start, t.Position(end - 1, last) if last else t.Position(end, 0))
    return [t.DiagnosticRelatedInformation(t.Location(file_uri(snap, path), rng), f"cited by memory {m.id}")]


def _anchored(snap, m, c, path, start, end, lines) -> t.Diagnostic:
    return t.Diagnostic(
        range=_line_range(lines, start), message=f"{m.type.replace('_', ' ')}: {m.text}",
        severity=SEVERITY_BY_PRIORITY.get(m.priority, t.DiagnosticSeverity.Hint), code=m.id, source=SOURCE,
        related_information=_related(snap, m, path, start, end, lines), data={"memory": m.id})


def _citation_diagnostic(snap, m, c, path, start, end, lines) -> t.Diagnostic:
    if c.state == "drifted":
        message = (f"the code this {m.type.replace('_', ' ')} cites changed since it was written: "
                   f"check it still holds, then re-anchor it. {m.text}")
    else:
        what = f"`{c.symbol}`" if c.symbol else f"lines {c.start_line}-{c.end_line}"
        message = f"{what}, cited by this {m.type.replace('_', ' ')}, is gone: forget or re-teach it. {m.text}"
    return t.Diagnostic(
        range=_line_range(lines, start or 1), message=message, severity=t.DiagnosticSeverity.Warning,
        code=m.id, source=SOURCE, related_information=_related(snap, m, path, start, end, lines),
        data={"memory": m.id, "citation": c.state})


def _pattern_hits(snap, m, lines: list[str], limit: int = 10) -> list[t.Diagnostic]:
    try:
        pattern = re.compile(m.match)
    except re.error:
        return []
    out = []
    severity = t.DiagnosticSeverity.Warning if m.type in ("policy", "requirement") else \
        SEVERITY_BY_PRIORITY.get(m.priority, t.DiagnosticSeverity.Hint)
    for i, line in enumerate(lines):
        hit = pattern.search(line)
        if hit:
            out.append(t.Diagnostic(
                range=t.Range(t.Position(i, hit.start()), t.Position(i, hit.end())),
                message=f"{m.type.replace('_', ' ')}: {m.text}", severity=severity, code=m.id, source=SOURCE,
                data={"memory": m.id, "match": m.match}))
            if len(out) >= limit:
                break
    return out


# -- code lenses ---------------------------------------------------------------------------------------
def lenses(snap: Snapshot, uri: str, path: str) -> list[t.CodeLens]:
    """One lens per function or class, unresolved: the counts are computed when it is shown."""
    out = []
    for s in snap.symbols(path):
        if s.kind in LENS_KINDS:
            out.append(t.CodeLens(range=t.Range(t.Position(s.start - 1, 0), t.Position(s.start - 1, 0)),
                                  data={"uri": uri, "path": path, "symbol": s.qualname}))
    return out


def resolve_lens(snap: Snapshot, lens: t.CodeLens, settings: ServerSettings) -> t.CodeLens:
    data = lens.data or {}
    path, symbol = data.get("path", ""), data.get("symbol", "")
    memories = len(snap.memories.for_symbol(path, symbol))
    counts = snap.impact_counts(f"{path}::{symbol}", path, settings.code_lens.depth)
    impact = f"{plural(counts[0], 'dependent')} · {plural(counts[1], 'test')}" if counts else "dependents: indexing…"
    title = f"{plural(memories, 'memory', 'memories')} · {impact}"
    target = f"{path}::{symbol}"
    if memories:
        command = t.Command(title=title, command="memory.memories", arguments=[{"file": path}])
    else:
        command = t.Command(title=title, command="memory.impact",
                            arguments=[{"target": target, "depth": settings.code_lens.depth}])
    return t.CodeLens(range=lens.range, command=command, data=data)


# -- code actions ----------------------------------------------------------------------------------------
def code_actions(snap: Snapshot, path: str, rng: t.Range, context_diagnostics: list[t.Diagnostic]) -> list[t.CodeAction]:
    first, last = rng.start.line + 1, max(rng.start.line + 1, rng.end.line + (1 if rng.end.character else 0))
    symbol = snap.symbol_at(path, first)
    cite = f"{path}:{first}-{last}" if rng.start != rng.end or not symbol else f"{path}::{symbol.qualname}"
    actions = [t.CodeAction(
        title=f"Teach a memory about {'this selection' if rng.start != rng.end else (symbol.qualname if symbol else path)}",
        kind=t.CodeActionKind.Refactor,
        command=t.Command(title="Teach a memory", command="memory.teach",
                          arguments=[{"cite": [cite], "type": "gotcha"}]))]
    seen = set()
    near = [m for m in snap.memories.for_file(path) if _touches(m, path, first, last)]
    by_diag = {d.code for d in context_diagnostics if d.source == SOURCE}
    for m in near + [m for m in snap.memories.active if m.id in by_diag]:
        if m.id in seen:
            continue
        seen.add(m.id)
        short = m.text if len(m.text) <= 40 else m.text[:39] + "…"
        diags = [d for d in context_diagnostics if d.code == m.id]
        if m.state == "drifted":
            actions.append(t.CodeAction(title=f"Re-anchor “{short}” to the current code", kind=t.CodeActionKind.QuickFix,
                                        diagnostics=diags or None, is_preferred=True,
                                        command=t.Command(title="Re-anchor", command="memory.reanchor",
                                                          arguments=[{"id": m.id}])))
        for verdict in ("outdated", "wrong"):
            actions.append(t.CodeAction(title=f"Mark “{short}” {verdict}", kind=t.CodeActionKind.QuickFix,
                                        diagnostics=diags or None,
                                        command=t.Command(title=f"Mark {verdict}", command="memory.feedback",
                                                          arguments=[{"id": m.id, "verdict": verdict}])))
        actions.append(t.CodeAction(title=f"{'Unpin' if m.pinned else 'Pin'} “{short}”", kind=t.CodeActionKind.QuickFix,
                                    command=t.Command(title="Unpin" if m.pinned else "Pin", command="memory.pin",
                                                      arguments=[{"id": m.id, "off": m.pinned}])))
    return actions


def _touches(m: Memory, path: str, first: int, last: int) -> bool:
    for c in m.citations:
        cpath, start, end = where(c)
        if cpath == path and start and start <= last and (end or start) >= first:
            return True
    return False


def workspace_symbols(snap: Snapshot, query: str, limit: int = 200) -> list[t.WorkspaceSymbol]:
    if snap.store is None:
        return []
    rows = snap.store.cursor().execute(
        "SELECT path, name, qualname, kind, start_line FROM symbols WHERE name ILIKE ? ESCAPE '\\' "
        "ORDER BY length(name), name, path LIMIT ?",
        ["%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%", limit]).fetchall()
    return [t.WorkspaceSymbol(name=qual, kind=SYMBOL_KINDS.get(kind, t.SymbolKind.Variable),
                              location=t.Location(file_uri(snap, path),
                                                  t.Range(t.Position(line - 1, 0), t.Position(line - 1, 0))),
                              container_name=path)
            for path, _name, qual, kind, line in rows]


SYMBOL_KINDS = {"function": t.SymbolKind.Function, "method": t.SymbolKind.Method, "class": t.SymbolKind.Class,
                "interface": t.SymbolKind.Interface, "struct": t.SymbolKind.Struct, "enum": t.SymbolKind.Enum,
                "trait": t.SymbolKind.Interface, "type": t.SymbolKind.TypeParameter, "module": t.SymbolKind.Module,
                "impl": t.SymbolKind.Class, "constant": t.SymbolKind.Constant, "variable": t.SymbolKind.Variable}
