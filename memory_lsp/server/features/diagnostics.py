"""Memories as diagnostics: `textDocument/diagnostic` (pull), or `textDocument/publishDiagnostics`
for editors without pull (after an open, a save and every change), and `workspace/diagnostic/refresh`.

`diagnostics_for` is the body: memories anchored to lines of the file, citations that drifted or
lost their code, and policies whose pattern matches the text; capped, most severe first, in code
points (the handlers recount them in the client's units).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types as t

from memory_lsp.memory.model import Memory
from memory_lsp.server.convert import (file_uri, line_range, lines_range, lsp_lines, plain, to_client_units, type_name,
                                       where)
from memory_lsp.server.guard import guarded
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer
    from memory_lsp.workspace import Snapshot

SOURCE = "memory"
SEVERITY_BY_PRIORITY = {"critical": t.DiagnosticSeverity.Warning, "high": t.DiagnosticSeverity.Information,
                        "medium": t.DiagnosticSeverity.Hint, "normal": t.DiagnosticSeverity.Hint,
                        "low": t.DiagnosticSeverity.Hint}
OPTIONS = t.DiagnosticOptions(identifier="memory", inter_file_dependencies=True, workspace_diagnostics=False)


def register(server: MemoryServer, settings: Config) -> None:
    server.feature(t.TEXT_DOCUMENT_DIAGNOSTIC, OPTIONS)(pull_diagnostics)
    server.refreshers.append(refresh)


@guarded
async def pull_diagnostics(ls: MemoryServer, params: t.DocumentDiagnosticParams) -> t.RelatedFullDocumentDiagnosticReport:
    return t.RelatedFullDocumentDiagnosticReport(items=await _for_document(ls, params.text_document.uri) or [])


async def publish(ls: MemoryServer, uri: str) -> None:
    """Push the document's diagnostics (editors without pull)."""
    items = await _for_document(ls, uri)
    doc = ls.workspace.text_documents.get(uri)
    if items is None or doc is None:  # closed while they were worked out (`refresh`): its closing cleared them
        return
    ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=doc.version))


async def refresh(ls: MemoryServer) -> None:
    """After a change: the editor pulls again, or gets every open document's diagnostics pushed."""
    if ls.client.pull_diagnostics:
        if ls.client.diagnostics_refresh:
            ls.workspace_diagnostic_refresh(None)
        return
    for uri in list(ls.workspace.text_documents):
        await publish(ls, uri)


async def _for_document(ls: MemoryServer, uri: str) -> list[t.Diagnostic] | None:
    """None: the document is in no folder, or its folder is not open yet."""
    snap, path = ls.snapshot(uri)
    if snap is None:
        return None
    doc = ls.workspace.text_documents.get(uri)
    text = doc.source if doc else None
    items = await ls.read(diagnostics_for, snap, path, text, ls.config)
    return to_client_units(items, text, ls.workspace.position_codec)


def diagnostics_for(snap: Snapshot, path: str, text: str | None, settings: Config) -> list[t.Diagnostic]:
    """The file's diagnostics (`text`: the editor's buffer, for pattern hits and line ends)."""
    opts = settings.diagnostics
    if not opts.enabled:
        return []
    lines = lsp_lines(text) if text is not None else None
    out: list[t.Diagnostic] = []
    for m in snap.memories.for_file(path):
        if m.effective_confidence() < opts.min_confidence:
            continue
        if m.match and lines is not None:
            out += _pattern_hits(m, lines)
        for c in m.citations:
            cpath, start, end = where(c)
            if cpath != path:
                continue
            if c.state != "valid" and opts.citations:
                out.append(_citation_diagnostic(snap, m, c, path, start, end, lines))
            elif c.state == "valid" and start:
                out.append(_anchored(snap, m, path, start, end, lines))
    out.sort(key=lambda d: (d.severity, d.range.start.line))
    return out[:opts.max_per_file]


def _related(snap: Snapshot, m: Memory, path: str, start, end, lines) -> list[t.DiagnosticRelatedInformation]:
    return [t.DiagnosticRelatedInformation(t.Location(file_uri(snap.root, path), lines_range(lines, start, end)),
                                           f"cited by memory {m.id}")]


def _anchored(snap: Snapshot, m: Memory, path: str, start: int, end, lines) -> t.Diagnostic:
    return t.Diagnostic(
        range=line_range(lines, start), message=f"{type_name(m.type)}: {plain(m.text)}",
        severity=SEVERITY_BY_PRIORITY.get(m.priority, t.DiagnosticSeverity.Hint), code=m.id, source=SOURCE,
        related_information=_related(snap, m, path, start, end, lines), data={"memory": m.id})


def _citation_diagnostic(snap: Snapshot, m: Memory, c, path: str, start, end, lines) -> t.Diagnostic:
    if c.state == "drifted":
        message = (f"the code this {type_name(m.type)} cites changed since it was written: "
                   f"check it still holds, then re-anchor it. {plain(m.text)}")
    else:
        what = f"`{c.symbol}`" if c.symbol else f"lines {c.start_line}-{c.end_line}"
        message = f"{what}, cited by this {type_name(m.type)}, is gone: forget or re-teach it. {plain(m.text)}"
    return t.Diagnostic(
        range=line_range(lines, start or 1), message=message, severity=t.DiagnosticSeverity.Warning,
        code=m.id, source=SOURCE, related_information=_related(snap, m, path, start, end, lines),
        data={"memory": m.id, "citation": c.state})


def _pattern_hits(m: Memory, lines: list[str], limit: int = 10) -> list[t.Diagnostic]:
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
                message=f"{type_name(m.type)}: {plain(m.text)}", severity=severity, code=m.id, source=SOURCE,
                data={"memory": m.id, "match": m.match}))
            if len(out) >= limit:
                break
    return out
