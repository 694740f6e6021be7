"""Run every benchmark and keep each result as JSON under bench/results/ (`make bench`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
RUNS = [
    ("index_stdlib", ["bench_index.py", "--repeat", "3"]),
    ("index_django", ["bench_index.py", "--corpus", "django", "--repeat", "3"]),
    ("incremental", ["bench_incremental.py", "--rounds", "200"]),
    ("impact", ["bench_impact.py"]),
    ("imports_vs_grimp", ["bench_imports_vs_grimp.py"]),
]


def main() -> int:
    out_dir = HERE / "results"
    out_dir.mkdir(exist_ok=True)
    failed = 0
    for name, args in RUNS:
        print(f"== {name}", flush=True)
        done = subprocess.run([sys.executable, str(HERE / args[0]), *args[1:]], capture_output=True, text=True)
        (out_dir / f"{name}.json").write_text(done.stdout)
        print(done.stdout[-2000:] if done.returncode == 0 else done.stderr[-2000:], flush=True)
        failed += done.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
