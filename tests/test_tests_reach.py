"""Test selection (graph/tests_reach.py): a test file runs a target when its tests call into it,
however deep, not when its module imports it. Pinned on a small workspace indexed for real, and
checked against a plain-Python reading of the same rule on the standard library's unittest
package with its own tests.
"""

from __future__ import annotations

import shutil
import sysconfig
from collections import defaultdict
from pathlib import Path

import pytest

from memory_lsp.graph import tests_held, tests_reach
from memory_lsp.graph.resolution import PYTHON_BUILTIN_METHODS
from memory_lsp.store import test_reads

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def fa():\n    return 1\n",
    "pkg/b.py": "def fb():\n    return 2\n",
    "pkg/c.py": "from pkg.b import fb\n\n\ndef fc():\n    return fb()\n",
    "pkg/chain.py": ("from pkg.leaf import leaf\n\n\ndef e1():\n    return e2()\n\n\ndef e2():\n    return e3()\n\n\n"
                     "def e3():\n    return e4()\n\n\ndef e4():\n    return leaf()\n"),
    "pkg/leaf.py": "def leaf():\n    return 4\n",
    "pkg/models.py": ("from pkg.a import fa\n\n\nclass Model:\n    def __init__(self):\n        self.x = fa()\n\n"
                      "    def total(self):\n        return self.x\n"),
    "pkg/aliases.py": "def real():\n    return 3\n\n\nalias = real\n",
    "pkg/config.py": "class Config:\n    def __init__(self):\n        self.x = 1\n",
    "pkg/app.py": ("from pkg.config import Config\n\n\nclass App:\n    config_class = Config\n\n"
                   "    def make(self):\n        return self.config_class()\n"),
    "tests/test_app.py": "from pkg.app import App\n\n\ndef test_make():\n    assert App().make().x == 1\n",
    # imports three modules, calls into one: only that one selects it
    "tests/test_one.py": ("import pkg.b\nimport pkg.c\nfrom pkg.a import fa\n\n\n"
                          "def test_fa():\n    assert fa() == 1\n"),
    "tests/test_deep.py": "from pkg.c import fc\n\n\ndef test_fc():\n    assert fc() == 2\n",
    "tests/test_chain.py": "from pkg.chain import e1\n\n\ndef test_e1():\n    assert e1() == 4\n",
    "tests/test_models.py": "from pkg.models import Model\n\n\ndef test_model():\n    assert Model().x == 1\n",
    "tests/conftest.py": ("import pytest\nfrom pkg import aliases\nfrom pkg.b import fb\n\n\n@pytest.fixture\ndef value():\n"
                          "    return fb()\n\n\n@pytest.fixture\ndef made():\n    return aliases.alias()\n"),
    "tests/test_fixture.py": "def test_value(value):\n    assert value == 2\n",
    # no call the index resolves into the code: the file-level rule
    "tests/test_attrs.py": "import pkg.a\n\n\ndef test_has():\n    assert hasattr(pkg.a, 'fa')\n",
    # a call the resolver cannot follow (`alias` is no definition), through an imported module
    "tests/test_alias.py": "from pkg import aliases\n\n\ndef test_alias():\n    assert aliases.alias() == 3\n",
    "tests/test_made.py": "def test_made(made):\n    assert made == 3\n",  # the same, in a fixture
    # functions called through a dict: no test reaches them in the graph; the file-level rule
    "pkg/registry.py": "def double(x):\n    return 2 * x\n\n\nFILTERS = {'double': double}\n",
    "pkg/render.py": "from pkg.registry import FILTERS\n\n\ndef render(name, x):\n    return FILTERS[name](x)\n",
    "tests/test_render.py": "from pkg.render import render\n\n\ndef test_render():\n    assert render('double', 2) == 4\n",
    # test files by path that hold no test: a helper module, a type-check file
    "tests/helpers.py": "from pkg.a import fa\n\n\ndef make():\n    return fa()\n",
    "tests/typing/typing_a.py": "from pkg.a import fa\n\nx: int = fa()\n",
    # jinja2's filters: env.py calls through an attribute holding a function (`self.render_func()`) and
    # takes FILTERS from defaults.py, which takes it from filters.py
    "pkg/reg/filters.py": ("def do_upper(s):\n    return s.upper()\n\n\ndef do_lower(s):\n    return s.lower()\n\n\n"
                           "FILTERS = {'upper': do_upper, 'lower': do_lower}\n"),
    "pkg/reg/defaults.py": "from pkg.reg.filters import FILTERS as DEFAULT_FILTERS\n",
    "pkg/reg/env.py": ("from pkg.reg.defaults import DEFAULT_FILTERS\n\n\nclass Env:\n"
                       "    def render(self):\n        return self.render_func(DEFAULT_FILTERS)\n"),
    "tests/test_reg.py": "from pkg.reg.env import Env\n\n\ndef test_render():\n    assert Env().render()\n",
    "tests/test_lower.py": "from pkg.reg.filters import do_lower\n\n\ndef test_lower():\n    assert do_lower('A')\n",
    # attrs' tests/typing_example.py: type checks in functions named test*, in a file no runner collects
    "tests/typing_example.py": "from pkg.a import fa\n\n\ndef test():\n    x: int = fa()\n",
    "tests/test_helped.py": "from helpers import make\n\n\ndef test_helped():\n    assert make() == 1\n",
}


