"""The source-file fuzzer at a size of your choosing (issue 14 item 7).

    python bench/bench_reliability_fuzz.py --examples 5000
    python bench/bench_reliability_fuzz.py --examples 2000 --minutes 60   # new random runs until then

Runs tests/reliability/test_source_fuzz.py with MEMORY_LSP_FUZZ_EXAMPLES=--examples (each of its
three extraction fuzzers that many examples, whole index runs a tenth of it) and prints the pytest
summary and the wall time. A failure prints hypothesis's smallest falsifying example.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

TEST = Path(__file__).resolve().parents[1] / "tests" / "reliability" / "test_source_fuzz.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--minutes", type=float, default=0, help="repeat runs (each random) until then")
    args = parser.parse_args()
    started, runs, failed = time.perf_counter(), 0, 0
    while runs == 0 or time.perf_counter() - started < args.minutes * 60:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TEST)],
                              env=dict(os.environ, MEMORY_LSP_FUZZ_EXAMPLES=str(args.examples)),
                              capture_output=True, text=True)
        runs, failed = runs + 1, failed + (done.returncode != 0)
        if done.returncode != 0 or args.minutes == 0:
            print(done.stdout[-6000:])
    print(f"examples per fuzzer and run: {args.examples}; {runs} runs, {failed} failed; "
          f"wall time {time.perf_counter() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
