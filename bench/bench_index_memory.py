"""Where a full index run's memory goes (BENCHMARKS.md z, bo): the process RSS sampled every 20 ms
(/proc/self/status) and its peak per phase (the writes, import resolution, each statement of call
resolution, edges, promotions, fingerprints, the commit, scores), DuckDB's own accounting after each
(`duckdb_memory()`: memory in use and spilled to the temp directory; `--tags`: by tag), wall time per
phase and the main process' CPU. ru_maxrss is the truth: a spike between two samples escapes them.
`--trace` adds tracemalloc's view of the Python heap after the writes (slow: several times the run).

    python bench/bench_index_memory.py ROOT DB [--workers 2] [--tags] [--trace]   (DB is deleted first)
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import resource
import threading
import time
import types


def rss_mb() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


TAGS = ("SELECT tag, memory_usage_bytes // 1048576, temporary_storage_bytes // 1048576 FROM duckdb_memory() "
        "WHERE memory_usage_bytes > 1048576 OR temporary_storage_bytes > 1048576")
DUCK = ("SELECT sum(memory_usage_bytes) // 1048576, sum(temporary_storage_bytes) // 1048576 "
        "FROM duckdb_memory()")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("db")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--tags", action="store_true", help="DuckDB's memory by tag after each resolution statement")
    args = ap.parse_args()
    for suffix in ("", ".wal"):
        if os.path.exists(args.db + suffix):
            os.remove(args.db + suffix)
    phase, peak, wall, duck, tags = ["start"], collections.defaultdict(int), collections.Counter(), {}, {}

    def sample():
        while True:
            now, label = rss_mb(), phase[0]
            peak[label] = max(peak[label], now)
            time.sleep(0.02)

    # a thread makes the indexer start its workers from a fork server (as in the owner process)
    threading.Thread(target=sample, daemon=True).start()
    from memory_lsp.graph import promotions, resolution, scoring
    from memory_lsp.index import indexer
    from memory_lsp.store import calls, edges
    from memory_lsp.store.db import Store
    from memory_lsp.workspace import Workspace, host

    def timed(obj, name, label):
        fn = getattr(obj, name)

        def run(*a, **k):
            before, phase[0], t = phase[0], label, time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                wall[label] += time.perf_counter() - t
                phase[0] = before
        setattr(obj, name, run)

    class Statements:  # the resolution's cursor, each statement timed and sampled on its own
        def __init__(self, cur):
            # duckdb_memory() is the database's: read through a cursor of its own, so that the
            # statement's result stays on `cur` for the caller to fetch
            self.cur, self.n, self.probe = cur, 0, cur.cursor()

        def execute(self, sql, *a):
            self.n += 1
            label = f"  resolution {self.n:2d}: " + " ".join(sql.split())[:70]
            before, phase[0], t = phase[0], label, time.perf_counter()
            try:
                return self.cur.execute(sql, *a)
            finally:
                wall[label] += time.perf_counter() - t
                phase[0] = before
                duck[label] = self.probe.execute(DUCK).fetchall()[0]
                if args.tags:  # in use / spilled MB of each tag holding more than 1 MB
                    tags[label] = self.probe.execute(TAGS).fetchall()

        def __getattr__(self, name):
            return getattr(self.cur, name)

    resolve_refs = calls.resolve_refs
    calls.resolve_refs = lambda store, cur, *a, **k: resolve_refs(store, Statements(cur), *a, **k)
    timed(indexer._Writer, "add", "writes (_Writer.add)")
    finish = indexer._Writer.finish

    def finish_noted(self, root, *rest):
        duck["writes (_Writer.add)"] = self.cur.execute(DUCK).fetchall()[0]
        if args.trace:
            import tracemalloc
            now, top = tracemalloc.get_traced_memory()
            print(f"python heap after the writes: {now // 2**20} MB (peak {top // 2**20} MB)")
            for stat in tracemalloc.take_snapshot().statistics("lineno")[:8]:
                print("   ", stat)
        return finish(self, root, *rest)
    indexer._Writer.finish = finish_noted
    timed(indexer._Writer, "finish", "import resolution (finish)")
    timed(resolution, "resolve_all", "call resolution (resolve_all)")
    timed(edges, "rebuild_import_edges", "IMPORTS edges")
    timed(edges, "rebuild_documents", "DOCUMENTS edges")
    timed(promotions, "rebuild", "promotions")
    timed(indexer, "_refresh_history", "git history")
    timed(edges, "fill_fingerprints", "fingerprints")
    # the passes are bound into PASSES when workspace/host.py is imported: the scores timed there
    scores = types.SimpleNamespace(score=host.PASSES.score)
    timed(scores, "score", "scores")
    host.PASSES = host.PASSES._replace(score=scores.score)
    begin = Store.transaction

    @contextlib.contextmanager
    def transaction(store):  # the commit is a phase of its own (a whole run is one transaction)
        with begin(store) as cur:
            yield cur
            phase[0] = "commit"
    Store.transaction = transaction
    if args.trace:
        import tracemalloc
        tracemalloc.start()
    ws = Workspace.open(args.root, db=args.db)
    print("settings:", ws.store.conn.execute(
        "SELECT current_setting('memory_limit'), current_setting('temp_directory'), current_setting('threads')"
    ).fetchall()[0], "RSS after open:", rss_mb(), "MB")
    phase[0] = "the rest of Workspace.index (parse wait, commit, memories)"
    t, c0 = time.perf_counter(), os.times()
    report = ws.index(workers=args.workers)
    wall["total"] = time.perf_counter() - t
    c1 = os.times()
    phase[0] = "end"
    print(f"{report.parsed} files parsed")
    print(f"{'wall s':>7} {'peak RSS MB':>11} {'duckdb MB in use / spilled':>27}  phase")
    order = sorted(wall, key=lambda k: (k.startswith("  "), -wall[k]))
    for label in order + [k for k in peak if k not in wall and k != "end"]:
        used = duck.get(label)
        print(f"{wall.get(label, 0):7.2f} {peak.get(label, 0):11d} {str(used[0]) + ' / ' + str(used[1]) if used else '':>27}  {label}")
    for label, rows in tags.items():
        print(f"{label[:60]}: " + ", ".join(f"{tag} {used} / {spilled}" for tag, used, spilled in rows))
    print("main process CPU s:", round(c1.user + c1.system - c0.user - c0.system, 2),
          "peak RSS (ru_maxrss) MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    ws.close()


if __name__ == "__main__":  # a fork-server worker imports this module: nothing runs there
    main()
