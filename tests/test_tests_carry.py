"""A graph that follows an edit takes the last graph's test selection when nothing it was built
from changed (graph/tests_carry.py), grows it when the edit only added or removed symbols that
no step touches (graph/tests_grow.py), and builds its own otherwise: after every edit below, each
file's and symbol's selected tests, and the walk's arrays, equal those of a selection built fresh
on the same graph. Each edit changes one part of what selection reads, and says which of the
three the graph must do."""

from __future__ import annotations

import numpy as np
import pytest

from memory_lsp.graph import tests_carry, tests_reach

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": ("class Store:\n    def get(self):\n        return 1\n\n    def put(self):\n        return 2\n\n\n"
                    "class Cache:\n    def get(self):\n        return 3\n\n\ndef helper():\n    return 4\n"),
    "pkg/use.py": ("from pkg.core import Store, helper\n\n\ndef run(x):\n    s = Store()\n    x.get()\n"
                   "    return s.put()\n\n\ndef other():\n    return helper()\n"),
    "tests/test_use.py": "from pkg.use import run\n\n\ndef test_run():\n    assert run(None)\n",
    "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper()\n",
    # jinja2's filters: env.py takes a name from defaults.py, which takes it from fns.py
    "pkg/fns.py": "def f1():\n    return 1\n",
    "pkg/defaults.py": "from pkg.fns import f1 as default_f\n",
    "pkg/env.py": ("from pkg.defaults import default_f\n\n\nclass Env:\n    def render(self):\n"
                   "        return self.render_func()\n"),
    "tests/test_env.py": "from pkg.env import Env\n\n\ndef test_render():\n    assert Env().render()\n",
    # an exception made to be raised (graph/tests_raised.py)
    "pkg/errors.py": ("class Oops(Exception):\n    pass\n\n\ndef fail():\n    raise Oops()\n\n\n"
                      "class Other:\n    def __init__(self):\n        self.n = 0\n"),
    "tests/test_errors.py": ("from pkg.errors import fail\n\n\ndef test_fail():\n    try:\n        fail()\n"
                             "    except Exception:\n        pass\n"),
    # a test class named otherwise whose tests are a mixin's (cachetools' CacheTest): none yet
    "tests/mixins.py": "class CacheTestMixin:\n    Cache = None\n",
    "pkg/checks.py": "class Checks:\n    pass\n",  # a package's test mixin
    "tests/test_checked.py": "from pkg.checks import Checks\n\n\nclass Checked(Checks):\n    pass\n",
    "tests/test_mixed.py": ("import unittest\n\nfrom tests.mixins import CacheTestMixin\n\n\n"
                            "class CacheTest(unittest.TestCase, CacheTestMixin):\n    pass\n"),
    # a module-level value holding another file's function (graph/tests_through.py module_held)
    "pkg/handlers.py": "def handle():\n    return 1\n",
    "pkg/registry.py": "from pkg.handlers import handle\n\nHANDLERS = [handle]\n\n\ndef dispatch():\n    return HANDLERS\n",
    "tests/test_registry.py": "from pkg.registry import dispatch\n\n\ndef test_dispatch():\n    assert dispatch()\n",
    # a function its own file's module-level value holds, and another file's too
    "pkg/local.py": "def f():\n    return 1\n\n\nHOOKS = [f]\n\n\ndef g():\n    return HOOKS\n",
    "pkg/holder.py": "from pkg.local import f\n\nMORE = [f]\n\n\ndef use():\n    return MORE\n",
    "tests/test_holder.py": "from pkg.holder import use\n\n\ndef test_use():\n    assert use()\n",
    # a class decorating a test file's function (graph/tests_through.py class_decorated): no __call__ yet
    "pkg/deco.py": "class wrap:\n    def __init__(self, f):\n        self.f = f\n",
    "pkg/call.py": "def call(app):\n    return app()\n",
    # a property read where its class is made (graph/tests_read.py): it runs there, not for every maker
    "pkg/props.py": ("class Box:\n    @property\n    def weight(self):\n        return 1\n\n\n"
                     "def weigh():\n    b = Box()\n    return b.weight\n"),
    "tests/test_props.py": "from pkg.props import Box, weigh\n\n\ndef test_weigh():\n    assert weigh() and Box()\n",
    "tests/test_deco.py": ("from pkg.call import call\nfrom pkg.deco import wrap\n\n\n@wrap\ndef app():\n    return 1\n\n\n"
                           "def test_app():\n    assert call(app)\n"),
}

