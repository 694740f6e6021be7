"""Where a warm server's memory goes (issue 13 item 4): the steps of a warm start, one process.

The server's own steps, in its order, on an index that is already built: the server's imports;
`Workspace.open` with the server's DuckDB limit (server/folders.py: DUCKDB_MEMORY_MB); the no-op
index run of a warm start; the impact graph's load, then the idle writer's settle (`Workspace.settle`:
DuckDB's cache handed back, where the version has it); the hovers' and lenses' reads (symbols and
counts of `--files` files); a graph that follows a one-file edit (a function appended, the
buffer re-indexed, then the index checkpointed as the server's writer does between edits),
and `--edits N - 1` more, then the idle writer's settle; the retriever's copies (two searches:
the second loads the BM25 postings and the file links), then the settle after a search, then
`--idle` seconds without a search (the retriever lets its copies go, where the version does). After
each: RSS (VmRSS), the peak so far (VmHWM), DuckDB's own memory (`duckdb_memory()`, by tag) and,
with `--trace`, the Python heap held and its peak in the step (tracemalloc: slower, so RSS figures
of a traced run are not the server's).

    python bench/bench_server_memory.py --workspace <a built workspace> [--files 200] [--edits 1] [--trace]

Prints one JSON line per step and a markdown table.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import sys
import time
from pathlib import Path


def status(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def duckdb_mb(ws) -> dict[str, float]:
    rows = ws.store.cursor().execute(
        "SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0").fetchall()
    return {tag: round(b / 2 ** 20, 1) for tag, b in rows}


class Steps:
    def __init__(self, trace: bool):
        self.trace = trace
        self.rows: list[dict] = []
        self.ws = None
        if trace:
            import tracemalloc

            tracemalloc.start()
        self.started = time.perf_counter()

    def done(self, name: str, **extra) -> None:
        row = {"step": name, "seconds": round(time.perf_counter() - self.started, 2),
               "rss_mb": round(status("VmRSS"), 1), "hwm_mb": round(status("VmHWM"), 1)}
        if self.ws is not None:
            db = duckdb_mb(self.ws)
            row["duckdb_mb"], row["duckdb_tags"] = round(sum(db.values()), 1), db
        if self.trace:
            import tracemalloc

            held, peak = tracemalloc.get_traced_memory()
            row["heap_mb"], row["heap_peak_mb"] = round(held / 2 ** 20, 1), round(peak / 2 ** 20, 1)
            tracemalloc.reset_peak()
        row.update(extra)
        self.rows.append(row)
        print(json.dumps(row), flush=True)
        self.started = time.perf_counter()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--edits", type=int, default=1, help="files edited (a function appended) and restored, one by one")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds without a search after which the retriever "
                    "lets its copies go (the server's is search.LET_GO_AFTER_S; versions without it keep them)")
    ap.add_argument("--out")
    args = ap.parse_args()
    steps = Steps(args.trace)
    steps.done("python")
    import numpy  # noqa: F401
    from lsprotocol import types  # noqa: F401

    from memory_lsp.server import folders, server  # noqa: F401
    from memory_lsp.workspace import Workspace
    steps.done("imports (server, lsprotocol, pygls, numpy)")

    ws = Workspace.open(args.workspace, memory_limit_mb=folders.DUCKDB_MEMORY_MB)
    steps.ws = ws
    steps.done("Workspace.open (DuckDB, memories)")
    report = ws.index()
    steps.done("no-op index run", parsed=report.parsed, files=report.files)
    # as the server's graph thread does: test selection built before the graph is published
    load = (lambda: ws.load_graph(prepare=True)) if "prepare" in inspect.signature(ws.load_graph).parameters \
        else ws.load_graph
    graph = load()
    steps.done("impact graph loaded", nodes=len(graph.names), steps=len(graph.step_node))
    # the server's writer (versions that have them): between edits it checkpoints; once idle (a
    # while after the last graph load, and after a search) it settles: DuckDB's cache handed back
    settle, checkpoint_edits = getattr(ws, "settle", None), getattr(ws, "checkpoint_edits", None)
    if settle is not None:
        settle()
        steps.done("idle: the writer settled")

    snap = ws.snapshot()
    paths = sorted(p for p, in ws.store.cursor().execute("SELECT path FROM files WHERE path LIKE '%.py'").fetchall())
    rng = random.Random(args.seed)
    chosen = rng.sample(paths, min(args.files, len(paths)))
    for path in chosen:
        snap.impact_counts(path, path, 2)
        for s in snap.symbols(path):
            snap.impact_counts(f"{path}::{s.qualname}", path, 2)
    steps.done("hovers and lenses of the files (symbols, counts)", files=len(chosen))
    del snap, graph  # a request holds its snapshot while it runs: kept here, the first graph would outlive the edits

    follows, checkpoints = [], []

    def checkpoint():
        if checkpoint_edits is not None:
            started = time.perf_counter()
            checkpoint_edits()
            checkpoints.append(round(time.perf_counter() - started, 3))

    for k, rel in enumerate(chosen[:args.edits]):
        target = Path(args.workspace) / rel
        text = target.read_bytes()
        try:
            ws.reindex({str(target): text + b"\n\ndef bench_memory_added(x):\n    return x.strip() + helper(x)\n"})
            started = time.perf_counter()
            load()
            follows.append(round(time.perf_counter() - started, 3))
            checkpoint()
        finally:
            ws.reindex({str(target): text})  # the index as it was
            load()
            checkpoint()
        if k == 0:
            steps.done("one file re-indexed, graph followed (and back)", follow_s=follows[0], checkpoint_s=checkpoints[:2])
    if args.edits > 1:
        steps.done(f"{args.edits - 1} more files, each edited and back", follow_s=follows[1:], checkpoint_s=checkpoints[2:])
    if settle is not None:
        settle()
        steps.done("idle after the edits: the writer settled")
    retriever = ws.retriever()
    if hasattr(retriever, "_idle"):
        retriever._idle.after = args.idle
    for query in ("parse a configuration file", "JSONDecoder"):
        ws.search(query, k=10)
    steps.done("retriever: two searches (BM25 postings, links)")
    if settle is not None:  # the server's writer after each search (versions that have it)
        settle()
        steps.done("after the searches: the writer settled")
    time.sleep(args.idle + 1.0)
    steps.done(f"{args.idle + 1.0:.0f} s without a search", copies_kept=retriever._content is not None)
    if args.out:
        Path(args.out).write_text(json.dumps(steps.rows, indent=1))
    print("| step | RSS MB | peak MB | DuckDB MB | heap MB (peak) | s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in steps.rows:
        heap = f"{r['heap_mb']} ({r['heap_peak_mb']})" if "heap_mb" in r else "-"
        print(f"| {r['step']} | {r['rss_mb']} | {r['hwm_mb']} | {r.get('duckdb_mb', '-')} | {heap} | {r['seconds']} |")
    ws.close()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
