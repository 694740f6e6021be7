"""The JSON-RPC fuzzer of tests/reliability/test_stream_fuzz.py at a chosen size: every message
is followed by a probe request; prints, per mode (relay, standalone), the examples run, the
well-formed requests among them, the probe's latency (median, p99, max: the issue's bound is one
answer per request within 2 s) and the server's RSS at the end.

    python bench/bench_reliability_stream_fuzz.py --examples 5000
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
    parser.add_argument("--examples", type=int, default=2000, help="messages per mode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.jsonl"
        env = {**os.environ, "MEMORY_LSP_FUZZ_EXAMPLES": str(args.examples), "MEMORY_LSP_FUZZ_REPORT": str(report)}
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/reliability/test_stream_fuzz.py"], cwd=ROOT, env=env)
        took = time.monotonic() - began
        rows = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    for row in rows:
        lat = sorted(row["latencies"])
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
        print(f"{row['mode']:>10}: {row['examples']} messages ({row['requests']} well-formed requests), "
              f"probe latency median {statistics.median(lat) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
              f"max {lat[-1] * 1000:.1f} ms, over 2 s: {sum(v > 2 for v in lat)}, RSS {row['rss'] / 2**20:.0f} MB")
    print(f"pytest exit {done.returncode}, {took:.0f} s")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
