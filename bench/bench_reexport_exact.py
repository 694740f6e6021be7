"""Incremental equals full for calls through re-exports and module-level aliases (issue 13 item 1,
issue 12 item 3): random edits to a package whose names reach their callers through one to three
modules (`pkg.impl.a.f1` re-exported by `pkg.impl`, then by `pkg`, then aliased by `pkg.mid`), a
module-level alias (`g1 = f1`, `g1 = partial(f2, 1)`), a class attribute holding a class, and a
function whose return type types a caller's receiver; each edit re-indexed as an editor does
(`Workspace.reindex` of the changed buffers), then every row compared with a fresh full index.

    python bench/bench_reexport_exact.py [--seeds 0 60]

Prints the first difference of a failing seed and the failing seeds.
"""

import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_fixture_exact import random_edits, run_seeds  # noqa: E402


ALIASES = ["g1 = f1\n", "g1 = f2\n", "g1 = partial(f1, 1)\n", "g1 = h = f2\n", ""]
# every name here defined often enough that a scoped run does not re-resolve it everywhere by name
# alone (graph/resolution.py RARE_NAME_LIMIT): as in a large workspace
COMMON = "".join(f"class Common{i}:\n" + "".join(f"    def {m}(self):\n        pass\n"
                                                 for m in ["f1", "f2", "g1", "h1", "m", "K", "Ctx"]) for i in range(30))


def impl_file(state, which: str) -> str:
    names = state["names"][which]
    ann = " -> 'K'" if state["typed"][which] else ""
    return ("class K:\n    def m(self):\n        return 1\n\n"
            f"def {names[0]}(x=0){ann}:\n    return K()\n\n"
            f"def {names[1]}(x=0):\n    return x\n")


def impl_init(state) -> str:
    where = state["from"]
    return (f"from functools import partial\nfrom .{where} import f1, f2, K\n" + state["alias"]
            + ("ctx = K\n" if state["ctx_alias"] else ""))


def pkg_init(state) -> str:
    names = ["f1", "K"] + (["g1"] if state["alias"] and state["reexport_g1"] else [])
    return f"from .impl import {', '.join(names)}\n"


def mid(state) -> str:
    return f"from pkg import f1 as {state['mid_name']}\n"


def use(state) -> str:
    g1 = state["alias"] and state["reexport_g1"]
    lines = ["import pkg\n", f"from pkg import f1{', g1' if g1 else ''}\n",
             f"from pkg.mid import {state['mid_name']}\n", "from pkg.impl import K\n\n",
             "class Cmd:\n    ctx_class = K\n    def make(self):\n        return self.ctx_class()\n\n",
             "def run():\n", "    pkg.f1()\n", "    f1()\n", f"    {state['mid_name']}()\n",
             "    x = pkg.f1()\n", "    x.m()\n", "    pkg.K().m()\n"]
    if g1:
        lines += ["    g1()\n", "    pkg.g1()\n", "    y = g1()\n", "    y.m()\n"]
    return "".join(lines)


def main(seed: int) -> bool:
    state = {"names": {"a": ["f1", "f2"], "b": ["f1", "f2"]}, "typed": {"a": True, "b": False}, "from": "a",
             "alias": ALIASES[0], "reexport_g1": True, "mid_name": "h1", "ctx_alias": False}

    def texts():
        return {"pkg/__init__.py": pkg_init(state), "pkg/impl/__init__.py": impl_init(state),
                "pkg/impl/a.py": impl_file(state, "a"), "pkg/impl/b.py": impl_file(state, "b"),
                "pkg/mid.py": mid(state), "pkg/many.py": COMMON, "use.py": use(state)}

    def apply(op: str, rng: random.Random) -> None:
        if op == "retarget":  # the package takes its names from the other module
            state["from"] = "b" if state["from"] == "a" else "a"
        elif op == "alias":
            state["alias"] = rng.choice(ALIASES)
        elif op == "rename":  # a function renamed away and back in one module
            which, k = rng.choice("ab"), rng.randrange(2)
            name = state["names"][which][k]
            state["names"][which][k] = name[:-4] if name.endswith("_old") else name + "_old"
        elif op == "retype":
            which = rng.choice("ab")
            state["typed"][which] = not state["typed"][which]
        elif op == "reexport":
            state["reexport_g1"] = not state["reexport_g1"]
        elif op == "mid":
            state["mid_name"] = "h2" if state["mid_name"] == "h1" else "h1"
        else:
            state["ctx_alias"] = not state["ctx_alias"]

    return random_edits(seed, texts, ["retarget", "alias", "rename", "retype", "reexport", "mid", "ctx"], apply)


if __name__ == "__main__":
    run_seeds(main)