# (what, the files written, what the graph's selection must be: the last one "carried" (nothing it
# reads changed), "grown" from it (graph/tests_grow.py: symbols added or removed that no step
# touches) or "built" again)
EDITS = [
    ("a comment above everything: lines move, nothing else", {
        "pkg/use.py": "# moved\n" + FILES["pkg/use.py"]}, "carried"),
    ("a body's text, same calls", {"pkg/core.py": FILES["pkg/core.py"].replace("return 4", "return 5")}, "carried"),
    ("a new call: a step more", {
        "pkg/use.py": "# moved\n" + FILES["pkg/use.py"].replace("return helper()", "return helper() + run(1)")}, "built"),
    ("two guessed calls on one line move to two lines: the call sites differ", {
        "pkg/use.py": "# moved\n" + FILES["pkg/use.py"].replace("return helper() + run(1)", "return helper()")
        .replace("    x.get()\n", "    x.get(); x.get()\n")}, "built"),
    ("... and onto two lines", {
        "pkg/use.py": "# moved\n" + FILES["pkg/use.py"].replace("    x.get()\n", "    x.get()\n    x.get()\n")},
     "built"),
    ("a test added: a symbol more, in a test file, nothing called", {
        "tests/test_core.py": FILES["tests/test_core.py"] + "\n\ndef test_more():\n    assert True\n"}, "grown"),
    ("a helper file becomes a test file's (a new file)", {"tests/test_new.py": "def test_x():\n    pass\n"}, "built"),
    ("a call site of a name nothing called before", {
        "pkg/use.py": "# moved\n" + FILES["pkg/use.py"].replace("    x.get()\n", "    x.get()\n    x.nothing_here()\n")},
     "built"),
    ("a name re-exported from another file: where an attribute's class or function may come from moves", {
        "pkg/defaults.py": "from pkg.core import helper as default_f\n"}, "built"),
    ("the name re-exported from where it was", {"pkg/defaults.py": FILES["pkg/defaults.py"]}, "built"),
    ("a function typed that calls nothing of the workspace", {
        "pkg/core.py": FILES["pkg/core.py"] + "\n\ndef typed(x):\n    return len(x)\n"}, "grown"),
    ("a nested function in a function a test runs: it runs with it", {
        "pkg/core.py": FILES["pkg/core.py"].replace("def helper():\n", "def helper():\n    def inner():\n"
                                                    "        return 0\n\n") + "\n\ndef typed(x):\n    return len(x)\n"},
     "grown"),
    ("a method nobody calls by name, added to a class a test makes", {
        "pkg/core.py": FILES["pkg/core.py"].replace("    def put(self):", "    def never_named(self):\n"
                                                    "        return 0\n\n    def put(self):")}, "grown"),
    ("a method named like a function called elsewhere (`helper()`): held as its callers say", {
        "pkg/core.py": FILES["pkg/core.py"].replace("    def put(self):", "    def helper(self):\n"
                                                    "        return 0\n\n    def put(self):")}, "built"),
    ("a method named like a property read elsewhere, added to another class: which class the reads are of moves", {
        "pkg/core.py": FILES["pkg/core.py"].replace("    def put(self):", "    def weight(self):\n"
                                                    "        return 0\n\n    def put(self):")}, "built"),
    ("a class added: which classes a caller makes may move (test selection's classes)", {
        "pkg/core.py": FILES["pkg/core.py"] + "\n\nclass Fresh:\n    def unheard_of(self):\n        return 2\n"},
     "built"),
    ("those symbols removed again", {"pkg/core.py": FILES["pkg/core.py"]}, "built"),
    ("the test removed, a function typed in a test file", {
        "tests/test_core.py": FILES["tests/test_core.py"] + "\n\ndef _helper_typed():\n    return 1\n"}, "grown"),
    ("a test file's only test renamed to a helper: it holds no test now", {
        "tests/test_new.py": "def _x():\n    pass\n"}, "grown"),
    ("a function typed where an attribute holding a class may run it (tests_through.dispatch)", {
        "pkg/fns.py": FILES["pkg/fns.py"] + "\n\ndef f2():\n    return 2\n"}, "built"),
    ("an __init__ typed in a raised class: its raiser's step goes to it now (graph/tests_raised.py)", {
        "pkg/errors.py": FILES["pkg/errors.py"].replace("    pass\n", "    def __init__(self):\n        self.n = 1\n")},
     "built"),
    ("a mixin's first test method: the test file whose class inherits it holds a test now", {
        "tests/mixins.py": FILES["tests/mixins.py"] + "\n    def test_defaults(self):\n        assert True\n"},
     {True: "built", False: "grown"}),  # with bits: its file's first entry, a bit column more
    ("a test method given to a package's mixin: the test file whose class inherits it holds a test now", {
        "pkg/checks.py": FILES["pkg/checks.py"] + "\n    def test_checked(self):\n        assert True\n"}, "grown"),
    ("a function typed in a file holding a module-level value: it steps to the value too, and no answer moves", {
        "pkg/registry.py": FILES["pkg/registry.py"] + "\n\ndef more():\n    return 2\n"}, "grown"),
    ("the held value's line moved right above a definition, lines alone: a decorator's line now (tests_through.py)", {
        "pkg/registry.py": FILES["pkg/registry.py"].replace("]\n\n\ndef", "]\ndef") + "\n\ndef more():\n    return 2\n"},
     "built"),
    ("a function typed right below a held value: its line is a decorator's now, in another file too", {
        "pkg/local.py": FILES["pkg/local.py"].replace("[f]\n", "[f]\ndef h():\n    return 2\n")}, "built"),
    ("a __call__ given to a class decorating a definition: the definition steps to it", {
        "pkg/deco.py": FILES["pkg/deco.py"] + "\n    def __call__(self):\n        return self.f()\n"}, "built"),
    ("the decorated definition's lines move, the same one under the decorator", {
        "tests/test_deco.py": "# moved\n" + FILES["tests/test_deco.py"]}, "carried"),
    ("a builtin's call typed into a function of a holding file that made none: it runs what the file holds now", {
        "pkg/registry.py": FILES["pkg/registry.py"].replace("]\n\n\ndef", "]\ndef").replace("return HANDLERS", "return len(HANDLERS)")
        + "\n\ndef more():\n    return 2\n"}, "built"),
    ("another definition under the decorator", {
        "tests/test_deco.py": FILES["tests/test_deco.py"].replace("@wrap\ndef app", "@wrap\ndef other():\n    return 2\n\n\ndef app")},
     "built"),
]


