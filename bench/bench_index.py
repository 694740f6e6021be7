"""Benchmark a: full structural index against the bare tree-sitter parse + tags query.

Both run in this process tree on the same files, alternating, `--repeat` times; medians and the
ratio index/baseline are reported. Peak RSS is read from the resource module per child run; CPU
seconds (os.times) of the main process and of the workers are reported beside the wall time.
`--after-upgrade` times the whole run a user's first index after an upgrade makes (an index that
other rules built: every row made again, on the same file), instead of an index into a new file.

    python bench/bench_index.py [--corpus stdlib|django|PATH] [--repeat 3] [--workers 2] [--after-upgrade]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time
mode, root, db, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t0, c0 = time.perf_counter(), os.times()
if mode == "baseline":
    import tree_sitter
    from memory_lsp.index.discover import discover
    from memory_lsp.index import languages
    from memory_lsp.settings import Settings
    files, _ = discover(__import__("pathlib").Path(root), Settings())
    files = [c for c in files if c.lang in languages.registry()]
    t0, c0 = time.perf_counter(), os.times()
    loc = 0
    for c in files:
        with open(os.path.join(root, c.path), "rb") as fh:
            data = fh.read()
        loc += data.count(b"\n")
        tree = languages.parser(c.lang).parse(data)
        for _, caps in tree_sitter.QueryCursor(languages.tags_query(c.lang)).matches(tree.root_node):
            pass
    n = len(files)
else:
    from memory_lsp.workspace import Workspace
    ws = Workspace.open(root, db=db)
    if mode == "upgrade":  # rows older rules made: the run starts over (index/indexer.py)
        ws.store.set_meta("facts_version", "older rules")
    report = ws.index(workers=workers)
    n = report.parsed
    loc = ws.store.cursor().execute("SELECT sum(loc) FROM files").fetchone()[0]
    ws.close()
elapsed = time.perf_counter() - t0
c1 = os.times()  # CPU seconds: this process, and the worker processes it waited for
cpu_main = c1.user + c1.system - c0.user - c0.system
cpu_workers = c1.children_user + c1.children_system - c0.children_user - c0.children_system
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": elapsed, "files": n, "loc": int(loc or 0), "rss_mb": rss, "rss_children_mb": rss_children,
                  "cpu_main_s": cpu_main, "cpu_workers_s": cpu_workers}))
"""


def run_child(mode: str, root: Path, db: str, workers: int) -> dict:
    # `python -c` puts its working directory first on sys.path, ahead of PYTHONPATH: the child runs
    # in bench/ (no package here), so that PYTHONPATH=<another checkout> measures that checkout
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(root), db, str(workers)],
                         capture_output=True, text=True, check=True, cwd=Path(__file__).parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="stdlib")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--after-upgrade", action="store_true", help="time the whole run over an existing index")
    args = ap.parse_args()
    if args.corpus == "stdlib":
        root = corpora.stdlib_copy()
    elif os.path.isdir(args.corpus):
        root = Path(args.corpus).resolve()
    else:
        root = corpora.package_copy(args.corpus)
    base, full = [], []
    db = corpora.fresh_db(f"bench-{args.corpus.replace('/', '_')}")
    if args.after_upgrade:
        run_child("index", root, db, args.workers)  # the index an older version made (untimed)
    for _ in range(args.repeat):
        base.append(run_child("baseline", root, "", 0))
        if not args.after_upgrade:
            db = corpora.fresh_db(f"bench-{args.corpus.replace('/', '_')}")
        full.append(run_child("upgrade" if args.after_upgrade else "index", root, db, args.workers))
    b = statistics.median(r["seconds"] for r in base)
    f = statistics.median(r["seconds"] for r in full)
    files, loc = full[0]["files"], full[0]["loc"]
    result = {
        "corpus": args.corpus, "files": files, "loc": loc, "repeat": args.repeat, "workers": args.workers,
        "after_upgrade": args.after_upgrade,
        "baseline_parse_query_s": round(b, 2), "index_s": round(f, 2), "ratio": round(f / b, 2),
        "files_per_s": round(files / f), "loc_per_s": round(loc / f),
        "peak_rss_mb_main": round(max(r["rss_mb"] for r in full)),
        "peak_rss_mb_worker": round(max(r["rss_children_mb"] for r in full)),
        # CPU seconds do not depend on what else the machine runs as much as wall time does
        "cpu_baseline_s": round(statistics.median(r["cpu_main_s"] for r in base), 2),
        "cpu_index_main_s": round(statistics.median(r["cpu_main_s"] for r in full), 2),
        "cpu_index_workers_s": round(statistics.median(r["cpu_workers_s"] for r in full), 2),
        "runs_index_s": [round(r["seconds"], 2) for r in full],
        "runs_baseline_s": [round(r["seconds"], 2) for r in base],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