def selected(ws, target: str, depth: int = 3) -> list[str]:
    return ws.impact(target, depth=depth)["tests"]


def test_a_test_importing_three_modules_runs_the_one_it_calls(ws, file_edges):
    assert {("tests/test_one.py", f"pkg/{m}.py") for m in "abc"} <= file_edges(ws, "ASSERTS_ON")  # imports all three
    assert "tests/test_one.py" in selected(ws, "pkg/a.py")
    assert "tests/test_one.py" not in selected(ws, "pkg/b.py")
    assert "tests/test_one.py" not in selected(ws, "pkg/c.py")


def test_tests_reach_through_their_callees_however_deep(ws):
    assert selected(ws, "pkg/b.py") == ["tests/test_deep.py", "tests/test_fixture.py"]
    assert selected(ws, "pkg/c.py") == ["tests/test_deep.py"]
    # test_e1 -> e1 -> e2 -> e3 -> e4 -> leaf: five calls, beyond the walk's depth
    got = ws.impact("pkg/leaf.py::leaf", depth=3)
    assert [d["symbol"] for d in got["dependents"]] == ["e4", "e3", "e2"]
    assert got["tests"] == ["tests/test_chain.py"]


def test_a_fixture_selects_the_tests_using_it_not_the_conftest(ws):
    assert "tests/test_fixture.py" in selected(ws, "pkg/b.py::fb")
    assert "tests/conftest.py" not in selected(ws, "pkg/b.py::fb")


def test_a_constructor_call_runs_the_class_and_its_methods(ws):
    # fa <- Model.__init__ <- (the class) Model <- test_model
    # (and test_attrs.py, which imports pkg.a and calls nothing the index resolves)
    assert selected(ws, "pkg/a.py::fa") == [
        "tests/test_attrs.py", "tests/test_helped.py", "tests/test_models.py", "tests/test_one.py"]
    # nothing calls Model.total by name: whoever makes a Model may
    assert selected(ws, "pkg/models.py::Model.total") == ["tests/test_models.py"]


def test_a_test_file_with_no_test_function_holds_no_tests(ws):
    # helpers.py calls fa (a resolved call into the code) and typing_a.py imports it: neither runs a test
    got = selected(ws, "pkg/a.py")
    assert "tests/helpers.py" not in got and "tests/typing/typing_a.py" not in got
    assert "tests/typing_example.py" not in got  # a `def test()`, but not in a file named test*.py or *_test.py
    assert "tests/test_helped.py" in got  # the test calling the helper


def test_a_call_through_an_attribute_may_run_what_the_file_takes_through_a_re_export(ws):
    # (a test calls do_lower: the symbol graph knows the file, no file-level rule stands in)
    assert selected(ws, "pkg/reg/filters.py") == ["tests/test_lower.py", "tests/test_reg.py"]


def test_a_symbol_lists_the_tests_that_reach_that_symbol_only(ws):
    assert selected(ws, "pkg/chain.py::e4") == ["tests/test_chain.py"]
    assert selected(ws, "pkg/aliases.py::real") == ["tests/test_alias.py", "tests/test_made.py"]  # see below


