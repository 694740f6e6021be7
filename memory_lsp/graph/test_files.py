"""Which test files hold tests (graph/tests_reach.py): a Python test file collected by the runners with a
module-level function or a class's method named test*, or a class inheriting a workspace class's test* methods."""

from __future__ import annotations

import numpy as np

from memory_lsp.graph.steps import csr_rows


def ext(name: str) -> str:
    """A node name's file extension ("" for none)."""
    tail = name.rsplit("/", 1)[-1]
    return tail.rsplit(".", 1)[-1] if "." in tail else ""


def leaf(name: str) -> str:
    """A symbol node's last name (`m.py::A.b` -> b)."""
    return name.partition("::")[2].rsplit(".", 1)[-1]


def holds_tests_in(g, f: int, inherits: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
    """Whether test file `f` holds a test (`TestReach._holds_tests`): a module-level function named test*, a
    test* method of a class (unittest collects a TestCase whatever its name), or a class inheriting a workspace
    class's test* methods (cachetools' `class CacheTest(unittest.TestCase, CacheTestMixin)`: its tests are the
    mixin's) or named test* with a workspace base. A class named Test* with neither runs no test (markdown's
    `test_tools.py` offers its tests a `TestCase` of helpers; its nested `test` functions become methods elsewhere).
    `inherits`: the graph's INHERITS edges (`inherits_edges`), when many files are asked."""
    if ext(g.names[f]) not in ("py", "pyi"):
        return True
    base = g.names[f].rsplit("/", 1)[-1]
    if not (base.startswith("test") or base.endswith("_test.py")):
        return False
    lo, hi = int(g.file_symbol_ptr[f]), int(g.file_symbol_ptr[f + 1])
    rows = g.file_symbol[lo:hi].tolist()
    kinds = [g.sym_kinds[c] for c in g.sym_kind[g.file_symbol_row[lo:hi]].tolist()]
    named = []  # the classes named test*
    classes = None  # the file's classes' qualnames, when a test* method asks
    for k in (k for k, i in enumerate(rows) if leaf(g.names[i]).lower().startswith("test")):  # each name once
        outer = g.names[rows[k]].partition("::")[2].rpartition(".")[0]
        if kinds[k] == "method" and classes is None:
            classes = {g.names[i].partition("::")[2] for i, kind in zip(rows, kinds) if kind == "class"}
        if kinds[k] == "function" and not outer or kinds[k] == "method" and _in_classes(outer, classes):
            return True  # what the runners collect: a module-level test function, a class's test method
        if kinds[k] == "class":
            named.append(rows[k])
    edges = inherits if inherits is not None else inherits_edges(g)
    # a class named test* with a workspace base, which may make its tests (markdown's `LegacyTestCase` through its
    # metaclass; mistune's `BaseTestCase.load_fixtures`, also for a class a function makes and puts in `globals()`)
    return any(bool((edges[0] == c).any()) for c in named) or _inherits_tests(g, rows, edges)


def _in_classes(qualname: str, classes: set[str]) -> bool:
    """Whether `qualname` and each name around it is a class (a class inside a function is collected by no runner)."""
    while qualname:
        if qualname not in classes:
            return False
        qualname = qualname.rpartition(".")[0]
    return True


def inherits_edges(g) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) of the graph's INHERITS edges."""
    at = g.e["kind"] == (g.kinds.index("INHERITS") if "INHERITS" in g.kinds else -1)
    return g.e["src"][at], g.e["dst"][at]


INHERIT_DEPTH = 4  # how far up a test class's bases are followed for the test methods it inherits


def _inherits_tests(g, rows: list[int], inherits: tuple[np.ndarray, np.ndarray] | None) -> bool:
    """Whether a class among `rows` has a base up to INHERIT_DEPTH up, in the workspace, with a method named test*."""
    src, dst = inherits if inherits is not None else inherits_edges(g)
    classes = np.array(rows, dtype=np.int64)
    for _ in range(INHERIT_DEPTH if len(src) else 0):
        classes = np.unique(dst[np.isin(src, classes)]).astype(np.int64)
        for b in classes.tolist():
            f, prefix = int(g.path_of[b]), g.names[b] + "."
            members = g.file_symbol[g.file_symbol_ptr[f]:g.file_symbol_ptr[f + 1]].tolist() if f >= 0 else []
            if any(g.names[i].startswith(prefix) and leaf(g.names[i]).lower().startswith("test") for i in members):
                return True
    return False


def inheriting_files(g, files: set[int]) -> set[int]:
    """The test files with a class whose base (up to INHERIT_DEPTH up) is a class of `files`: their `holds_tests_in`
    turns on those files' methods."""
    if "INHERITS" not in g.kinds or not files:
        return set()
    inherits, out = g.kinds.index("INHERITS"), set()
    nodes = np.concatenate([g.file_symbol[g.file_symbol_ptr[f]:g.file_symbol_ptr[f + 1]] for f in files]).astype(np.int64)
    for _ in range(INHERIT_DEPTH):
        rows = csr_rows(g.step_ptr, nodes)
        nodes = np.unique(g.step_node[rows][g.e["kind"][g.step_edge[rows]] == inherits]).astype(np.int64)
        out |= {int(g.path_of[v]) for v in nodes.tolist() if g.path_of[v] >= 0 and g.is_test[g.path_of[v]]}
    return out
