"""Benchmark: is an incremental index of the standard library the graph a full index builds?

Each trial indexes the stdlib copy in full, adds one comment line at the top of N files (a
different random sample per trial; every line number in them moves), runs the incremental
index as `memory-lsp index` does (mtimes changed on disk), then indexes the same files afresh in
a new database and compares every edge (kind, ends, strategy, confidence, line, name). The files
are restored after each trial.

    python bench/bench_incremental_exact.py [--trials 5] [--files 100] [--show 10] [--editor]

`--editor`: each edited file is re-indexed on its own as an editor does (`Workspace.reindex` of
its buffer), and the comment line goes before a random line instead of the first (so the runs
that only move lines keep their edges: store/moved_lines.py).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402

EDGES = "SELECT src, dst, kind, src_path, dst_path, line, confidence, strategy, name FROM edges WHERE kind <> 'CO_CHANGES'"


def graph(ws: Workspace) -> Counter:
    return Counter(ws.store.cursor().execute(EDGES).fetchall())


def trial(root: Path, base_db: str, n_files: int, seed: int, show: int, editor: bool = False) -> dict:
    db = corpora.fresh_db(f"exact-inc-{seed}")
    shutil.copy(base_db, db)
    ws = Workspace.open(root, db=db)
    paths = [r[0] for r in ws.store.cursor().execute("SELECT path FROM files ORDER BY path").fetchall()]
    originals, rng = {}, random.Random(seed)
    for rel in rng.sample(paths, n_files):
        originals[rel] = (root / rel).read_bytes()
        lines = originals[rel].splitlines(keepends=True)
        at = rng.randrange(len(lines) + 1) if editor else 0
        (root / rel).write_bytes(b"".join(lines[:at]) + b"# an edit\n" + b"".join(lines[at:]))
    try:
        if editor:
            parsed = sum(ws.reindex({rel: (root / rel).read_bytes()}).parsed for rel in originals)
        else:
            parsed = ws.index().parsed
        incremental = graph(ws)
        unresolved_inc = _unresolved(ws)
        ws.close()
        fresh = Workspace.open(root, db=corpora.fresh_db(f"exact-full-{seed}"))
        fresh.index()
        full = graph(fresh)
        unresolved_full = _unresolved(fresh)
        fresh.close()
    finally:
        for rel, data in originals.items():
            (root / rel).write_bytes(data)
    lost, extra = full - incremental, incremental - full
    calls = lambda g: sum(n for e, n in g.items() if e[2] == "CALLS")  # noqa: E731
    return {
        "seed": seed, "parsed": parsed,
        "edges_full": sum(full.values()), "edges_incremental": sum(incremental.values()),
        "calls_full": calls(full), "calls_incremental": calls(incremental),
        "unresolved_calls_full": unresolved_full, "unresolved_calls_incremental": unresolved_inc,
        "lost": sum(lost.values()), "extra": sum(extra.values()),
        "lost_by_strategy": dict(Counter(e[7] for e in lost.elements())),
        "extra_by_strategy": dict(Counter(e[7] for e in extra.elements())),
        "lost_sample": [list(e) for e in sorted(lost, key=repr)[:show]],
        "extra_sample": [list(e) for e in sorted(extra, key=repr)[:show]],
    }


def _unresolved(ws: Workspace) -> int:
    """Call sites with no CALLS edge (the figure `memory-lsp status` reports)."""
    return ws.store.cursor().execute("""
        SELECT count(*) FROM refs r WHERE r.kind = 'call' AND NOT EXISTS (
            SELECT 1 FROM edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path AND e.line = r.line
              AND e.name = r.name)""").fetchone()[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--editor", action="store_true", help="re-index each edited file alone, as an editor does")
    args = ap.parse_args()
    root = corpora.stdlib_copy()
    base_db = corpora.fresh_db("exact-base")
    base = Workspace.open(root, db=base_db)
    base.index()
    base.close()
    results = []
    for seed in range(args.trials):  # one line per trial as it ends: a long run reports as it goes
        results.append(trial(root, base_db, args.files, seed, args.show, args.editor))
        print(json.dumps(results[-1]), flush=True)
    print(json.dumps({"trials": len(results), "files_edited": args.files,
                      "trials_exact": sum(r["lost"] == r["extra"] == 0 for r in results),
                      "lost": [r["lost"] for r in results], "extra": [r["extra"] for r in results]}))


if __name__ == "__main__":
    main()
