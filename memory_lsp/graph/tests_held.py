"""Which methods of a class making an instance may run, and which name-guessed calls test selection
walks (graph/tests_reach.py): both turn on whether a caller holds an instance of a class.

Measured on six registry packages against coverage.py (bench/BENCHMARKS.md ad): walking from every
method to its class (whoever makes an instance runs all of it) and every name guess listed tests
that never run the code; these rules keep recall 1.0 where the old walk had it.
"""

from __future__ import annotations

import numpy as np

HOLD_DEPTH = 3  # calls from a caller to the class it makes (its fixtures' calls count from the caller)


def _node(g, name: str) -> int:
    i = g.node_id(name)
    return -1 if i is None else i


def parents(g, unresolved: dict, rows: np.ndarray, step_kind: np.ndarray, sure: np.ndarray,
             guessed: np.ndarray) -> tuple[np.ndarray, "Holding"]:
    """The symbol around each symbol (`a.py::C.m` -> `a.py::C`) when whoever reaches it runs it,
    else -1: a nested function runs with its function, a test class's tests with it (inherited
    ones in its subclasses too); of another class's methods, making an instance runs its dunders
    (`__init__`, `__new__`, `__post_init__`, operators) and the methods never called by name
    (properties, calls by getattr); a method called only through typed receivers runs through
    its edges, and one called through an untyped receiver (`x.m()`, no edge but a name guess)
    runs for the class's makers when the caller holds an instance: it makes one (or a subclass),
    within HOLD_DEPTH calls or through a fixture, or is a method of it (`self.m()` in a base)."""
    parent = np.full(g.n, -1, dtype=np.int32)
    is_class = np.zeros(g.n, dtype=bool)
    for c in unresolved.get("classes", {}).get("id", np.zeros(0, dtype=object)).tolist():
        i = g.node_id(c)
        if i is not None:
            is_class[i] = True
    untyped: dict[str, list[tuple[int, bool]]] = {}
    found = unresolved.get("untyped")
    if found is not None:
        for src, name, on_self in zip(found["src"].tolist(), found["name"].tolist(), found["on_self"].tolist()):
            i = g.node_id(src)
            if i is not None:
                untyped.setdefault(name, []).append((i, bool(on_self)))
    holds = Holding(g, rows, step_kind, sure, guessed, is_class)
    by_name: dict[str, tuple[set[int], set[int]]] = {}  # a name's untyped callers: what they make, their classes

    def held(c: int, leaf: str) -> bool:  # any(holds(s, c, on_self) for each untyped call named leaf)
        found = by_name.get(leaf)
        if found is None:
            made, around = set(), set()
            for s, on_self in untyped.get(leaf, ()):
                made |= holds.made(s)
                if on_self:
                    around |= holds.around(s)
            found = by_name[leaf] = (made, around)
        return c in found[0] or not holds.up(c).isdisjoint(found[1])

    n_calls = len(g.call_ptr) - 1
    for i in np.flatnonzero(g.is_symbol).tolist():
        path, _, qual = g.names[i].partition("::")
        if "." not in qual:
            continue
        holder = _node(g, f"{path}::{qual.rsplit('.', 1)[0]}")
        if holder < 0:
            continue
        leaf = qual.rsplit(".", 1)[1]
        if is_class[holder] and not g.is_test[g.path_of[i]] \
                and not (leaf.startswith("__") and leaf.endswith("__")):
            k = g.calls.get(leaf)
            called = k is not None and k < n_calls and g.call_ptr[k + 1] > g.call_ptr[k]
            if called and not held(holder, leaf):
                continue
        parent[i] = holder
    return parent, holds


