"""CALLS edges from test code against the calls the tests make when they run (issue 12 item 1):
the check for edges at sites jedi does not answer (a pytest fixture's value: `runner.invoke()`,
`app.route()`), which bench_truth.py cannot judge.

The package's own test suite runs under CPython's profiler hook (`sys.setprofile`, through a
pytest plugin): every call into a function of `src/` from the workspace (`tests/` or `src/`;
`--callers` picks which edges are checked) is recorded as
(caller file, caller qualname, callee file, callee qualname), the caller being the nearest
workspace frame that is not a closure of `src/` (a `@contextmanager` method runs under contextlib's
frames, flask's `route` under its `@setupmethod` wrapper; a closure's own calls are not checked). Edges to a class
are not checked (the run sees its `__init__`, perhaps a base's). Each CALLS edge from a test-file
symbol is then: confirmed (that call happened), not confirmed (its caller ran, the call did not:
wrong, or on a path the run did not take), or not run (the caller never ran). Per strategy.

    MEMORY_LSP_BENCH_DIR=<dir> python bench/bench_calls_run.py click==8.1.8 [--out file.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
import truth_corpus  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402

PLUGIN = '''
import json, os, sys, threading
ROOT = os.path.realpath(os.environ["CALLS_RUN_ROOT"])
TESTS, SRC = os.path.join(ROOT, "tests") + os.sep, os.path.join(ROOT, "src") + os.sep
pairs, ran = set(), set()

def _hook(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    if not code.co_filename.startswith((TESTS, SRC)):
        return
    ran.add((code.co_filename, code.co_qualname))
    if not code.co_filename.startswith(SRC):
        return
    # the nearest workspace frame: through contextlib's and functools' wrappers, and through the
    # workspace's own decorator wrappers (closures: flask's `@setupmethod` around `route`)
    caller = frame.f_back
    while caller is not None and (not caller.f_code.co_filename.startswith((TESTS, SRC))
                                  or caller.f_code.co_filename.startswith(SRC) and "<locals>" in caller.f_code.co_qualname):
        caller = caller.f_back
    if caller is not None:
        pairs.add((caller.f_code.co_filename, caller.f_code.co_qualname, code.co_filename, code.co_qualname))

def pytest_configure(config):
    sys.setprofile(_hook)
    threading.setprofile(_hook)

def pytest_unconfigure(config):
    sys.setprofile(None)
    with open(os.environ["CALLS_RUN_OUT"], "w") as out:
        json.dump({"pairs": sorted(pairs), "ran": sorted(ran)}, out)
'''


def run_calls(spec: str, ws: Path) -> tuple[set, set]:
    """((caller, callee) symbol ids the run made, the workspace functions that ran); the run is
    kept beside the workspace (calls_run.json)."""
    cache = ws.parent / "calls_run.json"
    if cache.exists():
        data = json.loads(cache.read_text())
        return {tuple(p) for p in data["made"]}, set(data["ran"])
    made, ran = _run(spec, ws)
    cache.write_text(json.dumps({"made": sorted(made), "ran": sorted(ran)}))
    return made, ran


def _run(spec: str, ws: Path) -> tuple[set, set]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "calls_run_plugin.py").write_text(PLUGIN)
        out = Path(tmp) / "calls.json"
        env = {**os.environ, "PYTHONPATH": f"{tmp}{os.pathsep}{ws / 'src'}", "CALLS_RUN_ROOT": str(ws),
               "CALLS_RUN_OUT": str(out)}
        subprocess.run([truth_corpus.venv_python(spec.split("==")[0]), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "no:warnings", "-p", "calls_run_plugin", "--continue-on-collection-errors", "tests"],
                       cwd=ws, env=env, capture_output=True, text=True)
        data = json.loads(out.read_text())
    root = os.path.realpath(ws)

    def sid(path: str, qualname: str) -> str:
        return os.path.relpath(path, root) + "::" + qualname.replace("<locals>.", "")
    return ({(sid(a, b), sid(c, d)) for a, b, c, d in data["pairs"]}, {sid(a, b) for a, b in data["ran"]})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--out")
    ap.add_argument("--callers", default="tests/", help="the edges from files under this prefix "
                    "('src/': the package's own calls, as far as its tests run them; '': all)")
    ap.add_argument("--examples", type=int, default=10, help="unconfirmed edges listed per strategy")
    args = ap.parse_args()
    ws_path = truth_corpus.workspace(args.spec)
    made, ran = run_calls(args.spec, ws_path)
    ws = Workspace.open(ws_path, db=corpora.fresh_db("calls-run-" + args.spec.split("==")[0]))
    ws.index()
    rows = ws.store.cursor().execute(
        "SELECT e.src, e.dst, e.strategy, e.confidence, e.line, s.kind, e.src_path FROM edges e JOIN symbols s ON s.id = e.dst "
        "WHERE e.kind = 'CALLS' AND starts_with(e.src_path, ?) AND starts_with(e.dst_path, 'src/')",
        [args.callers]).fetchall()
    ws.close()
    counts: dict[str, Counter] = {}
    unconfirmed: dict[str, list] = {}
    for src, dst, strategy, confidence, line, kind, src_path in rows:
        if src == src_path:  # module-level code: the run's `<module>` frames are not matched
            continue
        c = counts.setdefault(strategy, Counter())
        c["edges"] += 1
        if kind == "class":  # the run records `__init__` (perhaps a base's), not the class: not checked
            c["to a class (not checked)"] += 1
            continue
        c["confirmed" if (src, dst) in made else "not confirmed" if src in ran else "not run"] += 1
        if src in ran and (src, dst) not in made:
            unconfirmed.setdefault(strategy, []).append(f"{src}:{line} -> {dst}")
        if confidence >= 0.5 and src in ran:
            c["listed, caller ran"] += 1
            c["listed, confirmed"] += (src, dst) in made
    result = {"corpus": args.spec, "callers": args.callers, "calls_recorded": len(made), "functions_ran": len(ran),
              "per_strategy": {s: {**c, "confirmed_share_when_run": round(c["confirmed"] / max(1, c["confirmed"] + c["not confirmed"]), 3)}
                               for s, c in sorted(counts.items())}}
    result["unconfirmed_examples"] = {s: v[:args.examples] for s, v in sorted(unconfirmed.items())}
    print(json.dumps(result, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
