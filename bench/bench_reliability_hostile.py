"""A hostile workspace against the same workspace without its hostile parts (issue 14 item 7).

    python bench/bench_reliability_hostile.py --files 200 --node-modules 50000 --runs 3

Both hold the first --files modules of the standard library. The hostile one adds: two symlink
loops (a folder linked into itself, a link to the workspace root), a FIFO named like a source file,
a file with one 20 MB line, 50,000-deep nested expressions in JavaScript, Python and C, and an
ignored node_modules/ of --node-modules files. Each run is `memory-lsp index` from scratch in its
own process (MEMORY_LSP_NO_OWNER=1, --db); medians of --runs, in a plain folder and in a git work
tree. Target: at most 2x the time of the plain workspace.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import stdlib_files  # noqa: E402

ENV = dict(os.environ, MEMORY_LSP_NO_OWNER="1")
DEPTH = 50_000


def ordinary(root: Path, files: int) -> None:
    lib = Path(stdlib_files()[0]).parent
    for src in stdlib_files()[:files]:
        dest = root / src.relative_to(lib)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)


def hostile(root: Path, node_modules: int) -> None:
    loop_home = root / "loops"
    loop_home.mkdir()
    os.symlink(loop_home, loop_home / "self")
    os.symlink(root, loop_home / "root")
    os.mkfifo(root / "pipe.py")
    (root / "long_line.py").write_text("x = '" + "a" * 20_000_000 + "'\n", encoding="utf-8")
    (root / "deep.js").write_text("const z = " + "[\n" * DEPTH + "1" + "]\n" * DEPTH + ";\n", encoding="utf-8")
    (root / "deep.py").write_text("x = (\n" + "(\n" * DEPTH + "1" + ")\n" * DEPTH + ")\n", encoding="utf-8")
    (root / "deep.c").write_text("int z = " + "(\n" * DEPTH + "1" + ")\n" * DEPTH + ";\n", encoding="utf-8")
    for i in range(node_modules):
        folder = root / "node_modules" / f"pkg{i // 500}" / "lib"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i}.js").write_text(f"module.exports = function f{i}() {{ return {i}; }};\n", encoding="utf-8")


def index_seconds(root: Path, db: Path) -> tuple[float, str]:
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memory_lsp", "index", str(root), "--db", str(db)], env=ENV,
                          capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"index of {root} failed: {done.stderr[-2000:]}")
    return seconds, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--node-modules", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mlsp-hostile-"))
    try:
        plain, bad = base / "plain", base / "hostile"
        ordinary(plain, args.files)
        ordinary(bad, args.files)
        made = time.perf_counter()
        hostile(bad, args.node_modules)
        print(f"hostile parts written in {time.perf_counter() - made:.1f} s", flush=True)
        results = {}
        for mode in ("plain folder", "git work tree"):
            if mode == "git work tree":
                for root in (plain, bad):
                    subprocess.run(["git", "init", "-q", str(root)], check=True)
            times: dict[str, list[float]] = {"without": [], "with": []}
            for _ in range(args.runs):  # interleaved, so drift of the machine hits both alike
                for name, root in (("without", plain), ("with", bad)):
                    seconds, out = index_seconds(root, base / f"{name}.duckdb")
                    times[name].append(seconds)
            medians = {k: statistics.median(v) for k, v in times.items()}
            results[mode] = {"median_without_s": round(medians["without"], 2),
                             "median_with_s": round(medians["with"], 2),
                             "ratio": round(medians["with"] / medians["without"], 2),
                             "runs": {k: [round(x, 2) for x in v] for k, v in times.items()},
                             "hostile_index_output": out.strip().splitlines()[:3]}
            print(json.dumps({mode: results[mode]}), flush=True)
        worst = max(r["ratio"] for r in results.values())
        print(json.dumps({"summary": {"files": args.files, "node_modules_files": args.node_modules,
                                      "worst_ratio": worst, "target": 2.0}}), flush=True)
        return 0 if worst <= 2.0 else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