def test_where_the_symbol_graph_knows_nothing_the_file_level_rule_stays(ws):
    # no resolved call into the code: listed for the files it imports, not for every other file
    assert "tests/test_attrs.py" in selected(ws, "pkg/a.py")
    assert "tests/test_attrs.py" not in selected(ws, "pkg/b.py")
    # an unresolved call through `aliases`: listed for that module (and what imports reach it)
    assert [t for t, in ws.store.cursor().execute("SELECT path FROM refs WHERE name = 'alias'").fetchall()]
    # (a fixture's unresolved call: the tests using the fixture, not the conftest)
    assert selected(ws, "pkg/aliases.py") == ["tests/test_alias.py", "tests/test_made.py"]
    assert "tests/test_alias.py" not in selected(ws, "pkg/a.py")


def test_code_no_test_reaches_in_the_graph_keeps_the_file_level_rule(ws):
    # `double` runs only through FILTERS[name](x): the tests reaching its importers run it
    assert selected(ws, "pkg/registry.py") == ["tests/test_render.py"]
    assert selected(ws, "pkg/render.py") == ["tests/test_render.py"]  # reached in the graph: as before
    assert selected(ws, "pkg/registry.py::double") == []  # a symbol no test reaches: none


def test_a_class_held_in_an_attribute_runs_for_whoever_calls_through_it(ws):
    # `self.config_class()`: no edge says what it calls; App's file imports Config's
    assert selected(ws, "pkg/config.py::Config") == ["tests/test_app.py"]


def test_counts_agree_with_the_listed_tests(ws):
    graph = ws.load_graph()
    for target, path in [("pkg/leaf.py", "pkg/leaf.py"), ("pkg/a.py::fa", "pkg/a.py"), ("pkg/b.py", "pkg/b.py"),
                         ("pkg/models.py::Model.total", "pkg/models.py"), ("pkg/aliases.py", "pkg/aliases.py"),
                         ("pkg/config.py", "pkg/config.py")]:
        deps, tests = graph.walk(target, path, 3, 0.5)
        assert graph.counts(target, path, 3, 0.5) == (len(deps), len(tests)), target


# -- the rule read plainly, on real code ----------------------------------------------------------
STDLIB = Path(sysconfig.get_paths()["stdlib"])
REACH_KINDS = ("CALLS", "INHERITS", "USES_FIXTURE")


GUESSES = ("name_unique", "name_ambiguous", "override")  # as graph/tests_reach.py


