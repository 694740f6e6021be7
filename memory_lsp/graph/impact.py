"""Impact: what depends on a file or symbol, how (the path that explains it), and which tests.

The traversal runs over an in-memory reverse adjacency map built once from the edges table
(a recursive CTE over the same edges takes 12-113 ms; the map walk well under a millisecond).
`ImpactGraph.load` is what a long-lived process (the server) keeps and refreshes after a run.

Direction: X depends on T when X IMPORTS/CALLS/INHERITS T, uses T as a pytest fixture
(USES_FIXTURE), when T DRIVES X, or when X and T CO_CHANGE. Tests are files that ASSERT_ON any
file of the target or of a dependent.

Confidence: a dependent is as sure as the least sure edge on its path; a walk with
`min_confidence` does not cross edges below it. The default keeps what bench/bench_truth.py found
right at least 9 times in 10 (name-only guesses fall below it).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field

from memory_lsp.store import code, edges

DEPENDENCY_KINDS = ("IMPORTS", "CALLS", "INHERITS", "USES_FIXTURE")  # src depends on dst
DEFAULT_MIN_CONFIDENCE = 0.5
FORWARD_KINDS = ("DRIVES", "CO_CHANGES")  # dst is affected by src


@dataclass(slots=True)
class Step:
    node: str
    kind: str
    line: int | None
    confidence: float
    strategy: str
    score: float


@dataclass
class Dependent:
    node: str  # file path or symbol id
    path: str
    symbol: str | None
    depth: int
    via: list[str]  # the chain of nodes from the target to this one
    edge_kinds: list[str]
    score: float
    confidence: float
    lines: list[int | None] = field(default_factory=list)


class ImpactGraph:
    def __init__(self, edges: list[tuple], tests: set[str]):
        self.dependents: dict[str, list[Step]] = defaultdict(list)
        self.asserted_by: dict[str, set[str]] = defaultdict(set)
        self.tests = tests
        intern = sys.intern  # millions of edges name the same few nodes: keep one copy of each name
        for src, dst, kind, src_path, dst_path, line, conf, strategy, score in edges:
            src, dst, src_path, dst_path = intern(src), intern(dst), intern(src_path), intern(dst_path)
            kind, strategy, score = intern(kind), intern(strategy or ""), score or 0.0
            if kind in DEPENDENCY_KINDS:
                self.dependents[dst].append(Step(src, kind, line, conf, strategy, score))
                if src != src_path or dst != dst_path:  # symbol edge: also at file level
                    self.dependents[dst_path].append(Step(src_path, kind, line, conf, strategy, score))
            elif kind in FORWARD_KINDS:
                self.dependents[src].append(Step(dst, kind, line, conf, strategy, score))
            elif kind == "ASSERTS_ON":
                self.asserted_by[dst_path].add(src_path)
        for steps in self.dependents.values():
            steps.sort(key=lambda s: -s.score)

    @classmethod
    def load(cls, store) -> "ImpactGraph":
        cur = store.cursor()
        return cls(edges.all_edges(cur), code.test_paths(cur))

    def walk(self, target: str, target_path: str, depth: int,
             min_confidence: float = 0.0) -> tuple[list[Dependent], list[str]]:
        """Breadth first from the target; each node keeps its first (shortest, best-scored) path
        among the edges at or above `min_confidence`."""
        seen = {target: None}
        best: dict[str, Dependent] = {}
        frontier = [(target, [target], [], 1.0, 0.0, [])]
        for level in range(1, depth + 1):
            nxt = []
            for node, via, kinds, conf, score, lines in frontier:
                for step in self.dependents.get(node, ()):
                    if step.node in seen or step.node == target_path or step.confidence < min_confidence:
                        continue
                    seen[step.node] = node
                    path, _, symbol = step.node.partition("::")
                    dep = Dependent(step.node, path, symbol or None, level, via + [step.node],
                                    kinds + [step.kind], round(score + step.score / level, 4),
                                    round(min(conf, step.confidence), 4), lines + [step.line])
                    best[step.node] = dep
                    nxt.append((step.node, dep.via, dep.edge_kinds, dep.confidence, dep.score, dep.lines))
            frontier = nxt
        deps = sorted(best.values(), key=lambda d: (d.depth, -d.score))
        touched = {target_path} | {d.path for d in deps}
        tests = set()
        for p in touched:
            tests |= self.asserted_by.get(p, set())
        tests |= {p for p in touched if p in self.tests and p != target_path}
        return deps, sorted(tests)
