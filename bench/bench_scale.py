"""Benchmark w: how each cost grows with the workspace (issue 13 item 5).

For each workspace size (files that discovery indexes; built once under
$MEMORY_LSP_BENCH_DIR/scale/<size> by `corpora.sized_workspace`: the registry packages
django, numpy, pip and setuptools from the venv when they make at most half of the size, then
copies of the standard library without tests, the last copy cut short), measured in order:

1. full index: `memory-lsp index` in its own process on a fresh database (2 parse workers, the
   default; MEMORY_LSP_NO_OWNER=1 so that it indexes itself), wall time and peak RSS (VmHWM) of
   the indexing process and of its largest descendant (a parse worker);
2. the server cold (`memory-lsp serve --standalone` over stdio, driven by bench_server.py's
   client and functions): fresh index, peak RSS of the server and of the largest process under
   it (the first index runs in a child process: workspace/apart.py);
3. the server warm: restart on that index, `--hovers` hovers, lenses, diagnostics on `--files`
   files (one memory taught per file), then one `memory.impact` (depth 3) per file: hover p50/p99
   inside the server, impact p50/p99 as the client sees it, peak RSS before and after the
   impact commands;
4. incremental: one edited file re-indexed, `--rounds` times on that index, in its own process,
   as bench_incremental.py does it (a function appended to a random Python file,
   `Workspace.reindex` with the buffer, the file restored untimed): p50/p99.

One JSON line per size is appended to `--out` (and printed) as that size ends, so a stopped run
keeps what it measured. Before a size is built, free disk is checked.

    MEMORY_LSP_BENCH_DIR=/tmp/bench-x nice -n 10 python bench/bench_scale.py \\
        [--sizes 1000 5000 10000 25000 50000] [--rounds 60] [--hovers 1000] [--files 50]
    python bench/bench_scale.py --table bench/results/scale.jsonl   # the tables of BENCHMARKS.md w
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_server  # noqa: E402
import corpora  # noqa: E402
from bench_incremental import percentile  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "scale.jsonl"
PACKAGES = ("django", "numpy", "pip", "setuptools")
PLAN = ".bench-scale-plan.json"
# Disk one file needs: its source (about 30 KB for the stdlib) and its share of the index and its
# write-ahead log (about 150 KB measured at 10k files), with room to spare.
DISK_PER_FILE = 400 * 1024
DISK_MARGIN = 2 * 1024**3


def ms_summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50_ms": round(statistics.median(values), 2),
            "p99_ms": round(percentile(values, 99), 2), "max_ms": round(max(values), 2)}


def check_disk(size: int) -> None:
    corpora.CACHE.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(corpora.CACHE).free
    need = size * DISK_PER_FILE + DISK_MARGIN
    if free < need:
        raise SystemExit(f"not enough disk for {size} files under {corpora.CACHE}: "
                         f"{free / 1024**3:.1f} GB free, {need / 1024**3:.1f} GB wanted")


def plan_for(root: Path, files: int, seed: int) -> dict:
    """bench_server's plan (files the hovers visit, one memory taught per file), made once."""
    key = {"files": files, "seed": seed}
    plan_file = root / PLAN
    if plan_file.exists():
        plan = json.loads(plan_file.read_text())
        if plan.get("key") == key:
            return plan
    shutil.rmtree(root / ".memory", ignore_errors=True)
    plan = bench_server.make_plan(root, files, seed)
    plan["key"] = key
    plan["memories_taught"], plan["teach_s"] = bench_server.teach_all(root, plan)
    plan_file.write_text(json.dumps(plan, indent=1))
    return plan


