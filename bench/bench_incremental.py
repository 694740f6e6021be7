"""Benchmark b: re-index one edited file (an editor buffer) in a full standard-library index.

Each round edits a different file (a new function appended, as a user would type), re-indexes
it through the service as the server does on save, and restores it. Reported: p50, p99, max.
`--statements` also times every SQL statement of the timed re-indexes and prints where the time went;
`--from-db` starts from a copy of an index of the same copy built earlier (no full index in the run).
CPU time (the process's, all threads) is reported beside wall time: on a loaded machine it is the work.

`--profile` runs the timed re-indexes under cProfile and prints the functions with the most own time.

`--graph` times the edit as the server does it: buffer in -> index run (with the memory sync
after it) -> the impact graph followed (`Workspace.load_graph`, which the folder's graph thread
runs after every re-index; lenses and impact read that graph); `--lens` also prepares each graph's
test selection, as that thread does, and asks the edited file's first lens. `--edit comment`
types a comment line above everything instead of a function at the end. The graph is loaded whole once
before the rounds (untimed); the restore of each file is followed too (untimed).

    python bench/bench_incremental.py [--rounds 200] [--statements] [--profile] [--graph] [--from-db PATH] [--copies N]
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import pstats
import json
import random
import re
import shutil
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


class TimedConnection:
    """The writer's connection with each statement's time added up by its first words."""

    def __init__(self, conn):
        self._conn, self.on, self.seconds, self.cpu = conn, False, collections.Counter(), collections.Counter()

    def execute(self, query, parameters=None):
        t, c = time.perf_counter(), time.process_time()
        try:
            return self._conn.execute(query) if parameters is None else self._conn.execute(query, parameters)
        finally:
            if self.on:
                key = re.sub(r"\s+", " ", re.sub(r"\(('[^']*'(, )?)+\)", "(...)", query)).strip()[:100]
                self.seconds[key] += time.perf_counter() - t
                self.cpu[key] += time.process_time() - c  # an editor's run keeps DuckDB on this thread

    def __getattr__(self, name):
        return getattr(self._conn, name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--statements", action="store_true", help="time every SQL statement of the timed runs")
    ap.add_argument("--profile", action="store_true", help="cProfile the timed runs")
    ap.add_argument("--profile-sort", default="tottime", help="pstats order: tottime (own time) or cumulative")
    ap.add_argument("--graph", action="store_true", help="time the graph's follow after each re-index too")
    ap.add_argument("--lens", action="store_true", help="with --graph: and the edited file's first lens count "
                    "(a new graph builds test selection's arrays on its first question)")
    ap.add_argument("--edit", choices=("function", "comment"), default="function",
                    help="what each round types: a function appended, or a comment line above everything "
                    "(every line moves, no call changes)")
    ap.add_argument("--copies", type=int, default=1, help="edit a workspace of this many copies of the stdlib "
                    "(tests included; 6: 10,740 files)")
    ap.add_argument("--from-db", help="a copy of this index is the start (built by a full index of the same copy)")
    args = ap.parse_args()
    root = corpora.stdlib_copies(args.copies)
    db = corpora.fresh_db("incremental" if args.copies <= 1 else f"incremental-x{args.copies}")
    if args.from_db:
        shutil.copy(args.from_db, db)
    ws = Workspace.open(root, db=db)
    t0 = time.perf_counter()
    if not args.from_db:
        ws.index()
    full = time.perf_counter() - t0
    graph_load = None
    if args.graph:
        t0 = time.perf_counter()
        ws.load_graph(prepare=args.lens)
        graph_load = time.perf_counter() - t0
    timed = ws.store.conn = TimedConnection(ws.store.conn)
    paths = [r[0] for r in ws.store.cursor().execute("SELECT path FROM files ORDER BY path").fetchall()]
    rng = random.Random(7)
    sample = rng.sample(paths, min(args.rounds, len(paths)))
    times, cpu, sizes = [], [], []
    profiler = cProfile.Profile() if args.profile else None
    outcome = collections.Counter()  # --lens: what each round's graph did with test selection
    for i, rel in enumerate(sample):
        original = (root / rel).read_bytes()
        reach_before = ws._graph.__dict__.get("_reach") if args.graph and ws._graph is not None else None
        if args.edit == "comment":
            edited = f"# bench edit {i}\n".encode() + original
        else:
            edited = original + f"\n\ndef _bench_added_{i}(x):\n    return len(x)\n".encode()
        timed.on = args.statements
        t, c = time.perf_counter(), time.process_time()
        if profiler:
            profiler.enable()
        ws.reindex({rel: edited})
        if args.graph:
            graph = ws.load_graph(prepare=args.lens)  # as the server's graph thread
            if args.lens:
                graph.counts(rel, rel, 3, 0.5)
                now = graph.__dict__.get("_reach")  # test selection: the last graph's, grown from it, or built
                outcome["carried" if now is reach_before else "grown"
                        if now is not None and reach_before is not None and now.memo is reach_before.memo else "built"] += 1
        if profiler:
            profiler.disable()
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        timed.on = False
        ws.reindex({rel: original})  # back to the file on disk, untimed
        if args.graph:
            ws.load_graph(prepare=args.lens)
        sizes.append(len(original))
    result = {
        "mode": (args.edit + " edit + graph followed" + (" + first lens" if args.lens else "")) if args.graph else args.edit + " edit", "corpus": "stdlib" if args.copies <= 1 else f"stdlib x{args.copies}", "files": len(paths), "rounds": len(times), "full_index_s": round(full, 2),
        "p50_ms": round(statistics.median(times), 1), "p99_ms": round(percentile(times, 99), 1),
        "max_ms": round(max(times), 1), "first_round_ms": round(times[0], 1),  # the first edit after the load
        "cpu_p50_ms": round(statistics.median(cpu), 1),
        "cpu_p99_ms": round(percentile(cpu, 99), 1), "median_file_kb": round(statistics.median(sizes) / 1024, 1),
    }
    if graph_load is not None:
        result["first_graph_load_s"] = round(graph_load, 2)
    if args.lens:
        result["test_selection"] = dict(outcome)
    if args.statements:
        result["sql_ms_per_round"] = round(sum(timed.seconds.values()) * 1000 / len(times), 1)
        result["top_statements_ms_per_round"] = {k: round(v * 1000 / len(times), 1)
                                                for k, v in timed.seconds.most_common(15)}
        result["sql_cpu_ms_per_round"] = round(sum(timed.cpu.values()) * 1000 / len(times), 1)
        result["top_statements_cpu_ms_per_round"] = {k: round(v * 1000 / len(times), 1)
                                                    for k, v in timed.cpu.most_common(25)}
    print(json.dumps(result, indent=2))
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.profile_sort).print_stats(40)
        print(out.getvalue())
    ws.close()


if __name__ == "__main__":
    main()
