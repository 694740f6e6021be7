"""The commands that run on the index: search, context, expand, impact, stats, doctor, reindex.

Each needs an open `Workspace`; `commands.run` refuses them on an `OfflineWorkspace` with the
IndexBusy line. The search kind and mode are checked here, by their Params, and nowhere else.
"""

from __future__ import annotations

from memory_lsp.commands.spec import Command, Param

SEARCH_KINDS = ("memory", "code", "all")
SEARCH_MODES = ("hybrid", "bm25", "vector")


def search(ws, a, ctx) -> dict:
    out = ws.search(a.query, kind=a.kind, k=a.k, files=a.file, mode=a.mode, include_orphaned=a.orphaned)
    return {"results": out["results"], "query_type": out["query_type"], "note": out["note"]}


def context(ws, a, ctx) -> dict:
    from memory_lsp.retrieval import context as packing  # numpy and DuckDB load on first use

    return packing.pack(ws, a.file, a.query, a.budget)


def expand(ws, a, ctx) -> dict:
    from memory_lsp.retrieval import context as packing

    return packing.expand(ws, a.file)


def impact(ws, a, ctx) -> dict:
    return ws.impact(a.target, a.depth, a.min_confidence)


def stats(ws, a, ctx) -> dict:
    summary = ws.summary(a.top)
    if a.example and summary["central"]:
        summary["example"] = ws.impact(summary["central"][0]["path"], 2)
    return summary


def doctor(ws, a, ctx) -> dict:
    return ws.doctor()


def reindex(ws, a, ctx) -> dict:
    """Only `files` (read from disk) when given, else the whole workspace (incremental)."""
    if a.files:
        report = ws.reindex({path: None for path in a.files})
    else:
        report = ws.index(progress=ctx.progress, workers=a.workers)
    return {"files": report.files, "parsed": report.parsed, "unchanged": report.unchanged,
            "deleted": report.deleted, "skipped": dict(report.skipped), "seconds": round(report.seconds, 3),
            "recovered": report.recovered, **ws.summary()}


_INDEX = {"needs_index": True}

COMMANDS = (
    Command("memory.search", search, help="hybrid search over memories and code", **_INDEX, params={
        "query": Param(str, cli="positional"), "kind": Param(str, "all", choices=SEARCH_KINDS),
        "k": Param(int, 10), "file": Param(list, [], help="context: rank what is near this file higher"),
        "mode": Param(str, "hybrid", choices=SEARCH_MODES),
        "orphaned": Param(bool, False, help="include memories whose code is gone")}),
    Command("memory.context", context, help="what an agent should read first, within a token budget", **_INDEX,
            params={"file": Param(list, []), "query": Param(str, None),
                    "budget": Param(int, 2000, help="tokens (default 2000)")}),
    Command("memory.expand", expand, help="one file's relationships and memories", **_INDEX, params={
        "file": Param(str, cli="positional", metavar="PATH")}),
    Command("memory.impact", impact, help="what depends on a file or symbol", **_INDEX, params={
        "target": Param(str, cli="positional", help="path or path::Qualified.Name"), "depth": Param(int, 3),
        # 0.5 = graph.impact.DEFAULT_MIN_CONFIDENCE (tests/test_commands.py; importing graph here loads DuckDB)
        "min_confidence": Param(float, 0.5, help="list only what a path of edges this sure "
                                "reaches (default 0.5: leaves out a name guessed among several definitions)")}),
    Command("memory.stats", stats, help="files, symbols, edges, central files", **_INDEX, params={
        "top": Param(int, 10), "example": Param(bool, False, help="also show the impact of the most central file")}),
    Command("memory.doctor", doctor, help="health of the index", **_INDEX),
    Command("memory.reindex", reindex, cli="index", help="index the workspace (incremental)", timeout=None, **_INDEX,
            params={"files": Param(list, [], cli="none"),
                    "workers": Param(int, None, help="parse processes (default 2)")}),
)
