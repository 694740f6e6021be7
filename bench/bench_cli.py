"""Benchmark da: CLI commands as an agent runs them, one process each, answered by the owner.

An agent calls `memory-lsp impact`, `search`, `memories`, ... one after another, each a new process
that asks this user's owner (server/owner.py). Measured: the wall time of each call, as the caller
sees it (process start to exit), `--rounds` calls of each command after one `memory-lsp index`,
with a fresh owner (a private runtime folder) and no editor window open. Reported per command: the
first call and the median and p90 of the calls after it; `python -c pass` as the floor. DESIGN.md
section 7: "a CLI command answered by a running owner in <= 150 ms".

    python bench/bench_cli.py [--corpus django|stdlib|PATH] [--rounds 10] [--target PATH::SYMBOL]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

DJANGO_TARGET = "django/db/models/query.py::QuerySet.filter"


def timed(cmd: list[str], env: dict) -> float:
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="django")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--target", help="the symbol `impact` asks about (default: Django's QuerySet.filter)")
    args = ap.parse_args()
    root = corpora.stdlib_copy() if args.corpus == "stdlib" else Path(args.corpus).resolve() \
        if os.path.isdir(args.corpus) else corpora.package_copy(args.corpus)
    target = args.target or DJANGO_TARGET
    runtime = tempfile.mkdtemp(prefix="cli-owner-", dir="/tmp")  # a fresh owner, this run's alone
    env = dict(os.environ, MEMORY_LSP_RUNTIME_DIR=runtime)
    env.pop("MEMORY_LSP_NO_OWNER", None)
    cli = [sys.executable, "-m", "memory_lsp"]
    index_s = timed(cli + ["index", str(root), "--json"], env)
    commands = {
        "stats": ["stats", "--json"],
        "memories": ["memories", "--json"],
        "search": ["search", "queryset filter", "--json"],
        "impact": ["impact", target, "--json"],
        "context": ["context", "--query", "how is a queryset filtered", "--json"],
    }
    floor = statistics.median(timed([sys.executable, "-c", "pass"], env) for _ in range(5))
    rows = {}
    try:
        for name, argv in commands.items():
            calls = [timed(cli + argv[:1] + ["-w", str(root)] + argv[1:], env) for _ in range(args.rounds)]
            later = sorted(calls[1:])
            rows[name] = {"first_ms": round(calls[0] * 1000, 1), "p50_ms": round(statistics.median(later) * 1000, 1),
                          "p90_ms": round(later[int(0.9 * (len(later) - 1))] * 1000, 1)}
    finally:  # this run's owner goes with it (it would hold the index until it idles out)
        for info in Path(runtime).glob("owner-*.json"):
            with contextlib.suppress(OSError, ValueError, KeyError):
                os.kill(json.loads(info.read_text())["pid"], signal.SIGTERM)
    result = {"corpus": str(root), "rounds": args.rounds, "index_s": round(index_s, 2),
              "python_start_ms": round(floor * 1000, 1), "commands": rows,
              "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"}
    print(json.dumps(result, indent=2))
    print("\n| command | first call ms | later p50 ms | later p90 ms |\n| --- | --- | --- | --- |")
    for name, row in rows.items():
        print(f"| {name} | {row['first_ms']} | {row['p50_ms']} | {row['p90_ms']} |")


if __name__ == "__main__":
    main()
