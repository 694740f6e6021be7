"""kill -9 during `memory-lsp index`, full and incremental, then index again: the result must equal a
clean index of the same files (issue 14 item 7).

    python bench/bench_reliability_kill.py --trials 50 --checkpoint-trials 20 --files 300

Workspace: the first --files modules of the standard library (a copy). Each trial starts the CLI
in its own process (MEMORY_LSP_NO_OWNER=1, --db), kills it with SIGKILL, runs it again to the end
and compares the tables (symbols, edges, files, refs, imports, chunks) with a clean index made from
scratch (edge scores to a relative 1e-3). Half the trials are full runs (no database), half incremental (the database of a clean
index, then 10% of the files edited, 3 deleted, 3 added). A random trial is killed at a uniform
random moment of the run; a checkpoint trial when DuckDB writes the database file itself (it does
only in a checkpoint) while the write-ahead log exists. Prints one JSON line per trial and a summary.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import stdlib_files  # noqa: E402

ENV = dict(os.environ, MEMORY_LSP_NO_OWNER="1")
QUERIES = {
    "files": "SELECT path, hash, lang, loc FROM files",
    "symbols": "SELECT * FROM symbols",
    # scores are compared apart, with a tolerance: an incremental run sums in another order than a
    # run from scratch (they differ in the 5th digit with no kill at all)
    "edges": "SELECT src, dst, kind, src_path, dst_path, line, round(confidence, 6), strategy, name, support "
             "FROM edges",
    "refs": "SELECT * FROM refs",
    "imports": "SELECT * FROM imports",
    "chunks": "SELECT id, path, md5(text) FROM chunks",
}


def fingerprint(db: Path) -> dict[str, tuple[int, str]]:
    """table -> (rows, digest of the sorted rows)."""
    conn = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        for table, query in QUERIES.items():
            rows = sorted(map(repr, conn.execute(query).fetchall()))
            out[table] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16])
        return out
    finally:
        conn.close()


def score_drift(db: Path, ref: Path) -> float:
    """The largest relative difference of an edge's score against the clean index."""
    conn = duckdb.connect()
    try:
        conn.execute(f"ATTACH '{db}' AS got (READ_ONLY)")
        conn.execute(f"ATTACH '{ref}' AS ref (READ_ONLY)")
        value = conn.execute(
            "SELECT max(abs(g.score - r.score) / greatest(abs(r.score), 1e-9)) FROM got.edges g JOIN ref.edges r "
            "USING (src, dst, kind, line)").fetchone()[0]
        return float(value or 0.0)
    finally:
        conn.close()