def guesses(g, rows: np.ndarray, guessed: np.ndarray, holds: "Holding") -> np.ndarray:
    """The name-guessed steps walked: at a call site, the guesses at methods of classes the
    caller holds (`Holding`) when there are some; else every guess of the site but those at an
    override of another guess's method (the base's stands for it: making the subclass would
    be a call the graph knows)."""
    walked = np.zeros(len(rows), dtype=bool)
    sites: dict[tuple[int, int], list[tuple[int, bool, int]]] = {}
    lines = g.e["line"][g.step_edge]
    for k in np.flatnonzero(guessed).tolist():
        callee, caller = int(rows[k]), int(g.step_node[k])
        path, _, qual = g.names[callee].partition("::")
        around = _node(g, f"{path}::{qual.rsplit('.', 1)[0]}") if "." in qual else -1
        around = around if around >= 0 and holds.is_class[around] else -1
        held = around < 0 or holds(caller, around)
        sites.setdefault((caller, int(lines[k])), []).append((k, held, around))
    for site in sites.values():
        some = any(h for _, h, _ in site)
        classes = {c for _, _, c in site if c >= 0}
        for k, h, c in site:
            walked[k] = h or not some and not (c >= 0 and (holds.up(c) - {c}) & classes)
    return walked


class Holding:
    """Whether a symbol holds an instance of a class: it, its fixtures or its file's module-level
    code make one (or one of a subclass) within HOLD_DEPTH sure calls, or it is a method of the
    class or of one of its bases."""

    def __init__(self, g, rows: np.ndarray, step_kind: np.ndarray, sure: np.ndarray, guessed: np.ndarray,
                 is_class: np.ndarray):
        self.g, self.is_class = g, is_class
        kinds = [g.kinds.index(k) for k in ("CALLS", "USES_FIXTURE") if k in g.kinds]
        # a symbol's sure calls and fixtures, and its file's module-level calls
        calls = np.isin(step_kind, kinds) & g.is_symbol[rows] & (sure | g.is_file[g.step_node] & ~guessed)
        order = np.argsort(g.step_node[calls], kind="stable")
        self.ptr, self.callee = _csr(g.step_node[calls][order], g.n), rows[calls][order]
        inherits = (step_kind == (g.kinds.index("INHERITS") if "INHERITS" in g.kinds else -1)) \
            & g.is_symbol[rows] & g.is_symbol[g.step_node]
        self.bases: dict[int, list[int]] = {}
        for base, sub in zip(rows[inherits].tolist(), g.step_node[inherits].tolist()):
            self.bases.setdefault(sub, []).append(base)
        self._made: dict[int, set[int]] = {}
        self._up: dict[int, set[int]] = {}

    def up(self, c: int) -> set[int]:
        """The class and its bases, transitively."""
        found = self._up.get(c)
        if found is None:
            found, todo = {c}, [c]
            while todo:
                for b in self.bases.get(todo.pop(), ()):
                    if b not in found:
                        found.add(b)
                        todo.append(b)
            self._up[c] = found
        return found

    def made(self, s: int) -> set[int]:
        """The classes (and their bases) that `s`, or its file's module-level code, may make."""
        found = self._made.get(s)
        if found is None:
            g, seen = self.g, {s}
            frontier = [s] + ([int(g.path_of[s])] if g.path_of[s] >= 0 else [])
            for _ in range(HOLD_DEPTH):
                nxt = []
                for v in frontier:
                    for u in self.callee[self.ptr[v]:self.ptr[v + 1]].tolist():
                        if u not in seen:
                            seen.add(u)
                            nxt.append(u)
                frontier = nxt
            found = set()
            for c in seen:
                if self.is_class[c]:
                    found |= self.up(c)
            self._made[s] = found
        return found

    def around(self, s: int) -> set[int]:
        """The classes `s` is inside (its `self`)."""
        g, found = self.g, set()
        path, _, qual = g.names[s].partition("::")
        while "." in qual:
            qual = qual.rsplit(".", 1)[0]
            c = _node(g, f"{path}::{qual}")
            if c >= 0 and self.is_class[c]:
                found.add(c)
        return found

    def __call__(self, s: int, c: int, on_self: bool = False) -> bool:
        """`self.m()` in a method of the class or of a base of it; else an instance made."""
        return c in self.made(s) or on_self and not self.up(c).isdisjoint(self.around(s))


def _csr(keys: np.ndarray, n: int) -> np.ndarray:
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return ptr