def _selection(g, reach) -> dict:
    """Every file's and symbol's selected test files."""
    out = {}
    for i in np.flatnonzero(g.is_file | g.is_symbol).tolist():
        name = g.names[i]
        path = name.partition("::")[0]
        out[name] = tests_reach.select(g, reach, name, path, np.zeros(0, dtype=np.int64))
    return out


def _write(root, files):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.mark.parametrize("bits", [True, False], ids=["bits", "walks"])
def test_the_carried_selection_equals_a_fresh_one_after_every_edit(tmp_path, index_files, monkeypatch, bits):
    """`walks`: no node's tests kept as bits (a workspace past BITS_BUDGET): each question walks."""
    if not bits:
        monkeypatch.setattr(tests_reach, "BITS_BUDGET", 0)
    ws = index_files(tmp_path, FILES)
    try:
        graph = ws.load_graph(prepare=True)
        for what, change, outcome in EDITS:
            _write(tmp_path, change)
            before = graph.test_reach()
            ws.reindex({str(tmp_path / rel): text.encode() for rel, text in change.items()})
            graph = ws.load_graph(prepare=True)
            assert graph.followed, what  # followed, not read whole
            now = graph.test_reach()
            # a build makes its own memo; a grown selection keeps the last one's
            expected = outcome if isinstance(outcome, str) else outcome[bits]
            assert ("carried" if now is before else "grown" if now.memo is before.memo else "built") == expected, what
            fresh = tests_reach.TestReach(graph, graph.unresolved_calls)
            assert _selection(graph, now) == _selection(graph, fresh), what
            assert _reached(graph, now) == _reached(graph, fresh), what
            for part in ("live", "has_caller", "live_plain"):
                assert np.array_equal(getattr(now.walk, part), getattr(fresh.walk, part)), (what, part)
            symbols = graph.is_symbol
            assert np.array_equal(now.walk.parent[symbols], fresh.walk.parent[symbols]), what
            assert np.array_equal(now.holds_tests, fresh.holds_tests), what
            assert np.array_equal(now.known, fresh.known), what
    finally:
        ws.close()


def _reached(g, reach) -> dict:
    """Every symbol's test files as the walk or the bits say, its own file's included (select drops it)."""
    return {g.names[i]: reach.test_files(g, np.array([i])) for i in np.flatnonzero(g.is_symbol).tolist()}


