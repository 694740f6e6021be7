"""What a class's makers run, and which name guesses test selection walks (graph/tests_held.py),
pinned on a small workspace indexed for real: making a Shape runs its `__init__` and its property,
not a method called through a typed receiver elsewhere; `page.render()` on a fixture's Page walks
the guess at Page.render only; a guess no caller holds walks every candidate but an override.
"""

from __future__ import annotations

import pytest

FILES = {  # one helper per rule, so the helper says which tests ran it
    "pkg/__init__.py": "",
    "pkg/helpers.py": ("def made_helper():\n    return 1\n\n\ndef area_helper():\n    return 2\n\n\n"
                       "def size_helper():\n    return 3\n\n\ndef page_helper():\n    return 4\n\n\n"
                       "def panel_helper():\n    return 5\n\n\ndef fancy_helper():\n    return 6\n"),
    "pkg/shapes.py": ("from pkg.helpers import area_helper, made_helper, size_helper\n\n\n"
                      "class Shape:\n    def __init__(self):\n        self.n = made_helper()\n\n"
                      "    def area(self):\n        return area_helper()\n\n"
                      "    @property\n    def size(self):\n        return size_helper()\n"),
    "pkg/pages.py": ("from pkg.helpers import fancy_helper, page_helper, panel_helper\n\n\n"
                     "class Page:\n    def render(self):\n        return page_helper()\n\n\n"
                     "class Panel:\n    def render(self):\n        return panel_helper()\n\n\n"
                     "class Fancy(Page):\n    def render(self):\n        return fancy_helper()\n"),
    # a fixture whose value the resolver cannot type (made in another file's function, which
    # store/fixture_calls.py does not follow), so that `page.render()` stays a guess
    "pkg/factory.py": "from pkg.pages import Page\n\n\ndef build_page():\n    return Page()\n",
    "tests/conftest.py": ("import pytest\nfrom pkg.factory import build_page\n\n\n"
                          "@pytest.fixture\ndef page():\n    return build_page()\n\n\n"
                          "@pytest.fixture\ndef anything():\n    return object()\n"),
    "tests/test_make.py": "from pkg.shapes import Shape\n\n\ndef test_make():\n    assert Shape().n == 1\n",
    "tests/test_area.py": ("from pkg.shapes import Shape\n\n\n"
                           "def test_area():\n    s = Shape()\n    assert s.area() == 2\n"),
    "tests/test_page.py": "def test_page(page):\n    assert page.render() == 4\n",
    "tests/test_any.py": "def test_any(anything):\n    assert anything.render()\n",
}


def selected_for(ws, helper: str) -> list[str]:
    return ws.impact(f"pkg/helpers.py::{helper}", depth=3)["tests"]


def test_making_an_instance_runs_init_not_every_method(ws, symbol_edges):
    assert ("tests/test_area.py::test_area", "pkg/shapes.py::Shape.area") in symbol_edges(ws, "CALLS")  # typed
    assert selected_for(ws, "made_helper") == ["tests/test_area.py", "tests/test_make.py"]
    # Shape.area is called through a typed receiver only: test_make, which makes a Shape, does not run it
    assert selected_for(ws, "area_helper") == ["tests/test_area.py"]


def test_a_method_never_called_by_name_runs_for_whoever_makes_one(ws):
    # `size` is a property: no call names it, so every maker of a Shape may run it
    assert selected_for(ws, "size_helper") == ["tests/test_area.py", "tests/test_make.py"]


def test_a_guess_at_a_class_the_caller_holds_wins(ws, symbol_edges):
    guessed = {d for s, d in symbol_edges(ws, "CALLS") if s == "tests/test_page.py::test_page"}
    assert {"pkg/pages.py::Page.render", "pkg/pages.py::Panel.render", "pkg/pages.py::Fancy.render"} <= guessed
    # test_page's fixture makes a Page: of the three guesses, only Page.render is walked
    assert "tests/test_page.py" in selected_for(ws, "page_helper")
    assert "tests/test_page.py" not in selected_for(ws, "panel_helper")
    assert "tests/test_page.py" not in selected_for(ws, "fancy_helper")


def test_a_guess_nobody_holds_walks_every_candidate_but_overrides(ws):
    # `anything.render()`: nothing says which; Page.render and Panel.render stay, Fancy.render
    # (an override of Page.render) runs only for whoever makes a Fancy
    assert "tests/test_any.py" in selected_for(ws, "page_helper")
    assert "tests/test_any.py" in selected_for(ws, "panel_helper")
    assert selected_for(ws, "fancy_helper") == []


def test_holders_follow_a_growing_names_table():
    """`Holders` reads each name once per names table: a holder or a leaf looked up in vain is
    found when the table (shared by the graphs that follow an edit) adds it later."""
    import numpy as np

    from memory_lsp.graph.names import Names
    from memory_lsp.graph.tests_held import Holders

    def table(names):
        return Names("".join(names), np.array([len(n) for n in names], dtype=np.int64))

    names = table(["a.py", "a.py::C.m", "a.py::D", "a.py::D.__init__"])
    calls = table(["other"])
    held = Holders(names, calls)
    held.grow()
    ids = np.arange(4)
    assert held.holder_of(ids, 4).tolist() == [-1, -1, -1, 2]
    assert held.dunder.tolist() == [False, False, False, True]
    names.intern(["a.py::C"])  # the class of the method: id 4
    calls.intern(["m"])  # a call named like the method: id 1
    held.grow()
    assert held.holder_of(np.arange(5), 5).tolist() == [-1, 4, -1, 2, -1]
    assert held.leaf_of(np.array([1]), 2).tolist() == [1]
    assert held.leaf_of(np.array([1]), 1).tolist() == [-1]  # a graph that knows one call name
    assert held.holder_of(np.array([1]), 4).tolist() == [-1]  # a graph that knows four names


def test_holders_grown_by_threads_at_once():
    """The server's graph thread and a request may build test selection at once: one `Holders`
    per names table, grown by both, must come out as grown by one (twice the rows broke a build)."""
    import threading

    import numpy as np

    from memory_lsp.graph.names import Names
    from memory_lsp.graph.tests_held import Holders

    def table(names):
        return Names("".join(names), np.array([len(n) for n in names], dtype=np.int64))

    names = [f"m{i // 50}.py::C{i % 50}.f{i}" for i in range(60_000)]
    calls = [f"f{i}" for i in range(0, 60_000, 2)]
    want = Holders(table(names), table(calls))
    want.grow()
    shared = Holders(table(names), table(calls))
    start = threading.Barrier(4)
    errors = []

    def grow():
        start.wait()
        try:
            shared.grow()
        except Exception as e:  # noqa: BLE001 - the test reports it
            errors.append(e)

    threads = [threading.Thread(target=grow) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(shared.holder) == len(names)
    assert np.array_equal(shared.holder, want.holder) and np.array_equal(shared.leaf, want.leaf)