class HeldReading:
    """graph/tests_held.py read plainly: a method runs for its class's makers when it is a dunder,
    in a test file, never called by name, called through an untyped receiver by a caller holding
    an instance, or overrides a base's method that a call on self resolves to; a name guess is
    walked when the caller holds its class, or no guess of the site is held and it is no override
    of another guess's method."""

    def __init__(self, cur, symbols: dict, tests: set):
        self.symbols, self.tests = symbols, tests
        self.classes = {i for i, in cur.execute("SELECT id FROM symbols WHERE kind = 'class'").fetchall()}
        files = {p for p, in cur.execute("SELECT path FROM files").fetchall()}
        self.calls, self.bases = defaultdict(set), defaultdict(set)
        self.guessed = defaultdict(list)  # (caller, line) -> callees
        self.on_self = set()  # methods a `self.m()` call resolves to
        for src, dst, kind, line, strategy in cur.execute(
                "SELECT src, dst, kind, line, coalesce(strategy, '') FROM edges").fetchall():
            if kind in ("CALLS", "USES_FIXTURE") and dst in symbols and strategy not in GUESSES \
                    and (src in symbols or src in files):
                self.calls[src].add(dst)
            if kind == "INHERITS" and src in symbols and dst in symbols:
                self.bases[src].add(dst)
            if kind in REACH_KINDS and src in symbols and dst in symbols and strategy in GUESSES:
                self.guessed[(src, line)].append(dst)
            if kind == "CALLS" and strategy in ("self", "self_inherited") and src in symbols and dst in symbols:
                self.on_self.add(dst)
        self.named = {n for n, in cur.execute("SELECT DISTINCT name FROM refs WHERE kind = 'call' AND name "
                                              "IS NOT NULL AND coalesce(rtype, '') NOT IN ('builtin', 'local')").fetchall()}
        self.untyped, self.reads, self.made = defaultdict(list), defaultdict(list), {}
        u = test_reads.unresolved_calls(cur)["untyped"]
        for src, name, on_self, read in zip(u["src"].tolist(), u["name"].tolist(), u["on_self"].tolist(), u["read"].tolist()):
            (self.reads if read else self.untyped)[name].append((src, bool(on_self)))
        self.defining = defaultdict(set)  # a method's name -> the classes with a method of that name
        for node in symbols:
            if (c := self._class_of(node)) is not None:
                self.defining[node.rsplit(".", 1)[1]].add(c)

    def up(self, c: str) -> set[str]:
        found, todo = {c}, [c]
        while todo:
            for b in self.bases[todo.pop()] - found:
                found.add(b)
                todo.append(b)
        return found

    def up_by_distance(self, c: str) -> list[str]:
        found, todo = [c], [c]
        while todo:
            for b in sorted(self.bases[todo.pop(0)]):
                if b not in found:
                    found.append(b)
                    todo.append(b)
        return found

    def holds(self, s: str, c: str, on_self: bool = False) -> bool:
        path, _, qual = s.partition("::")
        while on_self and "." in qual:
            qual = qual.rsplit(".", 1)[0]
            if f"{path}::{qual}" in self.classes and f"{path}::{qual}" in self.up(c):
                return True
        if s not in self.made:
            seen, frontier = {s}, {s, path}
            for _ in range(tests_held.HOLD_DEPTH):
                frontier = {u for v in frontier for u in self.calls[v]} - seen
                seen |= frontier
            self.made[s] = {b for x in seen if x in self.classes for b in self.up(x)}
        return c in self.made[s]

    def _class_of(self, node: str) -> str | None:
        path, _, qual = node.partition("::")
        around = f"{path}::{qual.rsplit('.', 1)[0]}" if "." in qual else None
        return around if around in self.classes else None

    def runs_with_holder(self, node: str) -> bool:
        holder, leaf = self._class_of(node), node.rsplit(".", 1)[1]
        if holder is None or self.symbols[node] in self.tests or (leaf.startswith("__") and leaf.endswith("__")):
            return True
        return leaf not in self.named or any(self.holds(s, holder, on) for s, on in self.untyped[leaf]) \
            or any(f"{b}.{leaf}" in self.on_self for b in self.up(holder) - {holder})

    def readers(self, node: str) -> set[str] | None:
        """graph/tests_read.py read plainly: a method no call names, read by name, its class's own
        name (no other class with a method of it but a subclass): the readers holding an instance
        of its class (`self.x` in the class, a base or a subclass); None: its class holds it."""
        holder, leaf = self._class_of(node), node.rsplit(".", 1)[1]
        if holder is None or self.symbols[node] in self.tests or (leaf.startswith("__") and leaf.endswith("__")) \
                or leaf in self.named or not self.reads[leaf]:
            return None
        if any(holder not in self.up(o) for o in self.defining[leaf] - {holder}):
            return None  # another class's method of the name, or a base's (this one overrides it)
        found = set()
        for s, on_self in self.reads[leaf]:
            path, _, qual = s.partition("::")
            around = [f"{path}::{qual[:i]}" for i in range(len(qual)) if qual[i] == "."]
            if any(a in self.classes and (a in self.up(holder) or holder in self.up(a)) for a in around) if on_self \
                    else self.holds(s, holder):
                found.add(s)
        return found or None

    def walks_guess(self, src: str, dst: str, line: int) -> bool:
        site = [(d, self._class_of(d)) for d in self.guessed[(src, line)]]
        held = {d for d, c in site if c is None or self.holds(src, c)}
        if held:
            return dst in held
        c = self._class_of(dst)  # no guess at a Python method named like a builtin type's (`environ.get`)
        builtin = dst.rsplit(".", 1)[1] in PYTHON_BUILTIN_METHODS and dst.partition("::")[0].endswith((".py", ".pyi"))
        return c is None or not (self.up(c) - {c}) & {k for _, k in site if k} and not builtin


_READINGS: dict[int, HeldReading] = {}


