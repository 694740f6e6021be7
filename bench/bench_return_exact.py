"""Incremental equals full for calls typed by what another file's function returns (issue 13
item 1, issue 12 item 1): random edits to the functions and methods whose return types type the
calls of other files (the class returned, by annotation or by `return Cls()`; a function renamed;
a method moved between a class and its base in another file; a returned class renamed; an import
dropped; a fixture giving another class; an attribute (`e.item.m()`) retyped or moved to the base,
set in `__init__` or annotated in the class body), each re-indexed as an editor does
(`Workspace.reindex` of the changed buffers), then every row compared with a fresh full index of
the same files (the columns of tests/test_incremental.py's snapshot).

    python bench/bench_return_exact.py [--seeds 0 60]

Prints the first difference of a failing seed and the failing seeds.
"""

import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_fixture_exact import random_edits, run_seeds  # noqa: E402


CLASSES = ["Alpha", "Beta", "Gamma"]
FUNCS = ["make", "build", "load"]


def core(names: dict) -> str:
    """The classes, each under its current name (`names`: class -> name as defined now)."""
    return "".join(f"class {names[c]}:\n    def m(self):\n        return 1\n    def n(self):\n        return 2\n"
                   for c in CLASSES)


def returning(cls: str | None, how: str) -> tuple[str, str]:
    """(annotation, body) of a function returning `cls` the way `how` says."""
    if cls is None:
        return "", "        return None\n"
    return (f" -> '{cls}'", "        return None\n") if how == "annotation" else ("", f"        return {cls}()\n")


def attributes(state, where: str) -> tuple[str, str]:
    """(class body lines, __init__ lines) of the attributes `where` ("env" or "base") defines."""
    body, init = "", ""
    for attr, (cls, how) in sorted(state["attrs"].items()):
        if state["attr_where"][attr] == where:
            if how == "annotation" and cls:
                body += f"    {attr}: '{cls}'\n"
            else:
                init += f"        self.{attr} = {cls or 'None'}()\n" if cls else f"        self.{attr} = None\n"
    return body, init


def env(state) -> str:
    imported = ", ".join(c for c in CLASSES if c not in state["dropped"])
    lines = [f"from pkg.core import {imported}\n" if imported else "", "from pkg.base import Base\n"]
    for f, (cls, how) in sorted(state["funcs"].items()):
        ann, body = returning(cls, how)
        lines.append(f"def {f}(){ann}:\n" + body.replace("        ", "    "))
    body, init = attributes(state, "env")
    lines.append(f"class Env(Base):\n{body}    def __init__(self):\n{init}        pass\n")
    for meth, (cls, how) in sorted(state["methods"].items()):
        if state["where"][meth] == "env":
            ann, body = returning(cls, how)
            lines.append(f"    def {meth}(self){ann}:\n{body}")
    return "".join(lines)


def base(state) -> str:
    imported = ", ".join(CLASSES)
    body, init = attributes(state, "base")
    lines = [f"from pkg.core import {imported}\n", f"class Base:\n{body}    def __init__(self):\n{init}        pass\n"
             "    def ping(self):\n        return 0\n"]
    for meth, (cls, how) in sorted(state["methods"].items()):
        if state["where"][meth] == "base":
            ann, body = returning(cls, how)
            lines.append(f"    def {meth}(self){ann}:\n{body}")
    return "".join(lines)


def use() -> str:
    lines = ["from pkg import env as envmod\n", "from pkg.env import Env, make, build, load\n", "def use():\n",
             "    e = Env()\n"]
    for f in FUNCS:
        lines += [f"    {f}().m()\n", f"    x_{f} = envmod.{f}()\n", f"    x_{f}.n()\n"]
    for meth in ("get", "fetch"):
        lines += [f"    e.{meth}().m()\n", f"    y_{meth} = e.{meth}()\n", f"    y_{meth}.n()\n"]
    lines += ["    e.item.m()\n", "    e.part.n()\n"]
    return "".join(lines)


def conftest(cls: str) -> str:
    return f"import pytest\nfrom pkg.env import Env\nfrom pkg.core import {cls}\n@pytest.fixture\ndef env():\n    return {cls}()\n"


# every name above defined often enough that a scoped run does not re-resolve it everywhere by
# name alone (graph/resolution.py RARE_NAME_LIMIT): as in a large workspace
COMMON = "".join(f"class Common{i}:\n" + "".join(f"    def {m}(self):\n        pass\n" for m in
                 ["m", "n", "get", "fetch", "ping"] + FUNCS) for i in range(30))
TESTS = "def test_a(env):\n    t = env.get()\n    t.m()\n    env.fetch().n()\n"


def main(seed: int) -> bool:
    state = {"funcs": {f: ("Alpha", "annotation") for f in FUNCS},
             "methods": {"get": ("Beta", "return"), "fetch": ("Gamma", "annotation")},
             "where": {"get": "env", "fetch": "base"}, "dropped": set(), "names": {c: c for c in CLASSES},
             "fixture": "Env", "attrs": {"item": ("Alpha", "init"), "part": ("Beta", "annotation")},
             "attr_where": {"item": "env", "part": "base"}}

    def texts():
        return {"pkg/__init__.py": "", "pkg/many.py": COMMON, "pkg/core.py": core(state["names"]), "pkg/env.py": env(state),
                "pkg/base.py": base(state), "pkg/use.py": use(), "tests/conftest.py": conftest(state["fixture"]),
                "tests/test_a.py": TESTS}

    def apply(op: str, rng: random.Random) -> None:
        if op == "retype":
            table = rng.choice(["funcs", "methods"])
            key = rng.choice(sorted(state[table]))
            state[table][key] = (rng.choice(CLASSES + [None]), rng.choice(["annotation", "return"]))
        elif op == "rename":  # a function renamed away and back: `use()` calls stay as written
            key = rng.choice(sorted(state["funcs"]))
            spare = key + "_old" if not key.endswith("_old") else key[:-4]
            state["funcs"][spare] = state["funcs"].pop(key)
        elif op == "move":
            key = rng.choice(sorted(state["where"]))
            state["where"][key] = "base" if state["where"][key] == "env" else "env"
        elif op == "rename_class":
            cls = rng.choice(CLASSES)
            state["names"][cls] = cls if state["names"][cls] != cls else cls + "Renamed"
        elif op == "drop_import":
            cls = rng.choice(CLASSES)
            state["dropped"] ^= {cls}
        elif op == "fixture":
            state["fixture"] = rng.choice(["Env"] + CLASSES)
        elif op == "attr":
            key = rng.choice(sorted(state["attrs"]))
            state["attrs"][key] = (rng.choice(CLASSES + [None]), rng.choice(["init", "annotation"]))
        elif op == "move_attr":
            key = rng.choice(sorted(state["attr_where"]))
            state["attr_where"][key] = "base" if state["attr_where"][key] == "env" else "env"

    return random_edits(seed, texts, ["retype", "retype", "rename", "move", "rename_class", "drop_import", "fixture",
                                      "attr", "attr", "move_attr"], apply)


if __name__ == "__main__":
    run_seeds(main)