def test_the_followed_step_hash_equals_one_of_all_steps_after_every_edit(tmp_path, index_files, monkeypatch):
    """A followed graph hashes its steps as a change of the last graph's (the steps of edges gone
    and made, the guessed steps of their callers again): equal to hashing every step. The steps
    are mixed a chunk at a time (here 7, so that a caller's guessed steps span chunks)."""
    monkeypatch.setattr(tests_carry, "CHUNK", 7)
    ws = index_files(tmp_path, FILES)
    try:
        graph = ws.load_graph(prepare=True)
        tests_carry.digest(graph)
        followed = 0
        for what, change, _same in EDITS:
            _write(tmp_path, change)
            ws.reindex({str(tmp_path / rel): text.encode() for rel, text in change.items()})
            graph = ws.load_graph(prepare=True)
            graph.test_reach()
            if "_step_sums" in graph.__dict__:
                followed += 1
                with monkeypatch.context() as whole:  # every step in one chunk
                    whole.setattr(tests_carry, "CHUNK", 1 << 40)
                    everything = tests_carry._row_sums(graph)
                assert np.array_equal(graph._step_sums, everything), what
                assert np.array_equal(tests_carry._row_sums(graph), everything), what
            tests_carry.digest(graph)
        assert followed >= 5
    finally:
        ws.close()


def test_the_first_follow_after_a_whole_load_keeps_the_unresolved_columns(tmp_path, index_files):
    """The carry compares those columns by identity: a whole-loaded graph's must be kept too."""
    ws = index_files(tmp_path, FILES)
    try:
        graph = ws.load_graph(prepare=True)
        assert not graph.followed  # read whole
        before = graph.test_reach()
        _write(tmp_path, {"pkg/use.py": "# moved\n" + FILES["pkg/use.py"]})
        ws.reindex({str(tmp_path / "pkg/use.py"): ("# moved\n" + FILES["pkg/use.py"]).encode()})
        followed = ws.load_graph(prepare=True)
        assert all(followed.unresolved_calls[k] is graph.unresolved_calls[k] for k in tests_carry.UNRESOLVED_KINDS + ("silent",))
        assert followed.test_reach() is before
    finally:
        ws.close()


@pytest.fixture
def graph(tmp_path, index_files):
    """A graph of FILES loaded whole, its digest not yet taken; each test may change it."""
    ws = index_files(tmp_path, FILES)
    yield ws.load_graph()
    ws.close()


@pytest.mark.parametrize("part", ["n", "is_symbol", "is_test", "path_of", "kind", "rank", "sites", "labels"])
def test_each_part_of_the_digest_counts(graph, part):
    """The digest of a graph changes when any one part of what a TestReach reads does."""
    g = graph
    base = tests_carry.digest(g)
    del g.__dict__["_reach_digest"], g.__dict__["_step_sums"]  # both kept on the graph once taken
    if part == "n":
        g.n += 1
        g.path_of, g.is_symbol = np.r_[g.path_of, -1], np.r_[g.is_symbol, False]
        g.is_file, g.is_test = np.r_[g.is_file, False], np.r_[g.is_test, False]
        g.step_ptr = np.r_[g.step_ptr, g.step_ptr[-1]]
    elif part in ("is_symbol", "is_test"):
        mask = getattr(g, part)
        mask[0] = not mask[0]
    elif part == "path_of":
        s = int(np.flatnonzero(g.is_symbol)[0])
        g.path_of[s] = -1
    elif part == "kind":
        g.e["kind"] = g.e["kind"].copy()
        g.e["kind"][g.step_edge[0]] ^= 1
    elif part == "rank":
        guessed = [g.strategies.index(s) for s in tests_reach.GUESSES if s in g.strategies]
        at = np.flatnonzero(np.isin(g.e["strategy"][g.step_edge], guessed))
        assert len(at) >= 2, "the fixture has two guessed steps"  # x.get() -> Store.get, Cache.get
        g.e["line"] = g.e["line"].copy()
        g.e["line"][g.step_edge[at[0]]] += 100  # the two guesses no longer share a call site
    elif part == "sites":
        g.call_ptr = g.call_ptr.copy()
        g.call_ptr[1:] = g.call_ptr[1:] + np.where(np.diff(g.call_ptr) == 0, 1, 0).cumsum()
    elif part == "labels":
        g.strategies = list(g.strategies) + ["another"]
    assert tests_carry.digest(g) != base, part


def test_lines_alone_do_not_change_the_digest(graph):
    base = tests_carry.digest(graph)
    del graph.__dict__["_reach_digest"], graph.__dict__["_step_sums"]
    graph.e["line"], graph.e["score"] = graph.e["line"] + 7, graph.e["score"] * 0.5
    assert tests_carry.digest(graph) == base