def reference_tests(cur, target: str, target_path: str, touched: set[str]) -> list[str]:
    """The module docstring of graph/tests_reach.py, in sets and dicts straight from the tables."""
    tests = {p for p, in cur.execute("SELECT path FROM files WHERE is_test").fetchall()}
    symbols = {i: p for i, p in cur.execute("SELECT id, path FROM symbols").fetchall()}
    spans = {i: (p, a, b) for i, p, a, b in cur.execute("SELECT id, path, start_line, end_line FROM symbols").fetchall()}
    callers, has_caller, known, module_level = defaultdict(set), set(), set(), []
    held = _READINGS.get(id(cur))
    if held is None:  # the tables do not change within a test: read once per cursor
        held = _READINGS[id(cur)] = HeldReading(cur, symbols, tests)
    for src, dst, src_path, dst_path, line, strategy, kind in cur.execute(
            "SELECT src, dst, src_path, dst_path, line, coalesce(strategy, ''), kind FROM edges "
            "WHERE kind IN ('CALLS', 'INHERITS', 'USES_FIXTURE')").fetchall():
        if src in symbols and dst in symbols:
            if strategy not in GUESSES or held.walks_guess(src, dst, line):
                callers[dst].add(src)
                has_caller.add(dst)
            if src_path in tests and dst_path not in tests:
                known.add(src_path)
        elif kind == 'CALLS' and src == src_path and src not in tests and dst in symbols and strategy not in GUESSES:
            module_level.append((src, dst))  # a non-test file's module-level call or held value
    # no decorator's: a callee some module-level line right above a definition of its file calls
    defined_at = set(cur.execute("SELECT path, start_line FROM symbols").fetchall())
    starts_at = dict(cur.execute("SELECT id, start_line FROM symbols").fetchall())
    decorators = {d for s, d, line in cur.execute("SELECT src, dst, line FROM edges WHERE kind = 'CALLS' AND src = src_path")
                  .fetchall() if (s, line + 1) in defined_at}
    for s, d, line in cur.execute("SELECT src, dst, line FROM edges WHERE kind = 'CALLS' AND src = src_path").fetchall():
        if d in held.classes:  # a class decorating a definition: the definition runs its __call__ and __get__
            for name in [n for n, p in symbols.items() if (s, line + 1) == (p, starts_at[n])]:
                for dunder in ("__call__", "__get__"):
                    got = next((f"{b}.{dunder}" for b in held.up_by_distance(d) if f"{b}.{dunder}" in symbols), None)
                    if got:
                        callers[got].add(name)
    held_callers = defaultdict(set)  # walked, but no test's reach through them drops the file-level rule
    # a symbol making a call (of anything) runs what its file's code holds
    calling = {s for s, in cur.execute("SELECT DISTINCT src FROM refs WHERE kind = 'call'").fetchall()}
    cols = test_reads.unresolved_test_calls(cur)
    var_callers = defaultdict(set)  # a test's call of a module variable runs what that module's code gave it
    for src, module, is_held in zip(cols["src"].tolist(), cols["module"].tolist(), cols["held"].tolist()):
        if is_held and src in symbols:
            var_callers[module].add(src)
    for path, dst in module_level:  # runs whenever the file's code does: every symbol of the file reaches it
        if dst not in decorators:
            if symbols[dst] != path:  # another file's: the file's own run in its tests anyway
                held_callers[dst] |= {s for s, p in symbols.items() if p == path and s in calling}
            held_callers[dst] |= var_callers[path]
    # a call through an attribute of self named like nothing defined: may run any file its file imports
    dispatch = test_reads.unresolved_calls(cur)["dispatch"]
    makers = defaultdict(set)
    for src, path in zip(dispatch["src"].tolist(), dispatch["path"].tolist()):
        if src in symbols:
            makers[path].add(src)
    for importer, imported in cur.execute("SELECT src_path, dst_path FROM edges WHERE kind = 'IMPORTS'").fetchall():
        if makers.get(importer):
            callers[imported] |= makers[importer]
            for node, path in symbols.items():
                if path == imported:
                    callers[node].add(imported)
    for node in symbols:  # a method or nested function: whoever reaches what is around it runs it
        path, _, qual = node.partition("::")
        if "." in qual and f"{path}::{qual.rsplit('.', 1)[0]}" in symbols and held.runs_with_holder(node):
            readers = held.readers(node)  # a property where it is read, else where its class is made
            callers[node] |= readers if readers else {f"{path}::{qual.rsplit('.', 1)[0]}"}
    starts = {s for s, p in symbols.items() if p == target_path
              and (target == target_path or s == target or s.startswith(target + "."))}
    # every file here is Python, which has CALLS edges: no test file falls back for its language
    files = touched | {target_path}
    blind = defaultdict(set)
    for src, module, is_held in zip(cols["src"].tolist(), cols["module"].tolist(), cols["held"].tolist()):
        if not is_held:
            blind[src].add(module)
    own = set(starts)
    starts |= {s for s, modules in blind.items() if modules & files and s in symbols}
    seen, frontier = set(starts), set(starts)
    while frontier:
        frontier = {c for f in frontier for c in callers[f] | held_callers[f]} - seen
        seen |= frontier
    found = {symbols[s] for s in seen if s in symbols and s not in has_caller and symbols[s] in tests}
    direct = {s for s, d in cur.execute(
        "SELECT src_path, dst_path FROM edges WHERE kind IN ('IMPORTS', 'ASSERTS_ON')").fetchall() if d == target_path}
    found |= {t for t in direct if t in tests and t not in known}
    # a file no test reaches (forwards from the tests' symbols): the file-level rule, tests
    # asserting on a file of the answer or among its files
    callees = defaultdict(set)
    for node, their_callers in list(callers.items()):
        for c in their_callers:
            callees[c].add(node)
    live = {s for s, p in symbols.items() if p in tests}
    frontier = set(live)
    while frontier:
        frontier = {c for f in frontier for c in callees[f]} - live
        live |= frontier
    # (nor reaches one but protocol methods: Python's operators run those unseen); the file's own symbols: a
    # test's unresolved call through the module says nothing of how the file's code runs
    plain = {s for s in own if not ("." in s.partition("::")[2] and s.rpartition(".")[2].startswith("__")
                                    and s.endswith("__"))}
    if target == target_path and target_path.endswith(".py") and target_path not in symbols.values():
        # a file of module-level code only: run where a function imports it (the tests reaching that function)
        around = {max(((sp, i) for i, (p, sp, ep) in spans.items() if p == path and sp <= line <= ep), default=(0, None))[1]
                  for path, line in cur.execute("SELECT src_path, line FROM edges WHERE kind = 'IMPORTS' AND dst_path = ?",
                                                [target_path]).fetchall()} - {None}
        seen, frontier = set(around), set(around)
        while frontier:
            frontier = {c for f in frontier for c in callers[f] | held_callers[f]} - seen
            seen |= frontier
        found |= {symbols[s] for s in seen if s not in has_caller and symbols[s] in tests}
    elif target == target_path and not plain & live:
        found |= {s for s, d in cur.execute("SELECT src_path, dst_path FROM edges WHERE kind = 'ASSERTS_ON'").fetchall()
                  if d in files} | (files & tests)
    # a test file holds tests when the runners collect it (test*.py, *_test.py) and in it a module-level
    # function or a method of classes is named test*, or a class named test* has a workspace base, or a
    # class inherits a test* method (a mixin's, up to four bases up)
    kind_of = dict(cur.execute("SELECT id, kind FROM symbols").fetchall())
    tested = {i.rpartition(".")[0] for i in symbols if "." in i.partition("::")[2]
              and i.rpartition(".")[2].lower().startswith("test")}
    bases = defaultdict(set)
    for src, dst in cur.execute("SELECT src, dst FROM edges WHERE kind = 'INHERITS'").fetchall():
        bases[src].add(dst)
    for _ in range(4):
        tested |= {c for c, b in bases.items() if b & tested}

    def collected(i: str) -> bool:
        path, _, qualname = i.partition("::")
        outer, _, leaf = qualname.rpartition(".")
        if not leaf.lower().startswith("test"):
            return i in tested
        chain = [f"{path}::{outer.rsplit('.', k)[0]}" for k in range(outer.count(".") + 1)] if outer else []
        return kind_of[i] == "function" and not outer or kind_of[i] == "method" and \
            all(kind_of.get(c) == "class" for c in chain) or kind_of[i] == "class" and bool(bases.get(i)) or i in tested

    holding = {p for i, p in symbols.items() if collected(i) and (p.rsplit("/", 1)[-1].startswith("test")
                                                                  or p.endswith("_test.py"))}
    return sorted((found - {target_path}) & holding)


