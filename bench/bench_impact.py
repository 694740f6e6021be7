"""Benchmark d: `impact` at depth 3 on the standard-library index, in process (as the server).

Targets: 200 ordinary files (random), the 20 most depended-on files, and 200 random symbols.
The in-memory graph is loaded once; its load time and its size (Python heap by tracemalloc,
and the process's RSS before and after) are reported separately. Then the code lenses of every
file, as the server computes them (`lenses_for`: a count per function and class), each file
once with the graph just loaded: p50, p99 and the worst files.

    python bench/bench_impact.py [--db existing-stdlib-index.duckdb]

`--db` reuses an index already built over `corpora.stdlib_copy()` (the same one for a base and a
branch run); without it the stdlib is indexed first.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
from bench_incremental import percentile  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402


def timed(ws, targets):
    times, sizes = [], []
    for target in targets:
        t = time.perf_counter()
        result = ws.impact(target, depth=3)
        times.append((time.perf_counter() - t) * 1000)
        sizes.append(len(result["dependents"]))
    return {"n": len(times), "p50_ms": round(statistics.median(times), 2),
            "p99_ms": round(percentile(times, 99), 2), "max_ms": round(max(times), 2),
            "median_dependents": statistics.median(sizes), "max_dependents": max(sizes)}


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def graph_size(ws) -> dict:
    """Load time and size of the graph: RSS around one load, then the heap it holds (tracemalloc,
    a second load after the first is dropped)."""
    gc.collect()
    before = rss_mb()
    t = time.perf_counter()
    ws.load_graph()
    load = time.perf_counter() - t
    after = rss_mb()
    ws._graph, ws._graph_generation = None, -1  # drop it: the traced load below replaces it
    gc.collect()
    tracemalloc.start()
    ws.load_graph()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"graph_load_s": round(load, 2), "rss_before_mb": round(before, 1), "rss_after_mb": round(after, 1),
            "rss_delta_mb": round(after - before, 1), "heap_held_mb": round(held / 2**20, 1),
            "heap_peak_while_loading_mb": round(peak / 2**20, 1),
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def lenses(ws, files) -> dict:
    from memory_lsp.server.features.code_lens import lenses_for

    snap = ws.snapshot()
    times = []
    for path in files:
        t = time.perf_counter()
        n = len(lenses_for(snap, f"file:///stdlib/{path}", path))
        times.append(((time.perf_counter() - t) * 1000, path, n))
    ms = [x for x, _p, _n in times]
    worst = sorted(times, reverse=True)[:5]
    return {"files": len(ms), "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(percentile(ms, 99), 2),
            "total_s": round(sum(ms) / 1000, 1),
            "worst": [{"path": p, "ms": round(x, 1), "lenses": n} for x, p, n in worst]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", help="an existing index of corpora.stdlib_copy()")
    args = parser.parse_args()
    root = corpora.stdlib_copy()
    ws = Workspace.open(root, db=args.db or corpora.fresh_db("impact"))
    if not args.db:
        ws.index()
    cur = ws.store.cursor()
    size = graph_size(ws)
    rng = random.Random(11)
    files = [r[0] for r in cur.execute("SELECT path FROM files ORDER BY path").fetchall()]
    hubs = [r[0] for r in cur.execute("SELECT path FROM files ORDER BY reach DESC LIMIT 20").fetchall()]
    symbols = [r[0] for r in cur.execute("SELECT id FROM symbols ORDER BY id").fetchall()]
    result = {
        "corpus": "stdlib", **size,
        "edges": cur.execute("SELECT count(*) FROM edges").fetchone()[0],
        "ordinary_files": timed(ws, rng.sample(files, 200)),
        "most_depended_on_files": timed(ws, hubs),
        "symbols": timed(ws, rng.sample(symbols, 200)),
        "lenses_every_file": lenses(ws, files),
    }
    print(json.dumps(result, indent=2))
    ws.close()


if __name__ == "__main__":
    main()