def run_sampled(cmd: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run a process to its end; wall time and the peak RSS of it and of its largest child,
    sampled from /proc (VmHWM is a high-water mark: the last sample before exit is the peak)."""
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = {"main": 0, "child": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak["main"] = max(peak["main"], bench_server.proc_status(proc.pid, "VmHWM") or 0)
            for c in bench_server.descendants(proc.pid):  # the parse workers hang below a forkserver
                peak["child"] = max(peak["child"], bench_server.proc_status(c, "VmHWM") or 0)
            done.wait(0.2)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        done.set()
        sampler.join()
        if proc.poll() is None:
            proc.kill()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-2000:]}")
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the process and every descendant it reaped
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    return {"wall_s": round(time.perf_counter() - started, 2), "cpu_s": round(cpu, 2), "vmhwm_mb": round(peak["main"] / 1024, 1),
            "worker_vmhwm_mb": round(peak["child"] / 1024, 1), "stdout": out}


def full_index(root: Path, timeout: float) -> dict:
    bench_server.drop_index(root)
    # MEMORY_LSP_NO_OWNER: the index is built in this process, not handed to an owner process
    r = run_sampled([sys.executable, "-m", "memory_lsp", "index", "--workspace", str(root), "--json"], timeout,
                    env={**os.environ, "MEMORY_LSP_NO_OWNER": "1"})
    try:
        report = json.loads(r.pop("stdout"))
    except ValueError:
        report = None
    return {**r, "report": report}


def incremental(root: str, rounds: int, seed: int) -> dict:
    """bench_incremental.py's rounds on the workspace's own index (run in a child process)."""
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(root)
    paths = [r[0] for r in ws.store.cursor().execute(
        "SELECT path FROM files WHERE lang = 'python' ORDER BY path").fetchall()]
    times, cpu = [], []  # wall and CPU time of this process (all its threads): the CPU figure survives a loaded machine
    for i, rel in enumerate(random.Random(seed).sample(paths, min(rounds, len(paths)))):
        original = (Path(root) / rel).read_bytes()
        edited = original + f"\n\ndef _bench_added_{i}(x):\n    return len(x)\n".encode()
        started, cpu0 = time.perf_counter(), time.process_time()
        ws.reindex({rel: edited})
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu0) * 1000)
        ws.reindex({rel: original})  # back to the file on disk, untimed
    ws.close()
    return {**ms_summary(times), "cpu": ms_summary(cpu)}


def incremental_child(root: Path, rounds: int, seed: int, timeout: float) -> dict:
    r = run_sampled([sys.executable, __file__, "--incremental-child", str(root), "--rounds", str(rounds),
                     "--seed", str(seed)], timeout)
    return {**json.loads(r.pop("stdout")), "process_s": r["wall_s"], "vmhwm_mb": r["vmhwm_mb"]}


async def server_runs(args, root: Path, plan: dict) -> tuple[dict, dict]:
    logs = Path(str(root) + "-logs")
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    cold = await bench_server.cold_run(args, root, plan, logs)
    warm = await bench_server.warm_run(args, root, plan, logs)
    return cold, warm


def partial(args, out: dict) -> None:
    """What this size has measured so far, in case the run is stopped before the size ends."""
    Path(args.out + ".partial").write_text(json.dumps(out))


def one_size(args, size: int) -> dict:
    check_disk(size)
    out: dict = {"size": size, "loadavg_at_start": os.getloadavg()}
    started = time.perf_counter()
    root, held = corpora.sized_workspace(corpora.CACHE / "scale" / str(size), size, PACKAGES)
    out["workspace"], out["holds"] = str(root), held
    plan = plan_for(root, args.files, args.seed)
    out.update(indexed_files=plan["indexed_files"], memories=plan["memories_taught"],
               prepare_s=round(time.perf_counter() - started, 1))
    print(f"[{size}] {root}: {plan['indexed_files']} indexed files, {held}", file=sys.stderr, flush=True)

    out["index"] = full_index(root, args.timeout)
    print(f"[{size}] index: {json.dumps(out['index'])[:400]}", file=sys.stderr, flush=True)
    partial(args, out)
    if not args.no_server:
        try:
            cold, warm = asyncio.run(server_runs(args, root, plan))
        except bench_server.Stalled as exc:
            out["error"] = str(exc)
        else:
            cold.pop("log_lines", None)
            out["server_cold"] = cold
            out["server_warm"] = {k: v for k, v in warm.items() if k != "log_lines"}
            out["server_warm_log_lines"] = [x for x in warm.get("log_lines", []) if "ERROR" in x or "Traceback" in x]
        print(f"[{size}] server: {json.dumps(headline(out))}", file=sys.stderr, flush=True)
        partial(args, out)
    # last: the incremental rounds run on the index the server left (the longest part at 50k)
    out["incremental"] = incremental_child(root, args.rounds, args.seed, args.timeout)
    print(f"[{size}] incremental: {out['incremental']}", file=sys.stderr, flush=True)
    out["loadavg_at_end"] = os.getloadavg()
    out["total_s"] = round(time.perf_counter() - started, 1)
    return out


def headline(r: dict) -> dict:
    """The figures BENCHMARKS.md section w tabulates."""
    cold, warm = r.get("server_cold", {}), r.get("server_warm", {})
    inside = warm.get("inside", {})
    return {
        "size": r["size"], "indexed_files": r["indexed_files"], "load_1min": round(r["loadavg_at_start"][0], 1),
        "index_s": r["index"]["wall_s"], "index_cpu_s": r["index"].get("cpu_s"), "index_vmhwm_mb": r["index"]["vmhwm_mb"],
        "index_worker_vmhwm_mb": r["index"]["worker_vmhwm_mb"],
        "incr_p50_ms": r.get("incremental", {}).get("p50_ms"), "incr_p99_ms": r.get("incremental", {}).get("p99_ms"),
        "incr_cpu_p50_ms": r.get("incremental", {}).get("cpu", {}).get("p50_ms"),
        "incr_cpu_p99_ms": r.get("incremental", {}).get("cpu", {}).get("p99_ms"),
        "hover_p50_ms": inside.get("hover", {}).get("p50_ms"), "hover_p99_ms": inside.get("hover", {}).get("p99_ms"),
        "impact_p50_ms": warm.get("impact_command", {}).get("p50_ms"),
        "impact_p99_ms": warm.get("impact_command", {}).get("p99_ms"),
        "server_cold_vmhwm_mb": cold.get("vmhwm_mb"), "server_cold_index_s": cold.get("index_end_s"),
        "server_cold_child_vmhwm_mb": cold.get("worker_vmhwm_mb"),
        "server_warm_vmhwm_before_impact_mb": warm.get("vmhwm_before_commands_mb"),
        "server_warm_vmhwm_mb": warm.get("vmhwm_mb"),
    }


ROWS = [  # (headline key, label, target)
    ("indexed_files", "files indexed", ""),
    ("load_1min", "load average (1 min) when the size started", ""),
    ("index_s", "full index, `memory-lsp index` (2 workers), s", ""),
    ("index_cpu_s", "full index, CPU time of the process and its workers, s", ""),
    ("index_vmhwm_mb", "peak RSS of the indexing process, MB", ""),
    ("index_worker_vmhwm_mb", "peak RSS of its largest worker, MB", ""),
    ("incr_p50_ms", "one-file re-index, p50, ms", "30"),
    ("incr_p99_ms", "one-file re-index, p99, ms", "100"),
    ("incr_cpu_p50_ms", "one-file re-index, CPU time, p50, ms", ""),
    ("incr_cpu_p99_ms", "one-file re-index, CPU time, p99, ms", ""),
    ("hover_p50_ms", "hover inside the server, p50, ms", "5"),
    ("hover_p99_ms", "hover inside the server, p99, ms", "20 (50k)"),
    ("impact_p50_ms", "`memory.impact` depth 3 on a file, round trip, p50, ms", ""),
    ("impact_p99_ms", "`memory.impact` depth 3 on a file, round trip, p99, ms", "100"),
    ("server_cold_index_s", "server: start -> end of the first index, s", ""),
    ("server_cold_vmhwm_mb", "server RSS cold (VmHWM; from 300 files a child process indexes), MB", "1,500 (50k)"),
    ("server_cold_child_vmhwm_mb", "largest process under the cold server (the first index's), MB", ""),
    ("server_warm_vmhwm_before_impact_mb", "server RSS warm (VmHWM) after hovers, lenses, diagnostics, MB", "300 (10k)"),
    ("server_warm_vmhwm_mb", "server RSS warm (VmHWM) after the impact commands too, MB", "300 (10k), 1,500 (50k)"),
]


def table(paths: list[str]) -> str:
    """Markdown: one column per size, then the growth of each figure from one size to the next
    divided by the growth in files (1.0 = linear, above 1 = faster than linear)."""
    heads = {}
    for path in paths:
        for line in Path(path).read_text().splitlines():
            r = json.loads(line)
            if "size" in r:
                heads[r["size"]] = headline(r)
    sizes = sorted(heads)
    fmt = lambda v: "-" if v is None else f"{v:,}"  # noqa: E731
    out = ["| measure | " + " | ".join(f"{s:,} files" for s in sizes) + " | target |",
           "| --- |" + " --- |" * (len(sizes) + 1)]
    out += [f"| {label} | " + " | ".join(fmt(heads[s].get(key)) for s in sizes) + f" | {target or '-'} |"
            for key, label, target in ROWS]
    out += ["", "| growth / file growth | " + " | ".join(f"{a:,} -> {b:,}" for a, b in zip(sizes, sizes[1:])) + " |",
            "| --- |" + " --- |" * (len(sizes) - 1)]
    for key, label, _target in ROWS[2:]:
        cells = []
        for a, b in zip(sizes, sizes[1:]):
            va, vb = heads[a].get(key), heads[b].get(key)
            files = heads[b]["indexed_files"] / heads[a]["indexed_files"]
            cells.append("-" if not va or vb is None else f"{vb / va / files:.2f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000, 25000, 50000])
    ap.add_argument("--rounds", type=int, default=60, help="incremental re-index rounds per size")
    ap.add_argument("--hovers", type=int, default=1000)
    ap.add_argument("--files", type=int, default=50, help="files the hovers, lenses and impact commands visit")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds allowed for one indexing run")
    ap.add_argument("--stall", type=float, default=180, help="bench_server's hang detection, seconds")
    ap.add_argument("--workers", type=int, default=None, help="the server's indexing.workers (default: its own, 2)")
    ap.add_argument("--server", nargs="+", default=bench_server.SERVER)
    ap.add_argument("--no-server", action="store_true", help="index and incremental only")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--table", nargs="+", metavar="JSONL", help="print the markdown tables of earlier runs and stop")
    ap.add_argument("--incremental-child", metavar="ROOT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.table:
        print(table(args.table))
        return
    warnings.simplefilter("ignore")
    if args.incremental_child:
        print(json.dumps(incremental(args.incremental_child, args.rounds, args.seed)))
        return
    bench_server.IMPACT_COMMANDS = args.files  # one impact command per visited file
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"machine": bench_server.machine(), "argv": sys.argv, "nice": os.nice(0)}), flush=True)
    for size in args.sizes:
        r = one_size(args, size)
        r["headline"] = headline(r)
        line = json.dumps(r)
        with open(args.out, "a") as f:
            f.write(line + "\n")
        print(line, flush=True)
        print(f"[{size}] {json.dumps(r['headline'])}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
