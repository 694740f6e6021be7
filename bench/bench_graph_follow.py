"""From "re-index done" to "new graph published" after one edited file, as the server does it.

Each round edits a different file of a standard-library index (a function appended that calls
a function of another file, as a user would type), re-indexes the buffer (`Workspace.reindex`,
untimed), then times `Workspace.load_graph()`: the folder's graph thread runs it after every
re-index, and the new snapshot is published at its end. On code before graph/follow.py that is
a whole load; after it, a graph that follows the last one. The file is restored afterwards
(untimed, its graph too). CPU time (the process's, all threads) is reported beside wall time.

    python bench/bench_graph_follow.py --db <an index of corpora.stdlib_copy()> [--rounds 30]
    python bench/bench_graph_follow.py --root <a workspace> --db <its index> [--rounds 30]
    python bench/bench_graph_follow.py ... --edit comment   (a comment line typed above everything instead)

The index is copied first (the rounds write to the copy).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
from bench_incremental import percentile  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50_ms": round(statistics.median(values), 1),
            "p99_ms": round(percentile(values, 99), 1), "max_ms": round(max(values), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True, help="an index of corpora.stdlib_copy() (copied, not changed)")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--root", help="the workspace the index is of (default: corpora.stdlib_copy())")
    ap.add_argument("--edit", choices=("function", "comment"), default="function")
    args = ap.parse_args()
    root = Path(args.root) if args.root else corpora.stdlib_copy()
    db = corpora.fresh_db("graph-follow")
    shutil.copy(args.db, db)
    ws = Workspace.open(root, db=db)
    started = time.perf_counter()
    ws.load_graph()
    first = time.perf_counter() - started
    cur = ws.store.cursor()
    paths = [r[0] for r in cur.execute("SELECT path FROM files WHERE path LIKE '%.py' ORDER BY path").fetchall()]
    rng = random.Random(7)
    wall, cpu = [], []
    for i, rel in enumerate(rng.sample(paths, min(args.rounds, len(paths)))):
        original = (root / rel).read_bytes()
        edited = b"# typed\n" + original if args.edit == "comment" else \
            original + f"\n\ndef _bench_follow_{i}(x):\n    return dumps(x)\n".encode()
        ws.reindex({rel: edited})
        t, c = time.perf_counter(), time.process_time()
        ws.load_graph()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        ws.reindex({rel: original})  # back to the file on disk, untimed
        ws.load_graph()
    edges = cur.execute("SELECT count(*) FROM edges").fetchone()[0]
    print(json.dumps({"corpus": str(args.root or "stdlib"), "edit": args.edit, "files": len(paths), "edges": edges,
                      "first_whole_load_s": round(first, 2), "wall": summary(wall), "cpu": summary(cpu)}, indent=2))
    ws.close()


if __name__ == "__main__":
    main()