@pytest.fixture(scope="module")
def unittest_ws(tmp_path_factory, index_files):
    root = tmp_path_factory.mktemp("unittest")
    shutil.copytree(STDLIB / "unittest", root / "lib" / "unittest", ignore=shutil.ignore_patterns("__pycache__"))
    ws = index_files(root, {})
    yield ws
    ws.close()


# budget 0: a walk per question, no bits; a block of 2 steps: the bits carried in many blocks a round
@pytest.mark.parametrize("budget, block", [(tests_reach.BITS_BUDGET, tests_reach.BITS_BLOCK),
                                           (tests_reach.BITS_BUDGET, 2), (0, tests_reach.BITS_BLOCK)])
def test_selection_equals_the_plain_reading_on_unittest_and_its_tests(unittest_ws, budget, block, monkeypatch):
    monkeypatch.setattr(tests_reach, "BITS_BUDGET", budget)
    monkeypatch.setattr(tests_reach, "BITS_BLOCK", block)
    cur = unittest_ws.store.cursor()
    graph = unittest_ws.load_graph()
    graph.__dict__.pop("_reach", None)  # built again under this budget
    graph._tests(graph.names[0], graph.names[0], [])
    assert (graph._reach.bits is None) == (budget == 0)
    files = [p for p, in cur.execute("SELECT path FROM files WHERE NOT is_test ORDER BY path").fetchall()]
    symbols = [i for i, in cur.execute("SELECT id FROM symbols WHERE path IN (SELECT path FROM files "
                                       "WHERE NOT is_test) ORDER BY id").fetchall()]
    selected = 0
    for target in files + symbols[::7]:
        path = target.partition("::")[0]
        deps, tests = graph.walk(target, path, 3, 0.5)
        own = graph._walk(target, path, 3, 0.5)[0]  # the files test selection walked: no override's dispatch
        assert tests == reference_tests(cur, target, path, {d.path for d in own}), target
        selected += bool(tests)
    assert selected > 50


