"""Issue 14 item 7, kill -9 during `memory-lsp index` (CI size): one full run killed inside a
checkpoint and one incremental run killed at a random moment; each next run equals a clean index.
The script is the bench's own (bench/bench_reliability_kill.py runs 50 trials)."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_reliability_kill.py"


def test_the_run_after_a_kill_equals_a_clean_index():
    done = subprocess.run([sys.executable, str(BENCH), "--trials", "2", "--checkpoint-trials", "1", "--files", "20"],
                          capture_output=True, text=True, timeout=900)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    summary = lines[-1]["summary"]
    trials = [line for line in lines if "trial" in line]
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert summary["trials"] == 2 and summary["equal_to_clean"] == 2
    assert [t["mode"] for t in trials] == ["full", "incremental"]
    assert all(not t["finished_before_kill"] for t in trials), "a run ended before its kill: nothing was tested"
