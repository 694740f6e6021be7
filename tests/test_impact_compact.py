"""The compact impact graph (numpy CSR) against a straightforward reference, on real code: the
standard library's json and unittest packages (with unittest's own tests) and the Python graph
contract, indexed for real. The walk, the counts and what `impact` answers from memory (target
checks, the symbols defined in a file, unresolved call sites) must equal the reference and the
SQL they replace, edge for edge.
"""

from __future__ import annotations

import shutil
import sysconfig
from collections import defaultdict
from pathlib import Path

import pytest

from memory_lsp.errors import UserError
from memory_lsp.graph import impact
from memory_lsp.graph.impact import Dependent
from memory_lsp.graph.steps import DEPENDENCY_KINDS, FORWARD_KINDS
from memory_lsp.index import languages
from memory_lsp.store import code, edges
from memory_lsp.workspace import Workspace

FAMILIES = languages.families()

CONTRACT = Path(__file__).parent / "contracts" / "languages" / "python" / "workspace"
STDLIB = Path(sysconfig.get_paths()["stdlib"])


class ReferenceGraph:
    """The walk as it was written before the graph went compact: Python lists of steps per node,
    sorted by score (stable), breadth first with the first path kept."""

    def __init__(self, rows: list[tuple], tests: set[str], symbols: set[str] = frozenset()):
        self.dependents = defaultdict(list)
        self.asserted_by = defaultdict(set)
        self.tests, self.symbols = tests, symbols
        self.bases, self.calls = defaultdict(list), defaultdict(set)  # class -> its bases; callee -> (caller, strategy)
        for src, dst, kind, src_path, dst_path, line, conf, strategy, score in rows:
            score = score or 0.0
            if kind == "INHERITS":
                self.bases[src].append(dst)
            if kind == "CALLS":
                self.calls[dst].add((src, strategy))
            if kind in DEPENDENCY_KINDS:
                self.dependents[dst].append((src, kind, line, conf, score))
                if src != src_path or dst != dst_path:
                    self.dependents[dst_path].append((src_path, kind, line, conf, score))
            elif kind in FORWARD_KINDS:
                self.dependents[src].append((dst, kind, line, conf, score))
            elif kind == "ASSERTS_ON":
                self.asserted_by[dst_path].add(src_path)
        for steps in self.dependents.values():
            steps.sort(key=lambda s: -s[4])

    def walk(self, target, target_path, depth, min_confidence=0.0):
        """The target's own walk, and for a method the walks of the methods it overrides, each dependent kept when its
        first step is a call that may run the override (a typed or plain call; a self call in its class or a base;
        no super() call, no guess by name), at most 0.5; each node by its shortest path."""
        deps, tests = self._walk(target, target_path, depth, min_confidence)
        path, _, qual = target.partition("::")
        owner, _, name = qual.rpartition(".")
        cls = f"{path}::{owner}"
        if not owner or name.startswith("__") and name.endswith("__") or cls not in self.symbols or min_confidence > 0.5 \
                or path.endswith(".go"):  # Go's embedding dispatches nothing
            return deps, tests
        ancestors, todo = [], [cls]
        while todo:
            for b in self.bases.get(todo.pop(0), ()):
                if b not in ancestors and b != cls:
                    ancestors.append(b)
                    todo.append(b)
        selves = {cls, *ancestors}
        more = []
        for method in (f"{b}.{name}" for b in ancestors if f"{b}.{name}" in self.symbols):
            admitted = {caller for caller, strategy in self.calls[method]
                        if strategy not in ("super", "name_unique", "name_ambiguous", "override")
                        and (strategy not in ("self", "self_inherited")
                             or any(caller.startswith(c + ".") for c in selves))}
            for d in self._walk(method, method.partition("::")[0], depth, min_confidence)[0]:
                if d.via[1] in admitted and d.node != target:
                    more.append(Dependent(d.node, d.path, d.symbol, d.depth, [target] + d.via[1:], d.edge_kinds,
                                          d.score, min(d.confidence, 0.5), d.lines))
        best = {}
        for d in deps + more:
            if d.node not in best or (d.depth, -d.score) < (best[d.node].depth, -best[d.node].score):
                best[d.node] = d
        return sorted(best.values(), key=lambda d: (d.depth, -d.score)), tests

    def _walk(self, target, target_path, depth, min_confidence):
        seen = {target}
        best = {}
        frontier = [(target, [target], [], 1.0, 0.0, [])]
        for level in range(1, depth + 1):
            nxt = []
            for _node, via, kinds, conf, score, lines in frontier:
                for node, kind, line, step_conf, step_score in self.dependents.get(_node, ()):
                    if node in seen or node == target_path or step_conf < min_confidence:
                        continue
                    seen.add(node)
                    path, _, symbol = node.partition("::")
                    dep = Dependent(node, path, symbol or None, level, via + [node], kinds + [kind],
                                    round(score + step_score / level, 4), round(min(conf, step_conf), 4),
                                    lines + [line])
                    best[node] = dep
                    nxt.append((node, dep.via, dep.edge_kinds, dep.confidence, dep.score, dep.lines))
            frontier = nxt
        deps = sorted(best.values(), key=lambda d: (d.depth, -d.score))
        touched = {target_path} | {d.path for d in deps}
        tests = set()
        for p in touched:
            tests |= self.asserted_by.get(p, set())
        tests |= {p for p in touched if p in self.tests and p != target_path}
        return deps, sorted(tests)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("compact")
    for package in ("json", "unittest"):
        shutil.copytree(STDLIB / package, root / "lib" / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CONTRACT, root / "contract")
    ws = Workspace.open(root)
    ws.index(workers=0)
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def targets(ws):
    cur = ws.store.cursor()
    files = [r[0] for r in cur.execute("SELECT path FROM files ORDER BY path").fetchall()]
    symbols = [(r[0], r[1]) for r in cur.execute("SELECT id, path FROM symbols ORDER BY id").fetchall()]
    return [(f, f) for f in files] + symbols