CONSTANTS = {
    "pkg/__init__.py": "",
    "pkg/constants.py": 'WORDS = "lorem ipsum"\n',
    "pkg/utils.py": "def lorem():\n    from .constants import WORDS\n\n    return WORDS.split()\n",
    "tests/test_utils.py": "from pkg.utils import lorem\n\n\ndef test_lorem():\n    assert lorem()\n",
    "tests/test_words.py": "from pkg.constants import WORDS\n\n\ndef test_words():\n    assert WORDS.split()\n",
}


def test_a_file_of_constants_keeps_the_file_level_rule_beside_unresolved_calls_into_it(tmp_path, index_files):
    """jinja2: constants.py (a string, no symbol) runs inside test_utils's tests, as
    `generate_lorem_ipsum` imports it when called. A test's call on its string (no edge) made
    the file look known to the symbol graph, and only that test was listed."""
    ws = index_files(tmp_path, CONSTANTS)
    try:
        assert ws.impact("pkg/constants.py", depth=3)["tests"] == ["tests/test_utils.py", "tests/test_words.py"]
    finally:
        ws.close()


PACKAGES = {
    "docs/__init__.py": "",
    "docs/options/__init__.py": "",
    "docs/options/name.py": "def main():\n    return 'name'\n",
    "docs/options/help.py": "def main():\n    return 'help'\n",
    "docs/other/__init__.py": "",
    "docs/other/tool.py": "def main():\n    return 'tool'\n",
    "tests/test_name.py": ("import pytest\n\n\n@pytest.fixture(params=[pytest.param('name')])\ndef mod(request):\n"
                           "    import importlib\n\n    return importlib.import_module(f'docs.options.{request.param}')\n\n\n"
                           "def test_name(mod):\n    assert mod.main() == 'name'\n"),
    "tests/test_help.py": ("def load():\n    from docs.options import help\n\n    return help\n\n\n"
                           "def test_help():\n    assert load().main() == 'help'\n"),
    "tests/test_tool.py": "def test_tool():\n    from docs.other import tool\n\n    assert tool.main() == 'tool'\n",
}


def test_a_packages_init_runs_where_a_module_inside_it_is_imported(tmp_path, index_files):
    """typer: a fixture imports `docs_src.arguments.default.tutorial001`, which runs the empty
    `default/__init__.py` (and each package's above it) in the tests using the fixture."""
    ws = index_files(tmp_path, PACKAGES)
    try:
        assert ws.impact("docs/options/__init__.py", depth=3)["tests"] == ["tests/test_help.py", "tests/test_name.py"]
        assert ws.impact("docs/other/__init__.py", depth=3)["tests"] == ["tests/test_tool.py"]
        assert ws.impact("docs/__init__.py", depth=3)["tests"] == ["tests/test_help.py", "tests/test_name.py",
                                                                   "tests/test_tool.py"]
    finally:
        ws.close()


LEVELS = {
    "pkg/__init__.py": "",
    "pkg/levels.py": "LEVELS = {'debug': 10}\n\n\ndef level_of(name):\n    return LEVELS[name]\n",
    "pkg/other.py": "def other():\n    return 1\n",
    "tests/test_names.py": ("from pkg.levels import LEVELS\nfrom pkg.other import other\n\n\n"
                            "def test_names():\n    assert 'debug' in LEVELS.keys() and other()\n"),
    "tests/test_level.py": "from pkg.levels import level_of\n\n\ndef test_level():\n    assert level_of('debug')\n",
}


