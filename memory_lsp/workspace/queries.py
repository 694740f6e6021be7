"""The reads a workspace answers, each over one `Snapshot`: memories, search, impact, summary,
doctor, context and expand. None of them writes; the host keeps the snapshot current.
"""

from __future__ import annotations

import functools

from memory_lsp.errors import UserError
from memory_lsp.graph import overridden
from memory_lsp.graph.impact import DEFAULT_MIN_CONFIDENCE
from memory_lsp.index import extract, languages
from memory_lsp.memory import citations as cites
from memory_lsp.memory.book import select
from memory_lsp.memory.model import Memory, iso, parse_time
from memory_lsp.memory.ranking import file_order
from memory_lsp.store import SCHEMA_VERSION
from memory_lsp.store import attribute_reads, code, fulltext, reports, value_uses
from memory_lsp.workspace.snapshot import Snapshot

SEARCH_KINDS = ("memory", "code", "all")
SKIPPED_SHOWN = 50  # files named per skip reason (and per partial-index note) in doctor; the rest counted
SEARCH_MODES = ("hybrid", "bm25", "vector")


def memories(snap: Snapshot, **filters) -> list[Memory]:
    """Memories filtered as `select` does: from the snapshot, or at a past time (`at`) replayed
    from the log with today's citation states."""
    if filters.get("at"):
        found = list(snap.book.load(until=iso(parse_time(filters["at"]))).memories.values())
        lookup = snap.lookup()
        for m in found:
            for c in m.citations:
                cites.resolve(c, lookup)
    else:
        found = snap.memories.all
    if filters.get("file"):
        filters["file"] = snap.relpath(filters["file"])
        # the file's own memories before the rules that merely cover it (`ranking.file_order`)
        return sorted(select(found, **filters), key=file_order(filters["file"]))
    return select(found, **filters)


def search(snap: Snapshot, query: str, kind: str = "all", k: int = 10, files: list[str] = (), mode: str = "hybrid",
           include_orphaned: bool = False) -> dict:
    """Hybrid search over memories and code (arguments are checked by the command table)."""
    if not query.strip():
        raise UserError("an empty query: say what to look for")
    if k < 1:
        raise UserError(f"k must be at least 1, got {k}")
    return snap.retriever().search(query, kind=kind, k=k, files=[snap.relpath(f) for f in files], mode=mode,
                                   include_orphaned=include_orphaned, memories=snap.memories.as_dict())


def impact(snap: Snapshot, target: str, depth: int = 3, min_confidence: float | None = None) -> dict:
    """What depends on a file or `path::Symbol`, to `depth`, with the tests to run; only through
    edges at or above `min_confidence` (default: graph.impact.DEFAULT_MIN_CONFIDENCE)."""
    if depth < 1:
        raise UserError(f"depth must be at least 1, got {depth}")
    if min_confidence is None:
        min_confidence = DEFAULT_MIN_CONFIDENCE
    if not 0.0 <= min_confidence <= 1.0:
        raise UserError(f"min-confidence must be between 0 and 1, got {min_confidence}")
    graph = snap.impact_graph()  # it also knows the files, symbols and call sites: no query per answer
    path_part, _, symbol = target.partition("::")
    path = snap.relpath(path_part)
    if not graph.has_file(path):
        raise UserError(f"not an indexed file: {path_part} (run `memory-lsp index` first?)")
    node = path
    if symbol:
        node = f"{path}::{symbol}"
        if not graph.has_symbol(node):
            known = ", ".join(graph.qualnames(path)[:8])
            raise UserError(f"no symbol {symbol} in {path} (defined there: {known or 'none'})")
    deps, tests = graph.walk(node, path, depth, min_confidence)
    # every symbol on the answer's paths: an unresolved call of one of them may hide more
    # dependents (and for a file, every symbol defined in it)
    symbols = [d.node for d in deps if d.symbol] + ([node] if symbol else [])
    reads, reads_kind = _reads(snap, path, symbol)
    return {
        "target": node,
        "depth": depth,
        "min_confidence": min_confidence,
        "dependents": [{"path": d.path, "symbol": d.symbol, "depth": d.depth, "via": d.via,
                        "edge_kinds": d.edge_kinds, "score": d.score, "confidence": d.confidence,
                        "lines": d.lines}
                       for d in deps],
        "tests": tests,
        # call sites named like a symbol of the answer, in its language, that no edge this sure
        # resolves (nor a known type): each may reach the answer and hide more dependents
        "unresolved": graph.unresolved(symbols, None if symbol else path, min_confidence),
        # a method read as an attribute (a property, a callback handed on) has no edge from its readers
        "reads": [{"path": p, "symbol": q, "lines": lines} for p, q, lines in reads.shown],
        "reads_total": reads.total,
        "reads_kind": reads_kind,  # "attribute": `.name` found by name; "value": the name used where it is imported
        "reads_also_defined_in": reads.others,  # other classes with a method of the name: found by name
    }


