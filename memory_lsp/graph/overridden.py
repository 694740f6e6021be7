"""What dispatch adds to a method's dependents: `def use(b: Base): b.run()` runs `Sub.run` when b is a Sub, but
its CALLS edge names `Base.run`, the method the receiver's class resolves to (as jedi's goto does). So the callers
of the methods an override overrides are its dependents too, at most "maybe" (DISPATCH_CONFIDENCE), except two
kinds of call that never reach it: `super().run()`, which runs the next class up from the caller's own, and
`self.run()` in a class the override's class does not inherit from (a sibling's self is never a Sub); a call
guessed by name has its own `override` edges (store/calls.py). Not in Go, whose embedding (an INHERITS edge)
dispatches nothing.

Each overridden method is walked as the target is (graph/impact.py `_walk`), and a dependent stays when its first
step is a call that may dispatch here; a node whose shortest path starts with one that may not is left out, even
if a longer path would admit it (rare: a caller making both kinds of call on the same line counts as admitted).
A lens only counts what `walk` lists (`counts`): the same walks over node ids, no dependent made.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.graph.steps import run_of, runs
from memory_lsp.graph.test_files import inherits_edges
from memory_lsp.graph.tests_reach import GUESSES
from memory_lsp.index import languages

DISPATCH_CONFIDENCE = 0.5  # the caller runs the override only when its receiver is an instance of the override's class
SELF_CALLS = ("self", "self_inherited")  # strategies of a `self.m()` call (store/calls.py)
# Go's embedding is an INHERITS edge, but a method of the embedded type never runs the outer type's
NO_DISPATCH = frozenset({"go"})


def ancestors(g, cls: str) -> list[str]:
    """The classes `cls` inherits from, transitively, nearest first (INHERITS edges of the graph)."""
    bases, start = _bases(g), g.node_id(cls)
    found, frontier = [], [start]
    while frontier:
        frontier = sorted({b for c in frontier for b in run_of(bases, c)} - set(found) - {start})
        found += frontier
    return [g.names[b] for b in found]


def family(g, cls: str) -> set[str]:
    """`cls`, the classes it inherits from and those inheriting from it, at any depth (INHERITS edges)."""
    start = g.node_id(cls)
    if start is None:
        return {cls}
    found = {start}
    for table in (_bases(g), _subclasses(g)):
        frontier = [start]
        while frontier:
            frontier = [c for f in frontier for c in run_of(table, f) if c not in found]
            found.update(frontier)
    return {g.names[i] for i in found}


def overridden(g, target: str) -> tuple[list[str], set[str]]:
    """The methods `target` (a method `path::C.m`) overrides, and the classes whose `self` may be a C: C and its bases."""
    path, _, qual = target.partition("::")
    owner, _, name = qual.rpartition(".")
    lang = languages.language_for(path)
    if not owner or name.startswith("__") and name.endswith("__") or g.node_id(f"{path}::{owner}") is None \
            or lang is None or lang.resolver in NO_DISPATCH:
        return [], set()  # not a method; a protocol method (`__init__`, `__eq__`) runs for every class alike
    bases = ancestors(g, f"{path}::{owner}")
    return [m for m in (f"{b}.{name}" for b in bases) if g.has_symbol(m)], {f"{path}::{owner}", *bases}


def dependents(g, target: str, depth: int, min_confidence: float) -> list:
    """The dependents `target` gains through the methods it overrides (empty for anything else)."""
    if DISPATCH_CONFIDENCE < min_confidence:
        return []
    methods, selves = overridden(g, target)
    found = []
    for method in methods:
        admitted = _admitted_callers(g, g.node_id(method), selves)
        for d in g._walk(method, method.partition("::")[0], depth, min_confidence)[0]:
            if len(d.via) > 1 and d.via[1] in admitted and d.node != target:
                d.via[0], d.confidence = target, min(d.confidence, DISPATCH_CONFIDENCE)
                found.append(d)
    return found


def counts(g, target: str, target_path: str, depth: int, min_confidence: float,
           tests_from: int = 0) -> tuple[int, int | None]:
    """How many dependents and tests `g.walk` lists, from node ids: no dependent is made (a file's lenses count each
    of its methods; shelve.py's one method whose walk merges others, a stub's implementation and the methods it
    overrides, took 12 ms of a 14 ms lens request at 11,282 files, BENCHMARKS.md di). Tests None, not selected,
    below `tests_from` dependents."""
    own = walked(g, target, target_path, depth, min_confidence)
    twin = g.implementation(target)
    twin_path = twin.partition("::")[0] if twin else ""
    gained = walked(g, twin, twin_path, depth, min_confidence) if twin else _NO_NODES
    more = np.concatenate([gained, *_dispatched(g, twin or target, depth, min_confidence)])
    total = len(np.union1d(own, more)) if len(more) else len(own)
    if total < tests_from:
        return total, None
    tests = set(tests_of(g, target, target_path, own))
    if len(more) and twin:  # as `walk`: the twin's tests count only beside dependents gained
        tests |= set(tests_of(g, twin, twin_path, gained))
    return total, len(tests)


def walked(g, target: str, target_path: str, depth: int, min_confidence: float) -> np.ndarray:
    """The nodes one target's walk reaches (`g._levels`)."""
    reached = [r for _o, _p, r in g._levels(target, target_path, depth, min_confidence)]
    return np.concatenate(reached) if reached else _NO_NODES