def test_a_method_of_a_modules_variable_of_pythons_type_runs_no_code_of_it(tmp_path, index_files):
    """structlog's tests call `LEVEL_TO_NAME.keys()` on a dict _log_levels.py defines: Python's dict,
    no code of that file; the call is no unresolved one for the file-level rule."""
    ws = index_files(tmp_path, LEVELS)
    try:
        assert ws.impact("pkg/levels.py::level_of", depth=3)["tests"] == ["tests/test_level.py"]
    finally:
        ws.close()


MIXED = {
    "pkg/__init__.py": "",
    "pkg/cache.py": "class Cache:\n    def __init__(self, maxsize):\n        self.maxsize = maxsize\n",
    "tests/__init__.py": ("class CacheTestMixin:\n    Cache = None\n\n    def test_defaults(self):\n"
                          "        assert self.Cache(maxsize=1).maxsize == 1\n"),
    "tests/test_cache.py": ("import unittest\n\nimport pkg.cache\n\nfrom . import CacheTestMixin\n\n\n"
                            "class CacheTest(unittest.TestCase, CacheTestMixin):\n    Cache = pkg.cache.Cache\n"),
}


def test_a_test_class_named_otherwise_holds_the_tests_it_inherits(tmp_path, index_files):
    """cachetools: test_cache.py's only class, CacheTest, takes its tests from a mixin in tests/__init__.py
    (unittest collects a TestCase whatever its name); coverage says they run cachetools/__init__.py."""
    ws = index_files(tmp_path, MIXED)
    try:
        assert ws.impact("pkg/cache.py", depth=3)["tests"] == ["tests/test_cache.py"]
    finally:
        ws.close()


HELPERS = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def render(text):\n    return text.upper()\n",
    # markdown's src/markdown/test_tools.py: a TestCase of helpers for its tests, and a metaclass whose nested
    # `test` function becomes the test methods of the classes that use it; it runs no test of its own
    "pkg/test_tools.py": ("import unittest\n\nfrom pkg.core import render\n\n\n"
                          "class TestCase(unittest.TestCase):\n    def assertRenders(self, text, out):\n"
                          "        self.assertEqual(render(text), out)\n\n\n"
                          "class LegacyMeta(type):\n    def __new__(cls, name, bases, dct):\n"
                          "        def make(text):\n            def test(self):\n                render(text)\n"
                          "            return test\n        dct['test_one'] = make('a')\n"
                          "        return type.__new__(cls, name, bases, dct)\n\n\n"
                          "class LegacyTestCase(unittest.TestCase, metaclass=LegacyMeta):\n    pass\n"),
    # a class named test* with a workspace base: the base makes its tests
    "tests/test_legacy.py": "from pkg.test_tools import LegacyTestCase\n\n\nclass TestBasic(LegacyTestCase):\n    pass\n",
    # mistune's: a class a function makes, named test*, with a workspace base
    "tests/test_made.py": ("from pkg.test_tools import LegacyTestCase\n\n\ndef load(name):\n"
                           "    class TestMade(LegacyTestCase):\n        pass\n    globals()['TestMade' + name] = TestMade\n\n\n"
                           "load('x')\n"),
    # a class named test* of Python's base only, with no test method: nothing runs
    "tests/test_empty.py": ("import unittest\n\nfrom pkg.core import render\n\n\n"
                            "class TestNothing(unittest.TestCase):\n    def helper(self):\n        return render('x')\n"),
    "tests/test_plain.py": "from pkg.core import render\n\n\ndef test_render():\n    assert render('a') == 'A'\n",
}


def test_a_class_named_test_holds_tests_only_with_test_methods_or_a_workspace_base(tmp_path, index_files):
    """markdown's test_tools.py (src/) holds a `TestCase` of helpers and a metaclass with a nested `test`
    function: no runner collects a test there (coverage: its 11 pairs were false). A class named Test* of a
    workspace base holds the tests the base makes, also one a function makes (mistune's)."""
    ws = index_files(tmp_path, HELPERS)
    try:
        assert ws.impact("pkg/core.py", depth=3)["tests"] == ["tests/test_legacy.py", "tests/test_made.py",
                                                               "tests/test_plain.py"]
    finally:
        ws.close()