def _reads(snap: Snapshot, path: str, symbol: str) -> tuple[attribute_reads.Reads, str | None]:
    """The uses without a call the graph has no edge for: a method's name read as an attribute
    (store/attribute_reads.py), a module's function or class used as a value where it is imported
    (store/value_uses.py); none for a file, a nested function or a dunder (Python's operators run those)."""
    leaf = symbol.rsplit(".", 1)[-1]
    kind = next((s.kind for s in snap.symbols(path) if s.qualname == symbol), None) if symbol else None
    language = languages.language_for(path)
    if kind is None or language is None:
        return attribute_reads.Reads([], 0, []), None
    syntax = attribute_reads.Syntax(language.name, language.line_comment, language.self_names)
    store = snap.store
    # the text read leaves DuckDB's cache (not beside a write under way)
    release = functools.partial(store.drop_cache, wait=False)
    if kind in ("function", "class") and symbol == leaf:
        return value_uses.users(store.cursor(), symbol, path, syntax, release=release,
                                module_text=functools.partial(_indexed_text, snap)), "value"
    if kind != "method" or (leaf.startswith("__") and leaf.endswith("__")):
        return attribute_reads.Reads([], 0, []), None
    family = overridden.family(snap.impact_graph(), f"{path}::{symbol.rpartition('.')[0]}")
    return attribute_reads.readers(store.cursor(), leaf, path, symbol, syntax, release=release,
                                   module_text=functools.partial(_indexed_text, snap), family=family), "attribute"


def _indexed_text(snap: Snapshot, path: str, words: list[str], indexed: str) -> str | None:
    """The file's text on disk when its hash is `indexed`, the index's (an editor's unsaved buffer or a
    later edit would put its lines elsewhere than the index's), "" when it holds none of `words` (no use
    there now), else None."""
    try:
        data = (snap.root / path).read_bytes()
    except OSError:
        return None
    if not any(w.encode() in data for w in words):
        return ""
    return data.decode("utf-8", "replace") if extract.content_hash(data) == indexed else None


def summary(snap: Snapshot, top: int = 10) -> dict:
    cur = snap.store.cursor()
    langs, edges, central = reports.languages(cur), reports.edge_kinds(cur), reports.most_depended_on(cur, top)
    return {
        "languages": [{"lang": lang, "files": n, "symbols": int(s)} for lang, n, s in langs],
        "edges": {k: n for k, n in edges},
        "central": [{"path": p, "dependents": r, "score": s} for p, r, s in central],
    }


def doctor(snap: Snapshot) -> dict:
    from memory_lsp.retrieval.embedder import default_status  # numpy loads only here

    store = snap.store
    cur = store.cursor()
    return {
        "workspace": str(snap.root),
        "database": store.path,
        "schema_version": int(store.meta("schema_version") or 0),
        "expected_schema_version": SCHEMA_VERSION,
        "extensions": store.extensions,
        "embedding_model": default_status(),
        "healthy": store.health_check(),
        "recovered": store.recovered,
        "counts": reports.table_counts(cur),
        "skipped": {r: n for r, n in reports.skip_reasons(cur)},
        "skipped_files": _skipped_files(cur),
        "partially_indexed": {n: c for n, c in reports.file_notes(cur)},
        "partially_indexed_files": _noted_files(cur),
        "unresolved_imports": code.unresolved_imports(cur),
        "unresolved_calls": reports.unresolved_calls(cur),
        "search_index": fulltext.status(store),
        "memory_log": snap.book.health(),
    }


def _skipped_files(cur) -> dict:
    """{reason: {"files": [{path, detail, size}], "more": files not named}}, most files first."""
    counts = reports.skip_reasons(cur)
    shown: dict[str, list] = {r: [] for r, _ in counts}
    for reason, path, detail, size in reports.skipped_files(cur, SKIPPED_SHOWN):
        shown[reason].append({"path": path, "detail": detail, "size": size})
    return {r: {"files": shown[r], "more": n - len(shown[r])} for r, n in counts}


def _noted_files(cur) -> dict:
    """{note such as invalid_utf8: {"files": [path], "more": files not named}}: indexed, but partly."""
    shown: dict[str, list] = {n: [] for n, _ in reports.file_notes(cur)}
    for note, path in reports.noted_files(cur, SKIPPED_SHOWN):
        shown[note].append(path)
    return {n: {"files": shown[n], "more": c - len(shown[n])} for n, c in reports.file_notes(cur)}