def tests_of(g, target: str, target_path: str, nodes: np.ndarray) -> list[int]:
    """The test files that run `target`, whose walk reached `nodes` (ids)."""
    paths = g.path_of[nodes]
    return g._tests(target, target_path, paths[paths >= 0])


def _dispatched(g, target: str, depth: int, min_confidence: float) -> list[np.ndarray]:
    """The nodes of `dependents`, one array per overridden method: each reached node's first step is
    traced back through its parents (`_levels`' owners)."""
    if DISPATCH_CONFIDENCE < min_confidence:
        return []
    methods, selves = overridden(g, target)
    found, target_id = [], g.node_id(target)
    target_id = -1 if target_id is None else target_id
    for method in methods:
        admitted = [g.node_id(name) for name in _admitted_callers(g, g.node_id(method), selves)]
        first = None  # per node of the level, the node of the first level its path starts with
        for _offsets, owner, nodes in g._levels(method, method.partition("::")[0], depth, min_confidence):
            first = nodes if first is None else first[owner]
            found.append(nodes[np.isin(first, admitted) & (nodes != target_id)])
    return found


_NO_NODES = np.zeros(0, dtype=np.int64)


def _admitted_callers(g, method: int, selves: set[str]) -> set[str]:
    """The direct callers of `method` with a call that may dispatch to the override: not `super()`, and a self call
    only in a class whose self may be an instance of the override's class."""
    lo, hi = int(g.step_ptr[method]), int(g.step_ptr[method + 1])
    at = g.e["kind"][g.step_edge[lo:hi]] == (g.kinds.index("CALLS") if "CALLS" in g.kinds else -1)
    callers = g.step_node[lo:hi][at].tolist()
    strategies = [g.strategies[s] for s in g.e["strategy"][g.step_edge[lo:hi]][at].tolist()]
    admitted = set()
    for caller, strategy in zip(callers, strategies):
        name = g.names[caller]
        if strategy in ("super", *GUESSES) or strategy in SELF_CALLS and not _in_any(name, selves):
            continue  # a guess by name has its own `override` edges to each override (store/calls.py)
        admitted.add(name)
    return admitted


def _bases(g):
    """Each class's direct bases (node ids, `steps.run_of`), made once per graph and kept on it: a file's lenses
    ask for each of its methods (a dict of lists was 16 ms, the first lens after each graph, at 11,282 files)."""
    found = g.__dict__.get("_bases")
    if found is None:
        found = g.__dict__["_bases"] = runs(*inherits_edges(g))
    return found


def _subclasses(g):
    """Each class's direct subclasses (node ids, `steps.run_of`), made once per graph and kept on it."""
    found = g.__dict__.get("_subclasses")
    if found is None:
        src, dst = inherits_edges(g)
        found = g.__dict__["_subclasses"] = runs(dst, src)
    return found


def _in_any(symbol: str, classes: set[str]) -> bool:
    """Whether `symbol` (`path::K.f`, `path::K.f.inner`) is defined in one of `classes`."""
    path, _, qual = symbol.partition("::")
    parts = qual.split(".")
    return any(f"{path}::{'.'.join(parts[:i])}" in classes for i in range(1, len(parts)))

