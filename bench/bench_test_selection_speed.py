"""Benchmark aa (speed): what test selection from calls costs a lens or hover: `counts` (the
dependents and the tests a lens shows) per symbol and per file, on a fresh graph (no memo).

    python bench/bench_test_selection_speed.py                  # Django's package (bench/corpora.py)
    PYTHONPATH=<base source> python bench/bench_test_selection_speed.py   # the same on a base commit

Prints the medians, 90th percentiles and totals in milliseconds over 300 sampled symbols and the
100 files they are in (the same sample for every run: seeded).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

from memory_lsp.graph.impact import ImpactGraph  # noqa: E402
from memory_lsp.workspace import Workspace  # noqa: E402


def timed(graph: ImpactGraph, targets: list[tuple[str, str]]) -> dict:
    times = []
    for target, path in targets:
        t = time.perf_counter()
        graph.counts(target, path, 3, 0.5)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return {"n": len(times), "median_ms": round(times[len(times) // 2], 3),
            "p90_ms": round(times[int(len(times) * 0.9)], 3), "total_ms": round(sum(times), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", default="django")
    args = ap.parse_args()
    ws = Workspace.open(corpora.package_copy(args.package), db=corpora.fresh_db(f"select-{args.package}"))
    ws.index()
    out = {"package": args.package}
    load = time.perf_counter()
    graph = ImpactGraph.load(ws.store)  # includes the reads test selection keeps (store/test_reads.py)
    out["load_ms"] = round((time.perf_counter() - load) * 1000, 1)
    out["nodes"], out["test_files"] = len(graph.names), int(graph.is_test.sum())
    symbols = sorted(n for n in graph.names if "::" in n)
    sample = random.Random(1).sample(symbols, min(300, len(symbols)))
    files = sorted({s.partition("::")[0] for s in sample})[:100]
    first = time.perf_counter()
    graph.counts(files[0], files[0], 3, 0.5)  # the first question builds what selection keeps per graph
    out["first_ms"] = round((time.perf_counter() - first) * 1000, 1)
    out["symbols"] = timed(graph, [(s, s.partition("::")[0]) for s in sample])
    out["files"] = timed(graph, [(f, f) for f in files[1:]])
    ws.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