def test_the_fixture_has_every_kind_the_walk_follows(ws):
    kinds = {k for k, in ws.store.cursor().execute("SELECT DISTINCT kind FROM edges").fetchall()}
    assert {"IMPORTS", "CALLS", "INHERITS", "DRIVES", "ASSERTS_ON"} <= kinds


@pytest.mark.parametrize("min_confidence, small_walk", [(0.0, impact.SMALL_WALK), (0.5, impact.SMALL_WALK), (0.5, 0)])
def test_walk_equals_the_reference_for_every_file_and_symbol(ws, targets, min_confidence, small_walk, monkeypatch):
    monkeypatch.setattr(impact, "SMALL_WALK", small_walk)  # 0: every count takes numpy's way
    cur = ws.store.cursor()
    symbols = {i for i, in cur.execute("SELECT id FROM symbols").fetchall()}
    reference = ReferenceGraph(edges.all_edges(cur), code.test_paths(cur), symbols)
    graph = ws.load_graph()
    graph._counts.clear()
    answered = 0
    for i, (node, path) in enumerate(targets):
        for depth in (3, 1) if i % 5 == 0 else (3,):
            want = reference.walk(node, path, depth, min_confidence)
            got = graph.walk(node, path, depth, min_confidence)
            # the tests: the file-level rule's only where the symbol graph knows nothing (their
            # own reference: tests/test_tests_reach.py); the counts say what the walk lists
            assert got[0] == want[0], (node, depth)
            assert graph.counts(node, path, depth, min_confidence) == (len(want[0]), len(got[1]))
            answered += bool(want[0])
    assert answered > 100  # the comparison covered real answers, not only empty ones


def test_unknown_targets_walk_to_nothing(ws):
    graph = ws.load_graph()
    assert graph.walk("nowhere.py", "nowhere.py", 3) == ([], [])
    assert graph.counts("lib/json/decoder.py::NoSuch", "lib/json/decoder.py", 3) == (0, 0)


def test_impact_answers_unresolved_and_checks_from_memory_as_the_sql_did(ws, targets):
    cur = ws.store.cursor()
    for node, path in targets[::29]:
        for min_confidence in (0.0, 0.75):
            got = ws.impact(node, depth=3, min_confidence=min_confidence)
            if node == path:
                wanted = {(s.name, path) for s in code.symbols_of(cur, path)}
            else:
                wanted = {(node.partition("::")[2].rsplit(".", 1)[-1], path)}
            wanted |= {(d["symbol"].rsplit(".", 1)[-1], d["path"]) for d in got["dependents"] if d["symbol"]}
            assert got["unresolved"] == code.unresolved_call_sites(cur, sorted(wanted), FAMILIES, min_confidence), node


def test_impact_checks_its_target_from_memory(ws):
    with pytest.raises(UserError, match="not an indexed file: lib/json/nothere.py"):
        ws.impact("lib/json/nothere.py")
    with pytest.raises(UserError) as err:
        ws.impact("lib/json/decoder.py::NoSuch")
    known = ", ".join(s.qualname for s in code.symbols_of(ws.store.cursor(), "lib/json/decoder.py")[:8])
    assert str(err.value) == f"no symbol NoSuch in lib/json/decoder.py (defined there: {known})"
    assert known.startswith("JSONDecodeError")


def test_graph_qualnames_follow_the_index(ws, targets):
    graph = ws.load_graph()
    cur = ws.store.cursor()
    for path in {p for _n, p in targets}:
        assert graph.qualnames(path) == [s.qualname for s in code.symbols_of(cur, path)]
