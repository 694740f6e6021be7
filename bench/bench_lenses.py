"""Quiet lenses and hovers (issue 16 item 5): how many code lenses a workspace gets, how many say
nothing ("0 memories · 0 dependents · 0 tests") or sit in test files, what the impact line of a
hover in a test file counts, and how long one file's lenses take.

Workspace: a copy of the standard library (about 1,800 files, its test folders included), indexed
in process, with one scoped policy (`--scope '**/*.py'`, no pattern). `--before DIR` runs the
same in a subprocess with an older checkout first on PYTHONPATH: the baseline, in the same run.

    python bench/bench_lenses.py [--before /tmp/old-checkout]

Writes bench/results/lenses.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import corpora  # noqa: E402

POLICY = "Every module keeps its public names in __all__"


def measure(root: Path) -> dict:
    from memory_lsp.server.features.code_lens import lenses_for, resolved
    from memory_lsp.server.features.hover import hover_for
    from memory_lsp.settings import Config
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(root)
    ws.index(workers=2)
    ws.book.teach(POLICY, "policy", scope="**/*.py", lookup=ws.snapshot().lookup())
    ws.sync_memories()
    ws.load_graph()
    snap = ws.snapshot()
    eager = len(inspect.signature(lenses_for).parameters) == 4  # the quiet version resolves them itself
    paths = sorted(p for p, in snap.store.cursor().execute("SELECT path FROM files WHERE lang = 'python'").fetchall())
    tests = {p for p in paths if snap.store.cursor().execute(
        "SELECT is_test FROM files WHERE path = ?", [p]).fetchone()[0]}
    total = empty = in_tests = 0
    per_file, impact_in_tests, policy_lines, lines_seen = [], [], 0, 0
    for path in paths:
        started = time.perf_counter()
        if eager:
            found = lenses_for(snap, "file:///x", path, Config())
        else:  # the editor resolves each lens it shows: all of them, once scrolled through
            found = [resolved(snap, lens, Config()) for lens in lenses_for(snap, "file:///x", path)]
        per_file.append((time.perf_counter() - started) * 1000)
        titles = [lens.command.title for lens in found if lens.command]
        total += len(titles)
        empty += sum(1 for title in titles if title.startswith("0 memories · 0 dependents · 0 tests"))
        in_tests += len(titles) if path in tests else 0
        symbols = snap.symbols(path)
        if path in tests and symbols:
            hover = hover_for(snap, path, symbols[-1].start + 1, Config())
            line = [x for x in (hover.contents.value if hover else "").splitlines() if x.startswith("**Impact**")]
            impact_in_tests.append(int(line[0].split(": ")[1].split(" ")[0]) if line else 0)
        length = len((root / path).read_text(encoding="utf-8", errors="replace").splitlines())
        for line in range(1, min(length, 200) + 1, 10):  # where the scoped policy shows
            hover = hover_for(snap, path, line, Config())
            lines_seen += 1
            policy_lines += bool(hover and POLICY in hover.contents.value)
    ws.close()
    return {"files": len(paths), "test_files": len(tests), "lenses": total, "empty_lenses": empty,
            "lenses_in_test_files": in_tests, "lens_ms_per_file_median": round(statistics.median(per_file), 2),
            "lens_ms_per_file_max": round(max(per_file), 1),
            "hover_impact_in_tests_median": statistics.median(impact_in_tests) if impact_in_tests else 0,
            "hover_impact_in_tests_max": max(impact_in_tests, default=0),
            "policy_shown_share": round(policy_lines / lines_seen, 3)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, help="an older checkout to measure the same way (PYTHONPATH)")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the subprocess: one workspace, JSON out
    ap.add_argument("--out", type=Path, default=HERE / "results" / "lenses.json")
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    results = {"machine": f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}"}
    work = Path(tempfile.mkdtemp(prefix="lens-bench-"))
    try:
        versions = {"now": {}}
        if args.before:
            versions["before"] = {"PYTHONPATH": str(args.before.resolve())}
        for version, env in versions.items():
            root = work / version
            shutil.copytree(corpora.stdlib_copy(), root)
            done = subprocess.run([sys.executable, __file__, "--measure", str(root)], capture_output=True, text=True,
                                  env={**os.environ, **env}, check=True)
            results[version] = json.loads(done.stdout.strip().splitlines()[-1])
            print(version, results[version], file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    keys = [k for k in results["now"]]
    print(f"machine: {results['machine']}\n")
    print("| measure | " + " | ".join(v for v in versions) + " |")
    print("|---|" + "---|" * len(versions))
    for key in keys:
        print(f"| {key} | " + " | ".join(str(results[v][key]) for v in versions) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
