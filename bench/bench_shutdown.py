"""Shutdown while indexing (issue 16 item 6): `shutdown` answered within 200 ms and the process
gone within 1 s after `exit`, through the relay (`memory-lsp serve`) and standalone.

Workspace: a fresh copy of the standard library (about 1,800 files) per round, so that the first
index is under way: the round waits for the first work-done progress report, then sends
`shutdown` (time to its answer) and `exit` (time until the process the editor started is gone;
for the relay that is the relay: the owner lives on for other windows). Baseline in the same run:
the same on an idle server (the workspace already indexed). `--before DIR` adds the same rounds
with an older checkout of memory_lsp put first on PYTHONPATH (the code before a change).

    python bench/bench_shutdown.py [--rounds 5] [--before /tmp/old-checkout]

Writes bench/results/shutdown.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "server"))
import corpora  # noqa: E402
from rawclient import RawClient  # noqa: E402

SERVE = [sys.executable, "-m", "memory_lsp", "serve"]
MODES = {"relay": SERVE, "standalone": SERVE + ["--standalone"]}


def one_round(command: list[str], root: Path, indexing: bool, env: dict) -> dict:
    saved = dict(os.environ)
    os.environ.update(env)  # RawClient's process inherits it
    try:
        client = RawClient(command, cwd=root.parent)  # not the checkout: `python -m` would import it first
    finally:
        os.environ.clear()
        os.environ.update(saved)
    try:
        return _one_round(client, root, indexing)
    except AssertionError:
        print("".join(client.stderr)[-3000:], file=sys.stderr)
        for log in Path(env.get("MEMORY_LSP_RUNTIME_DIR", "/nonexistent")).glob("*.log"):
            print(f"--- {log}", log.read_text(errors="replace")[-6000:], sep="\n", file=sys.stderr)
        raise
    finally:
        client.close(timeout=5)


def _one_round(client: RawClient, root: Path, indexing: bool) -> dict:
    client.initialize(root, options={"indexing": {"workers": 2}})
    if indexing:
        def reported():
            return any((m["params"].get("value") or {}).get("kind") == "report"
                       for m in client.notifications("$/progress"))
        client.wait_for(reported, 300, "indexing to be under way")
    else:
        client.wait_indexed(timeout=900)
    still_indexing = not any((m["params"].get("value") or {}).get("kind") == "end"
                             for m in client.notifications("$/progress"))
    started = time.perf_counter()
    answer = client.call("shutdown", None, timeout=600)
    answered = time.perf_counter()
    client.notify("exit")
    client.proc.wait(timeout=600)
    gone = time.perf_counter()
    return {"shutdown_ms": round((answered - started) * 1000, 1), "gone_ms": round((gone - answered) * 1000, 1),
            "exit_code": client.proc.returncode, "error": answer.get("error"), "indexing_at_shutdown": still_indexing}


def series(name: str, command: list[str], rounds: int, indexing: bool, work: Path, env: dict) -> dict:
    source = corpora.stdlib_copy()
    indexed = work / f"{name}-indexed"
    runs = []
    for number in range(rounds):
        runtime = Path(tempfile.mkdtemp(prefix="rt-", dir=work))  # a fresh owner each round
        os.chmod(runtime, 0o700)
        round_env = {**env, "MEMORY_LSP_RUNTIME_DIR": str(runtime), "MEMORY_LSP_OWNER_IDLE": "2"}
        if indexing:
            root = work / f"{name}-{number}"
            shutil.copytree(source, root)
        else:
            root = indexed
            if not root.exists():
                shutil.copytree(source, root)
                one_round(command, root, False, round_env)  # the first, full index: not measured
                time.sleep(3)  # that round's owner leaves (idle 2 s) and lets go of the index
        runs.append(one_round(command, root, indexing, round_env))
        if indexing:
            time.sleep(3)
            shutil.rmtree(root, ignore_errors=True)
        print(name, "indexing" if indexing else "idle", runs[-1], file=sys.stderr, flush=True)
    return {"runs": runs,
            "shutdown_ms_median": statistics.median(r["shutdown_ms"] for r in runs),
            "shutdown_ms_max": max(r["shutdown_ms"] for r in runs),
            "gone_ms_median": statistics.median(r["gone_ms"] for r in runs),
            "gone_ms_max": max(r["gone_ms"] for r in runs)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before", type=Path, help="an older checkout to measure the same way (PYTHONPATH)")
    ap.add_argument("--before-rounds", type=int, default=2, help="its rounds (its shutdown may wait for a whole index)")
    ap.add_argument("--skip-now", action="store_true", help="measure only the older checkout")
    ap.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    ap.add_argument("--out", type=Path, default=HERE / "results" / "shutdown.json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="shutdown-bench-"))
    versions = {} if args.skip_now else {"now": ({}, args.rounds)}
    if args.before:
        versions["before"] = ({"PYTHONPATH": str(args.before.resolve())}, args.before_rounds)
    results: dict = {"machine": f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}",
                     "files": len(corpora.stdlib_files()), "rounds": args.rounds}
    try:
        for version, (env, rounds) in versions.items():
            for mode, command in ((m, MODES[m]) for m in args.modes):
                for indexing in (True, False):
                    key = f"{version}/{mode}/{'indexing' if indexing else 'idle'}"
                    results[key] = series(f"{version}-{mode}", command, rounds, indexing, work, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(f"machine: {results['machine']}; workspace: the stdlib, {results['files']} files; "
          f"{args.rounds} rounds each ({args.before_rounds} for the code before)\n")
    print("| code | path | state | shutdown answered, median (max) | gone after exit, median (max) |")
    print("|---|---|---|---|---|")
    for key, value in results.items():
        if isinstance(value, dict) and "runs" in value:
            version, mode, state = key.split("/")
            print(f"| {version} | {mode} | {state} | {value['shutdown_ms_median']:.0f} ms "
                  f"({value['shutdown_ms_max']:.0f}) | {value['gone_ms_median']:.0f} ms ({value['gone_ms_max']:.0f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
