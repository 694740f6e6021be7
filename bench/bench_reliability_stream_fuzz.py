"""The JSON-RPC fuzzer of tests/reliability/test_stream_fuzz.py at a chosen size: every message
is followed by a probe request; prints, per mode (relay, standalone), the examples run, the
well-formed requests among them, the probe's latency (median, p99, max: the issue's bound is one
answer per request within 2 s) and the server's RSS at the end.

    python bench/bench_reliability_stream_fuzz.py --examples 5000
    python bench/bench_reliability_stream_fuzz.py --examples 2000 --minutes 60   # runs of new examples until then
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="messages per mode and run")
    parser.add_argument("--minutes", type=float, default=0, help="repeat runs (random, each new) until then")
    args = parser.parse_args()
    began, runs, failed = time.monotonic(), 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.jsonl"
        env = {**os.environ, "MEMORY_LSP_FUZZ_EXAMPLES": str(args.examples), "MEMORY_LSP_FUZZ_REPORT": str(report)}
        if args.minutes:
            env["MEMORY_LSP_FUZZ_RANDOM"] = "1"
        while runs == 0 or time.monotonic() - began < args.minutes * 60:
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                   "tests/reliability/test_stream_fuzz.py"], cwd=ROOT, env=env)
            runs, failed = runs + 1, failed + (done.returncode != 0)
        took = time.monotonic() - began
        rows = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    merged: dict[str, dict] = {}
    for row in rows:  # one line per mode and run
        into = merged.setdefault(row["mode"], {"mode": row["mode"], "examples": 0, "requests": 0, "latencies": [],
                                               "rss": 0})
        into["examples"] += row["examples"]
        into["requests"] += row["requests"]
        into["latencies"] += row["latencies"]
        into["rss"] = max(into["rss"], row["rss"])
    for row in merged.values():
        lat = sorted(row["latencies"])
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
        print(f"{row['mode']:>10}: {row['examples']} messages ({row['requests']} well-formed requests), "
              f"probe latency median {statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
              f"max {lat[-1] * 1000:.1f} ms, over 2 s: {sum(v > 2 for v in lat)}, RSS {row['rss'] / 2**20:.0f} MB")
    print(f"{runs} runs, {failed} failed, {took:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
