"""The commands that run on the index: search, context, expand, impact, stats, doctor, reindex
(registered in `commands.COMMANDS`). Each asks `target.workspace()`, which raises IndexBusy when
another process owns the index.
"""

from __future__ import annotations

from memory_lsp.commands import Param, command

SEARCH_KINDS = ("memory", "code", "all")
SEARCH_MODES = ("hybrid", "bm25", "vector")


@command("memory.search", needs_index=True, query=Param(str), kind=Param(str, "all", choices=SEARCH_KINDS),
         k=Param(int, 10), file=Param(list, []), mode=Param(str, "hybrid", choices=SEARCH_MODES),
         orphaned=Param(bool, False))
def search(t, a) -> dict:
    out = t.workspace().search(a.query, kind=a.kind, k=a.k, files=a.file, mode=a.mode, include_orphaned=a.orphaned)
    return {"results": out["results"], "query_type": out["query_type"], "note": out["note"]}


@command("memory.context", needs_index=True, file=Param(list, []), query=Param(str, None), budget=Param(int, 2000))
def context(t, a) -> dict:
    from memory_lsp.retrieval import context as ctx  # numpy and DuckDB load on first use

    return ctx.pack(t.workspace(), a.file, a.query, a.budget)


@command("memory.expand", needs_index=True, file=Param(str))
def expand(t, a) -> dict:
    from memory_lsp.retrieval import context as ctx

    return ctx.expand(t.workspace(), a.file)


@command("memory.impact", needs_index=True, target=Param(str), depth=Param(int, 3))
def impact(t, a) -> dict:
    return t.workspace().impact(a.target, a.depth)


@command("memory.stats", needs_index=True, top=Param(int, 10), example=Param(bool, False))
def stats(t, a) -> dict:
    ws = t.workspace()
    summary = ws.summary(a.top)
    if a.example and summary["central"]:
        summary["example"] = ws.impact(summary["central"][0]["path"], 2)
    return summary


@command("memory.doctor", needs_index=True)
def doctor(t, a) -> dict:
    return t.workspace().doctor()


@command("memory.reindex", needs_index=True, timeout=None, files=Param(list, []), workers=Param(int, None))
def reindex(t, a) -> dict:
    """Only `files` (read from disk) when given, else the whole workspace (incremental)."""
    ws = t.workspace()
    if a.files:
        report = ws.reindex({path: None for path in a.files})
    else:
        report = ws.index(progress=t.progress, workers=a.workers)
    return {"files": report.files, "parsed": report.parsed, "unchanged": report.unchanged,
            "deleted": report.deleted, "skipped": dict(report.skipped), "seconds": round(report.seconds, 3),
            "recovered": report.recovered, **ws.summary()}
