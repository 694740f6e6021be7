"""Benchmark d: `impact` at depth 3 on the standard-library index, in process (as the server).

Targets: 200 ordinary files (random), the 20 most depended-on files, and 200 random symbols.
The in-memory graph is loaded once (its load time is reported separately).

    python bench/bench_impact.py
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
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


def main() -> None:
    root = corpora.stdlib_copy()
    ws = Workspace.open(root, db=corpora.fresh_db("impact"))
    ws.index()
    cur = ws.store.cursor()
    t = time.perf_counter()
    ws.impact_graph()
    load = time.perf_counter() - t
    rng = random.Random(11)
    files = [r[0] for r in cur.execute("SELECT path FROM files ORDER BY path").fetchall()]
    hubs = [r[0] for r in cur.execute("SELECT path FROM files ORDER BY reach DESC LIMIT 20").fetchall()]
    symbols = [r[0] for r in cur.execute("SELECT id FROM symbols ORDER BY id").fetchall()]
    result = {
        "corpus": "stdlib", "graph_load_s": round(load, 2),
        "edges": cur.execute("SELECT count(*) FROM edges").fetchone()[0],
        "ordinary_files": timed(ws, rng.sample(files, 200)),
        "most_depended_on_files": timed(ws, hubs),
        "symbols": timed(ws, rng.sample(symbols, 200)),
    }
    print(json.dumps(result, indent=2))
    ws.close()


if __name__ == "__main__":
    main()
