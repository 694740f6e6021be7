"""Benchmark b: re-index one edited file (an editor buffer) in a full standard-library index.

Each round edits a different file (a new function appended, as a user would type), re-indexes
it through the service as the server does on save, and restores it. Reported: p50, p99, max.

    python bench/bench_incremental.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    root = corpora.stdlib_copy()
    ws = Workspace.open(root, db=corpora.fresh_db("incremental"))
    t0 = time.perf_counter()
    ws.index()
    full = time.perf_counter() - t0
    paths = [r[0] for r in ws.store.cursor().execute("SELECT path FROM files ORDER BY path").fetchall()]
    rng = random.Random(7)
    sample = rng.sample(paths, min(args.rounds, len(paths)))
    times, sizes = [], []
    for i, rel in enumerate(sample):
        original = (root / rel).read_bytes()
        edited = original + f"\n\ndef _bench_added_{i}(x):\n    return len(x)\n".encode()
        t = time.perf_counter()
        ws.reindex({rel: edited})
        times.append((time.perf_counter() - t) * 1000)
        ws.reindex({rel: original})  # back to the file on disk, untimed
        sizes.append(len(original))
    result = {
        "corpus": "stdlib", "files": len(paths), "rounds": len(times), "full_index_s": round(full, 2),
        "p50_ms": round(statistics.median(times), 1), "p99_ms": round(percentile(times, 99), 1),
        "max_ms": round(max(times), 1), "median_file_kb": round(statistics.median(sizes) / 1024, 1),
    }
    print(json.dumps(result, indent=2))
    ws.close()


if __name__ == "__main__":
    main()