def index(ws: Path, db: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "memory_lsp", "index", str(ws), "--db", str(db)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_to_end(ws: Path, db: Path) -> tuple[float, str]:
    started = time.perf_counter()
    proc = index(ws, db)
    out, err = proc.communicate(timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"index failed ({proc.returncode}): {err[-2000:]}")
    return time.perf_counter() - started, out + err


def kill_at_random(ws: Path, db: Path, duration: float, rng: random.Random) -> dict:
    delay = rng.uniform(0.05, duration)
    proc = index(ws, db)
    time.sleep(delay)
    finished = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return {"kill_after_s": round(delay, 2), "finished_before_kill": finished}


def kill_in_checkpoint(ws: Path, db: Path, timeout: float) -> dict:
    """Kill as soon as the database file itself changes while the write-ahead log exists."""
    wal = Path(str(db) + ".wal")
    proc = index(ws, db)
    started = time.perf_counter()
    seen = None
    hit = False
    while proc.poll() is None and time.perf_counter() - started < timeout:
        try:
            st = db.stat()
        except FileNotFoundError:
            time.sleep(0.002)
            continue
        if wal.exists():
            if seen is None:
                seen = (st.st_size, st.st_mtime_ns)
            elif (st.st_size, st.st_mtime_ns) != seen:
                hit = True
                break
        time.sleep(0.001)
    finished = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return {"kill_after_s": round(time.perf_counter() - started, 2), "in_checkpoint": hit and not finished,
            "finished_before_kill": finished}


def make_states(base: Path, files: int, rng: random.Random) -> tuple[Path, Path]:
    """State A: the files as copied; state B: A with 10% edited, 3 deleted, 3 added."""
    a, b = base / "A", base / "B"
    lib = Path(stdlib_files()[0]).parent
    chosen = stdlib_files()[:files]
    for src in chosen:
        dest = a / src.relative_to(lib)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    shutil.copytree(a, b, copy_function=shutil.copy2)
    paths = sorted(p for p in b.rglob("*.py"))
    for p in rng.sample(paths, max(1, len(paths) // 10)):
        p.write_text(p.read_text(encoding="utf-8", errors="replace") + "\n\ndef added_by_bench():\n    return 1\n",
                     encoding="utf-8")
    for p in rng.sample(paths, 3):
        p.unlink()
    for i in range(3):
        (b / f"bench_new_{i}.py").write_text(f"import os\n\n\ndef new_{i}():\n    return os.getcwd()\n", encoding="utf-8")
    return a, b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--checkpoint-trials", type=int, default=20)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    base = Path(tempfile.mkdtemp(prefix="mlsp-kill-"))
    try:
        state_a, state_b = make_states(base, args.files, rng)
        ws = base / "ws"
        dbs = base / "db"
        dbs.mkdir()
        # clean references made from scratch, and the clean database of A an incremental run starts from
        t_full, _ = run_to_end(state_a, dbs / "ref-A.duckdb")
        run_to_end(state_b, dbs / "ref-B.duckdb")
        reference = {"full": fingerprint(dbs / "ref-A.duckdb"), "incremental": fingerprint(dbs / "ref-B.duckdb")}
        results = []
        for trial in range(args.trials):
            mode = "full" if trial % 2 == 0 else "incremental"
            at_checkpoint = trial < args.checkpoint_trials
            shutil.rmtree(ws, ignore_errors=True)
            shutil.copytree(state_a, ws, copy_function=shutil.copy2)
            db = dbs / f"trial-{trial}.duckdb"
            if mode == "incremental":
                # the clean index of A in this very folder (same mtimes); its time, measured now,
                # sets the random kill window: the machine's speed drifts 3x within a run
                t_full, _ = run_to_end(ws, db)
                shutil.rmtree(ws)
                shutil.copytree(state_b, ws, copy_function=shutil.copy2)
            t0 = time.perf_counter()
            how = kill_in_checkpoint(ws, db, timeout=4 * t_full) if at_checkpoint else \
                kill_at_random(ws, db, t_full * (0.8 if mode == "full" else 0.4), rng)
            seconds, output = run_to_end(ws, db)
            got = fingerprint(db)
            drift = score_drift(db, dbs / ("ref-A.duckdb" if mode == "full" else "ref-B.duckdb"))
            same = got == reference[mode] and drift < 1e-3
            row = {"trial": trial, "mode": mode, "aimed_at_checkpoint": at_checkpoint, **how,
                   "rerun_s": round(seconds, 2), "equal_to_clean": same, "score_drift": drift,
                   "recovered": "set aside" in output or "would not open" in output,
                   "diff": {} if same else {k: (got[k], reference[mode][k]) for k in got if got[k] != reference[mode][k]},
                   "trial_s": round(time.perf_counter() - t0, 2)}
            results.append(row)
            print(json.dumps(row), flush=True)
            for stale in dbs.glob(f"trial-{trial}.duckdb*"):
                stale.unlink()
        summary = {
            "trials": len(results), "files": args.files, "full_index_s": round(t_full, 2),
            "equal_to_clean": sum(r["equal_to_clean"] for r in results),
            "max_score_drift": max(r["score_drift"] for r in results),
            "killed_in_checkpoint": sum(bool(r.get("in_checkpoint")) for r in results),
            "finished_before_kill": sum(r["finished_before_kill"] for r in results),
            "rebuilt_after_kill": sum(r["recovered"] for r in results),
            "by_mode": {m: sum(r["mode"] == m for r in results) for m in ("full", "incremental")},
        }
        print(json.dumps({"summary": summary}), flush=True)
        return 0 if summary["equal_to_clean"] == len(results) else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
