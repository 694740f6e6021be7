"""The peak memory of a warm server's graph load (issue 13 items 4, 5; BENCHMARKS.md an).

A built workspace is opened as the server opens it (its DuckDB limit), the no-op index run made,
the peak (VmHWM) reset (`/proc/self/clear_refs`), and the graph loaded with its test selection as
the server's graph thread loads it. Prints RSS and peak in MB after each.

    python bench/bench_graph_load_peak.py <workspace>
"""

from __future__ import annotations

import inspect
import json
import sys


def status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return 0


def main() -> None:
    from memory_lsp.server import folders
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(sys.argv[1], memory_limit_mb=folders.DUCKDB_MEMORY_MB)
    ws.index()
    out = {"index": {"rss_mb": status("VmRSS"), "peak_mb": status("VmHWM")}}
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak from here on
    prepare = "prepare" in inspect.signature(ws.load_graph).parameters  # older code: the graph alone
    ws.load_graph(prepare=True) if prepare else ws.load_graph()
    out["graph and test selection" if prepare else "graph"] = {"rss_mb": status("VmRSS"), "peak_mb": status("VmHWM")}
    print(json.dumps(out))
    ws.close()


if __name__ == "__main__":
    main()
