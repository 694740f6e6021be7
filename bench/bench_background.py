"""Benchmark: what the server does on its own after the first index, with the settings a user has.

The server (`python -m memory_lsp serve --standalone`, stdio, a pytest-lsp client with VS Code's
capabilities) indexes a fresh workspace (copies of the standard library, bench_server.py's
`multi_copy_workspace`); from the end of that index, for `--seconds`, the client samples every
second the CPU the server and its children used and the server's RSS, and asks a hover every
`--hover-every` seconds on a random function of the workspace (the round trip it waits). Then it
shuts the server down and counts, in the index, the vectors written and the items that have none
(what embedding every item would still take), and reports the rate.

    python bench/bench_background.py [--copies 1] [--seconds 120] [--options '{"embeddings": {"background": false}}']
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_server  # noqa: E402
import corpora  # noqa: E402


async def run(args) -> dict:
    root = corpora.multi_copy_workspace(Path(args.workspace), args.copies, tuple(args.packages))
    bench_server.drop_index(root)
    plan = bench_server.make_plan(root, 200, args.seed)
    options = json.loads(args.options)
    session = bench_server.Session(root, Path(args.workspace) / "server.log", args.server, options)
    await session.start()
    session.initialized()
    indexed_s = await session.wait_indexed(args.timeout, 120)
    rng = random.Random(args.seed)
    uris = {f["path"]: session.open(f["path"]) for f in plan["files"][:20]}
    samples, hovers = [], []
    started, cpu0 = time.perf_counter(), session.cpu()
    last_cpu, last_t = cpu0, started
    next_sample = started + 1.0
    while time.perf_counter() - started < args.seconds:
        f = rng.choice(plan["files"][:20])
        _, ms = await session.hover(uris[f["path"]], f["line"] - 1, f["col"] + 6)
        hovers.append(ms)
        now = time.perf_counter()
        if now >= next_sample:
            cpu = session.cpu()
            samples.append({"t": round(now - started, 1), "cores": round((cpu - last_cpu) / (now - last_t), 2),
                            "rss_mb": round((bench_server.proc_status(session.pid, "VmRSS") or 0) / 1024)})
            last_cpu, last_t, next_sample = cpu, now, now + 1.0
        await asyncio.sleep(args.hover_every)
    window = time.perf_counter() - started
    cores = (session.cpu() - cpu0) / window
    await session.stop()
    vectors, pending = count_vectors(root)
    return {
        "workspace_files": plan["indexed_files"], "options": options, "first_index_s": round(indexed_s, 1),
        "window_s": round(window, 1), "cores_busy_mean": round(cores, 2),
        "rss_mb_end": samples[-1]["rss_mb"] if samples else None,
        "rss_mb_max": max((s["rss_mb"] for s in samples), default=None),
        "hover": bench_server.summary(hovers),
        "vectors_after": vectors, "items_without_vector": pending,
        "vectors_per_s": round(vectors / window, 1),
        "hours_to_embed_every_item_at_this_rate": round(pending / (vectors / window) / 3600, 2) if vectors else None,
        "cores_busy_last_30_s": round(statistics.fmean(s["cores"] for s in samples[-30:]), 2) if samples else None,
        "cores_by_second": [s["cores"] for s in samples],
    }


def count_vectors(root: Path) -> tuple[int, int]:
    """(vectors written, items with none) in the index once the server is gone."""
    from memory_lsp.store.search import ITEMS
    import duckdb

    con = duckdb.connect(str(root / ".memory" / "index.duckdb"), read_only=True)
    try:
        vectors = con.execute("SELECT count(*) FROM vectors").fetchone()[0]
        items = con.execute(f"SELECT count(*) FROM ({ITEMS})").fetchone()[0]
    finally:
        con.close()
    return vectors, items - vectors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--packages", nargs="*", default=[])
    ap.add_argument("--workspace", default="/tmp/bench-background")
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--hover-every", type=float, default=0.25)
    ap.add_argument("--options", default="{}", help="initializationOptions as JSON (default: none, as a user has)")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--server", nargs="+", default=bench_server.SERVER)
    args = ap.parse_args()
    out = asyncio.run(run(args))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
