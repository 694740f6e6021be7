"""Incremental equals full for calls typed through pytest fixtures (issue 13 item 1, issue 12
item 1): random edits to a conftest's fixtures (the class one returns or yields, a fixture added,
removed or renamed, a folder's own conftest, autouse on or off, the name its decorator gives) and
to the tests' parameters and lines, each re-indexed as an
editor does (`Workspace.reindex` of the changed buffers), then every row compared with a fresh full
index of the same files (the columns of tests/test_incremental.py's snapshot).

    python bench/bench_fixture_exact.py [--seeds 0 60]

Prints the first difference of a failing seed and the failing seeds.
"""

import argparse
import pathlib
import random
import shutil
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from test_incremental import snapshot  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402

CLASSES = ["Alpha", "Beta"]


def pkg() -> dict:
    return {"pkg/__init__.py": "from .core import Alpha, Beta\n",
            "pkg/core.py": "class Alpha:\n    def m(self):\n        return 1\n    def n(self):\n        return 2\n"
                           "class Beta:\n    def m(self):\n        return 3\n"}


def conftest(fx):
    """fx: function name -> (class, "return" or "yield", autouse, the name its decorator gives or None)."""
    lines = ["import pytest", "from pkg import Alpha, Beta", ""]
    for name, (cls, how, *more) in sorted(fx.items()):
        auto, alias = (more + [False, None])[:2]
        args = ", ".join((["autouse=True"] if auto else []) + ([f"name='{alias}'"] if alias else []))
        lines += [f"@pytest.fixture({args})" if args else "@pytest.fixture", f"def {name}():"]
        lines += [f"    yield {cls}()" if how == "yield" else f"    return {cls}()", ""]
    return "\n".join(lines) + "\n"


def tests_text(params, pad: int = 0):
    lines = [""] * pad  # blank lines above: an edit that only moves lines
    for i, ps in enumerate(params):
        lines += [f"def test_{i}({', '.join(ps)}):"] + [f"    {p}.m()\n    {p}.n()" for p in ps] + ["    pass", ""]
    return "\n".join(lines) + "\n"


def main(seed: int) -> bool:
    rng = random.Random(seed)
    root = pathlib.Path(tempfile.mkdtemp()) / "ws"
    names = ["env", "app", "client", "other"]
    fx = {"env": ("Alpha", "return"), "app": ("Beta", "yield")}
    tests = {"tests/test_a.py": [["env"], ["app", "other"]], "tests/sub/test_b.py": [["client", "env"]]}
    pads = {p: 0 for p in tests}
    files = {**pkg(), "tests/conftest.py": conftest(fx), **{p: tests_text(v) for p, v in tests.items()}}
    for p, t in files.items():
        (root / p).parent.mkdir(parents=True, exist_ok=True); (root / p).write_text(t)
    ws = Workspace.open(root); ws.index(workers=0)
    for step in range(12):
        op = rng.choice(["retype", "rename", "add", "remove", "params", "subconftest", "autouse", "alias", "pad"])
        changed = {}
        if op == "retype" and fx:
            k = rng.choice(sorted(fx)); fx[k] = (rng.choice(CLASSES), rng.choice(["return", "yield"]), *fx[k][2:])
        elif op in ("autouse", "alias") and fx:  # store/autouse.py; a fixture named by its decorator
            k = rng.choice(sorted(fx)); cls, how, *more = fx[k]; auto, alias = (more + [False, None])[:2]
            fx[k] = (cls, how, not auto, alias) if op == "autouse" else (cls, how, auto, rng.choice(names + [None]))
        elif op == "pad":
            p = rng.choice(sorted(tests)); pads[p] = 2 - pads[p]
            changed[p] = tests_text(tests[p], pads[p])
        elif op == "rename" and fx:
            k = rng.choice(sorted(fx)); new = rng.choice(names)
            fx[new] = fx.pop(k)
        elif op == "add":
            fx[rng.choice(names)] = (rng.choice(CLASSES), "return")
        elif op == "remove" and fx:
            fx.pop(rng.choice(sorted(fx)))
        elif op == "params":
            p = rng.choice(sorted(tests)); i = rng.randrange(len(tests[p]))
            tests[p][i] = rng.sample(names, rng.randint(1, 2))
            changed[p] = tests_text(tests[p], pads[p])
        elif op == "subconftest":
            changed["tests/sub/conftest.py"] = conftest({rng.choice(names): (rng.choice(CLASSES), "return")})
        changed.setdefault("tests/conftest.py", conftest(fx))
        for p, t in changed.items():
            (root / p).parent.mkdir(parents=True, exist_ok=True); (root / p).write_text(t)
        ws.reindex({p: t.encode() for p, t in changed.items()})
        if not same_as_fresh(ws, root, step, f"seed {seed} step {step} op {op}"):
            return False
    ws.close(); shutil.rmtree(root.parent, ignore_errors=True)
    return True


def same_as_fresh(ws, root: pathlib.Path, step: int, label: str) -> bool:
    """Whether `ws` (after its editor's runs) holds every row a fresh full index of `root` makes;
    else print the first differences under `label`."""
    inc = snapshot(ws)
    fresh = Workspace.open(root, db=str(root.parent / f"fresh{step}.duckdb"))
    fresh.index(workers=0)
    full = snapshot(fresh)
    fresh.close()
    if inc == full:
        return True
    for t in inc:
        a, b = set(inc[t]), set(full[t])
        for x in sorted(a - b, key=repr)[:5]:
            print("  inc only", t, x)
        for x in sorted(b - a, key=repr)[:5]:
            print("  full only", t, x)
    print(label, "DIFFERS")
    return False


def written(root: pathlib.Path, files: dict[str, str]) -> Workspace:
    """`files` written under `root` and indexed whole: the start of a seed."""
    for p, t in files.items():
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text(t)
    ws = Workspace.open(root)
    ws.index(workers=0)
    return ws


def edited(ws, root: pathlib.Path, before: dict[str, str], after: dict[str, str], step: int, label: str) -> bool:
    """The files of `after` that differ from `before` written and re-indexed as an editor does
    (their buffers), then compared with a fresh index (`same_as_fresh`)."""
    changed = {p: t for p, t in after.items() if t != before.get(p)}
    for p, t in changed.items():
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text(t)
    if changed:
        ws.reindex({p: t.encode() for p, t in changed.items()})
    return same_as_fresh(ws, root, step, label)


def random_edits(seed: int, texts, ops: list[str], apply, steps: int = 12) -> bool:
    """A seed's run: the files `texts()` gives indexed, then `steps` times an op drawn from `ops`
    made by `apply(op, rng)` (it changes what `texts()` gives), re-indexed and compared."""
    rng = random.Random(seed)
    root = pathlib.Path(tempfile.mkdtemp()) / "ws"
    now = texts()
    ws = written(root, now)
    for step in range(steps):
        op = rng.choice(ops)
        apply(op, rng)
        before, now = now, texts()
        if not edited(ws, root, before, now, step, f"seed {seed} step {step} op {op}"):
            return False
    ws.close()
    shutil.rmtree(root.parent, ignore_errors=True)
    return True


def run_seeds(main) -> None:
    """`--seeds A B`: `main(seed)` for each, then the failing ones."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs=2, default=[0, 60])
    args = ap.parse_args()
    bad = [s for s in range(*args.seeds) if not main(s)]
    print("failing seeds:", bad)


if __name__ == "__main__":
    run_seeds(main)
