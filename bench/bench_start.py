"""An editor's start on a workspace indexed before (BENCHMARKS.md ax): open the index as the server
does, run the start's whole index (it finds nothing changed), then ask one hybrid search. Each
start in its own process, `--starts` in a row; per start: the run's wall time, RSS after it and
its peak, whether it left the search index stale, and the first search's wall time (a stale
search index is rebuilt inside it).

    python bench/bench_start.py --workspace <a built workspace> [--starts 3]

The first start after an index that changed files rebuilds the search index in its search; the
starts after it should not. Prints one JSON line per start.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024)
from memory_lsp.server import folders
from memory_lsp.workspace import Workspace
ws = Workspace.open(sys.argv[1], memory_limit_mb=folders.DUCKDB_MEMORY_MB)
t = time.perf_counter()
report = ws.index()
run_s = time.perf_counter() - t
out = {"run_s": round(run_s, 2), "code_changed": report.code_changed, "rss_after_run_mb": status("VmRSS"),
       "peak_mb": status("VmHWM"), "search_index_stale": ws.store.meta("fts_dirty") != "0"}
t = time.perf_counter()
ws.search("parse the configuration file")
out["first_search_s"] = round(time.perf_counter() - t, 2)
ws.close()
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", required=True, help="a workspace with its index built (.memory/index.duckdb)")
    ap.add_argument("--starts", type=int, default=3)
    args = ap.parse_args()
    for i in range(args.starts):
        done = subprocess.run([sys.executable, "-c", CHILD, args.workspace], capture_output=True, text=True,
                              env=os.environ)
        if done.returncode:
            sys.exit(done.stderr[-2000:])
        print(json.dumps({"start": i + 1, **json.loads(done.stdout.strip().splitlines()[-1])}))


if __name__ == "__main__":
    main()
