"""An override's dependents include the callers of the method it overrides that may run it (graph/overridden.py):
`use(b: Base)` calling `b.run()` runs `Sub.run` when b is a Sub, though its CALLS edge names `Base.run`. Not a
`super().run()` (the next class up from the caller's), nor a `self.run()` in a sibling class (click's
`Command.make_parser` calls `param.add_to_parser`, which runs `Option.add_to_parser` for an option)."""

from __future__ import annotations

from memory_lsp.graph import overridden

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": ("class Base:\n    def run(self):\n        return 1\n\n    def twice(self):\n"
                    "        return self.run() * 2\n\n\n"
                    "class Sub(Base):\n    def run(self):\n        return super().run() + 1\n\n\n"
                    "class Again(Base):\n    def run(self):\n        return super().run() + 2\n"),
    "pkg/use.py": ("from pkg.base import Base\n\n\ndef use(b: Base):\n    return b.run()\n\n\n"
                   "def caller():\n    return use(Base())\n"),
    "pkg/more.py": ("from pkg.base import Base\n\n\nclass Sibling(Base):\n    def go(self):\n"
                    "        return self.run()\n"),
}


def _dependents(ws, target: str, **kw) -> dict[str, float]:
    return {f"{d['path']}::{d['symbol']}": d["confidence"] for d in ws.impact(target, depth=3, **kw)["dependents"]}


def test_an_override_is_run_by_the_callers_of_the_method_it_overrides(ws):
    found = _dependents(ws, "pkg/base.py::Sub.run")
    assert found == {"pkg/use.py::use": 0.5, "pkg/use.py::caller": 0.5,  # b.run() on a Base: maybe a Sub
                     "pkg/base.py::Base.twice": 0.5}  # self.run() in a base of Sub


def test_super_calls_and_a_siblings_self_calls_never_reach_it(ws):
    found = _dependents(ws, "pkg/base.py::Sub.run")
    assert "pkg/base.py::Again.run" not in found  # super().run() in Again: Base.run
    assert "pkg/more.py::Sibling.go" not in found  # self.run() in Sibling: never a Sub


def test_the_base_methods_own_dependents_are_unchanged(ws):
    assert set(_dependents(ws, "pkg/base.py::Base.run")) == {
        "pkg/use.py::use", "pkg/use.py::caller", "pkg/base.py::Base.twice", "pkg/more.py::Sibling.go",
        "pkg/base.py::Sub.run", "pkg/base.py::Again.run"}


def test_above_maybe_the_dispatch_is_not_listed(ws):
    assert _dependents(ws, "pkg/base.py::Sub.run", min_confidence=0.6) == {}


def test_go_embedding_is_no_dispatch(tmp_path, index_files):
    """An embedded type's method never runs the outer type's (`Server` embeds `Base`): no override there."""
    ws = index_files(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.21\n",
        "server/base.go": "package server\n\ntype Base struct{}\n\nfunc (b *Base) Run() int { return 1 }\n",
        "server/server.go": "package server\n\ntype Server struct {\n\tBase\n}\n\nfunc (s *Server) Run() int { return 2 }\n"})
    try:
        graph = ws.load_graph()
        assert ("server/server.go::Server", "server/base.go::Base") in set(zip(*[
            [graph.names[i] for i in side.tolist()] for side in overridden.inherits_edges(graph)]))
        assert overridden.overridden(graph, "server/server.go::Server.Run") == ([], set())
    finally:
        ws.close()


def test_counts_are_the_lengths_of_the_walk_for_every_symbol(tmp_path, index_files):
    """A lens counts a method whose walk merges others (the methods it overrides, a stub's implementation) from
    node ids (`overridden.counts`), no dependent made; `walk` lists them: the same numbers at each depth and
    confidence, tests included."""
    stub = ("class Base:\n    def run(self) -> int: ...\n    def twice(self) -> int: ...\n\n\n"
            "class Sub(Base):\n    def run(self) -> int: ...\n")
    test = ("from pkg.base import Sub\nfrom pkg.use import caller\n\n\ndef test_caller():\n    assert caller() == 1\n\n\n"
            "def test_sub():\n    assert Sub().twice() == 4\n")
    ws = index_files(tmp_path, {**FILES, "pkg/base.pyi": stub, "tests/test_use.py": test})
    try:
        graph = ws.load_graph()
        merged = 0
        for node, path in ws.store.cursor().execute("SELECT id, path FROM symbols ORDER BY id").fetchall():
            for depth in (1, 2, 3):
                for least in (0.0, 0.5, 0.6):
                    graph._counts.clear()
                    walked = tuple(map(len, graph.walk(node, path, depth, least)))
                    # a lens asks for tests only from its least dependents on: None (not selected) below
                    # that, then the same counts as asked at once (the memo's dependents-only row grows)
                    for least_dependents in (1, 3):
                        graph._counts.clear()
                        sparse = graph.counts(node, path, depth, least, tests_from=least_dependents)
                        assert sparse == (walked if walked[0] >= least_dependents else (walked[0], None))
                    assert graph.counts(node, path, depth, least) == walked, (node, depth, least)
            merged += graph.implementation(node) is not None or bool(overridden.overridden(graph, node)[0])
        assert merged >= 4  # the stub's three methods and the overrides
        # Sub.run: through the method it overrides (use, caller, Base.twice) and what calls them in the tests
        assert graph.counts("pkg/base.py::Sub.run", "pkg/base.py", 3, 0.0) == (5, 1)
    finally:
        ws.close()
