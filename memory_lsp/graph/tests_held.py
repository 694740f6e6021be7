"""Which methods of a class making an instance may run (graph/tests_reach.py), and whether a caller
holds an instance of a class, which that turns on, as does which name guesses are walked
(graph/tests_guessed.py).

Measured on six registry packages against coverage.py (bench/BENCHMARKS.md ad): walking from every
method to its class (whoever makes an instance runs all of it) and every name guess listed tests
that never run the code; these rules keep recall 1.0 where the old walk had it.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from memory_lsp.graph import held_memo
from memory_lsp.graph.resolution import PYTHON_BUILTIN_METHODS
from memory_lsp.graph.steps import csr, csr_rows, grouped, run_of, runs

HOLD_DEPTH = 3  # calls from a caller to the class it makes (its fixtures' calls count from the caller)
_BUILTIN_NAMED = frozenset(PYTHON_BUILTIN_METHODS)
_NONE: frozenset = frozenset()


class Holders:
    """Per node id: the node of the symbol around it (`a.py::C.m` -> `a.py::C`), the call-name id of
    its leaf (`m`), whether that is a dunder or (in Python) a builtin type's method name; -1 where the
    table does not know the name. Kept per names table, which the graphs following an edit share: a
    name's holder never changes, so only the names added since are read (the string work for every
    symbol was ~0.2 s on the stdlib), and a name looked up in vain waits for it to be added."""

    def __init__(self, names, calls):
        self.names, self.calls = names, calls
        self.holder, self.leaf = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
        self.dunder, self.builtin = np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
        self.calls_seen = len(calls)
        self.wait_holder: dict[str, list[int]] = {}  # a holder's name not in the table yet -> ids
        self.wait_leaf: dict[str, list[int]] = {}
        self.lock = threading.Lock()  # two threads may build test selection at once (graph/impact.py)

    def grow(self) -> None:
        with self.lock:
            self._grow()

    def _grow(self) -> None:
        # the tables may grow meanwhile (a follow on the writer): read up to their sizes now; a
        # name added later that a lookup below misses is waited for, and seen by the next call
        names, calls, start = self.names, self.calls, len(self.holder)
        end, calls_end = len(names), len(calls)
        for k in range(self.calls_seen, calls_end):  # a new call name may be a leaf waited for
            for i in self.wait_leaf.pop(calls[k], ()):
                self.leaf[i] = k
        self.calls_seen = calls_end
        if end == start:
            return
        for i in range(start, end):
            for j in self.wait_holder.pop(names[i], ()):
                self.holder[j] = i
        count = end - start
        holder, leaf = np.full(count, -1, dtype=np.int32), np.full(count, -1, dtype=np.int32)
        dunder, builtin = np.zeros(count, dtype=bool), np.zeros(count, dtype=bool)
        for at in range(count):
            path, _, qual = names[start + at].partition("::")
            if "." not in qual:
                continue
            around, _, tail = qual.rpartition(".")
            around = f"{path}::{around}"
            h, k = names.get(around), calls.get(tail)
            if h is None:
                self.wait_holder.setdefault(around, []).append(start + at)
            else:
                holder[at] = h
            if k is None:
                self.wait_leaf.setdefault(tail, []).append(start + at)
            else:
                leaf[at] = k
            dunder[at] = tail.startswith("__") and tail.endswith("__")
            builtin[at] = tail in _BUILTIN_NAMED and path.endswith((".py", ".pyi"))
        self.holder, self.leaf = np.concatenate([self.holder, holder]), np.concatenate([self.leaf, leaf])
        self.dunder, self.builtin = np.concatenate([self.dunder, dunder]), np.concatenate([self.builtin, builtin])

    def holder_of(self, ids: np.ndarray, n: int) -> np.ndarray:
        """The holders of `ids` among the first `n` names (a graph's), else -1."""
        h = self.holder[ids]
        return np.where(h < n, h, -1)

    def leaf_of(self, ids: np.ndarray, n_calls: int) -> np.ndarray:
        k = self.leaf[ids]
        return np.where(k < n_calls, k, -1)


_HOLDERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # names table -> its Holders
_HOLDERS_LOCK = threading.Lock()


def holders(g) -> Holders:
    """The graph's `Holders`, grown to its names."""
    with _HOLDERS_LOCK:
        found = _HOLDERS.get(g.table)
        if found is None or found.calls is not g.calls:
            found = _HOLDERS[g.table] = Holders(g.table, g.calls)
    found.grow()
    return found


def _node(g, name: str) -> int:
    i = g.node_id(name)
    return -1 if i is None else i


def parents(g, unresolved: dict, rows: np.ndarray, step_kind: np.ndarray, sure: np.ndarray,
            guessed: np.ndarray, is_class: np.ndarray, memo: held_memo.Memo | None = None) -> tuple[np.ndarray, "Holding"]:
    """The symbol around each symbol (`a.py::C.m` -> `a.py::C`) when whoever reaches it runs it,
    else -1: a nested function runs with its function, a test class's tests with it (inherited
    ones in its subclasses too); of another class's methods, making an instance runs its dunders
    (`__init__`, `__new__`, `__post_init__`, operators) and the methods never called by name
    (properties, calls by getattr); a method called only through typed receivers runs through
    its edges, and one called through an untyped receiver (`x.m()`, no edge but a name guess)
    runs for the class's makers when the caller holds an instance: it makes one (or a subclass),
    within HOLD_DEPTH calls or through a fixture, or is a method of it (`self.m()` in a base).
    `is_class`: per node, whether it is a class (`classes_of`); `memo`: the last graph's answers,
    kept where they hold (graph/held_memo.py)."""
    parent = np.full(g.n, -1, dtype=np.int32)
    names = holders(g)
    found = unresolved.get("untyped")
    src = name = np.zeros(0, dtype=np.int32)
    on_self = np.zeros(0, dtype=bool)
    if found is not None:
        src, name = found["src"].astype(np.int32), found["name"].astype(np.int32)  # 316,041 rows at 11k files
        ok = (src >= 0) & (src < g.n) & (name >= 0) & (name < len(g.calls)) & ~found["read"].astype(bool)  # calls only
        src, name, on_self = src[ok], name[ok], found["on_self"][ok].astype(bool)
    # each call name's untyped calls (caller, on self), in the columns' order: read only for the
    # names the memo does not answer
    leaf_ptr, (leaf_src, leaf_self) = grouped(name, len(g.calls), (src, on_self))
    holds = Holding(g, rows, step_kind, sure, guessed, is_class, memo)
    holds.callers = held_memo.name_callers(name, src, on_self, len(g.calls))
    # a name's untyped callers: what they make, their classes
    by_name = holds.by_name = holds.names_kept(memo, name, src)

    def held(c: int, leaf: int) -> bool:  # an untyped call named leaf makes c, or is `self.m()` in c or a base
        found = by_name.get(leaf)
        if found is None:
            made, around = {}, set()  # callers share their answers: each one once
            lo, hi = leaf_ptr[leaf], leaf_ptr[leaf + 1]
            for s, on_self in zip(leaf_src[lo:hi].tolist(), leaf_self[lo:hi].tolist()):
                theirs = holds.made(s)
                made[id(theirs)] = theirs
                if on_self:
                    around |= holds.around(s)
            made = holds.same(frozenset().union(*made.values()))
            found = by_name[leaf] = (made, around or _NONE)
        return not found[0].isdisjoint(holds.down(c)) or not found[1].isdisjoint(holds.up(c))

    ids = np.flatnonzero(g.is_symbol)
    holder, leaf = names.holder_of(ids, g.n), names.leaf_of(ids, len(g.call_ptr) - 1)
    ids, holder, leaf = ids[holder >= 0], holder[holder >= 0], leaf[holder >= 0]
    parent[ids] = holder
    ask = held_as_callers_say(g, names, is_class, ids, holder, leaf)
    on_self = _called_on_self(g, names, rows, step_kind)
    for i, c, k in zip(ids[ask].tolist(), holder[ask].tolist(), leaf[ask].tolist()):
        if not held(c, k) and not _overrides_called(holds, c, on_self.get(k)):
            parent[i] = -1
    return parent, holds


def classes_of(g, unresolved: dict) -> np.ndarray:
    """Per node, whether it is a class (the unresolved `classes` column: ids of the graph's names,
    graph/follow_unresolved.py `calls`; -1 or beyond this graph's: no node)."""
    is_class = np.zeros(g.n, dtype=bool)
    classes = unresolved.get("classes", {}).get("id")
    if classes is not None:
        is_class[classes[(classes >= 0) & (classes < g.n)]] = True
    return is_class


def held_as_callers_say(g, names: Holders, is_class: np.ndarray, ids: np.ndarray, holder: np.ndarray,
                        leaf: np.ndarray) -> np.ndarray:
    """Per symbol of `ids` (with its holder and its leaf's call-name id): a method of a class outside
    the tests, no dunder, called by name, which its class holds only for its callers' instances."""
    called = (leaf >= 0) & (g.call_ptr[leaf + 1] > g.call_ptr[np.maximum(leaf, 0)])
    return is_class[holder] & ~g.is_test[g.path_of[ids]] & ~names.dunder[ids] & called


def _called_on_self(g, names: Holders, rows: np.ndarray, step_kind: np.ndarray) -> dict[int, tuple[int, ...]]:
    """Per call-name id: the classes whose method of that name a `self.m()` call resolves to."""
    strategies = [g.strategies.index(s) for s in ("self", "self_inherited") if s in g.strategies]
    if "CALLS" not in g.kinds or not strategies:
        return {}
    callee = np.unique(rows[(step_kind == g.kinds.index("CALLS")) & np.isin(g.e["strategy"][g.step_edge], strategies)])
    c, k = names.holder_of(callee, g.n).astype(np.int64), names.leaf_of(callee, len(g.call_ptr) - 1).astype(np.int64)
    keys = np.unique(k[(c >= 0) & (k >= 0)] << 32 | c[(c >= 0) & (k >= 0)])  # (name, class) once each
    k, c = (keys >> 32).tolist(), (keys & 0xFFFFFFFF).tolist()
    heads = [0, *(np.flatnonzero(np.diff(keys >> 32)) + 1).tolist(), len(c)]  # tuples: a set of few ints is 4x one
    return {k[lo]: tuple(c[lo:hi]) for lo, hi in zip(heads, heads[1:]) if hi > lo}


def _overrides_called(holds: "Holding", cls: int, called_in: tuple[int, ...] | None) -> bool:
    """Whether a method of `cls` overrides a base's method of its name that a `self.m()` call
    resolves to (`called_in`: those bases): an instance of `cls` runs it there (click's
    `BaseCommand.make_context` calls `self.parse_args`, which runs `Command.parse_args` for a
    Command), so making the class may run it."""
    return bool(called_in) and any(b != cls and b in called_in for b in holds.up(cls))


class Holding:
    """Whether a symbol holds an instance of a class: it, its fixtures or its file's module-level
    code make one (or one of a subclass) within HOLD_DEPTH sure calls, or it is a method of the
    class or of one of its bases."""

    def __init__(self, g, rows: np.ndarray, step_kind: np.ndarray, sure: np.ndarray, guessed: np.ndarray,
                 is_class: np.ndarray, memo: held_memo.Memo | None = None):
        self.g, self.is_class = g, is_class
        kinds = [g.kinds.index(k) for k in ("CALLS", "USES_FIXTURE") if k in g.kinds]
        # a symbol's sure calls and fixtures, and its file's module-level calls
        calls = np.isin(step_kind, kinds) & g.is_symbol[rows] & (sure | g.is_file[g.step_node] & ~guessed)
        order = np.argsort(g.step_node[calls], kind="stable")
        self.ptr, self.callee = csr(g.step_node[calls][order], g.n), rows[calls][order]
        inherits = (step_kind == (g.kinds.index("INHERITS") if "INHERITS" in g.kinds else -1)) \
            & g.is_symbol[rows] & g.is_symbol[g.step_node]
        # each class's direct bases and each class's direct subclasses, in the steps' order, as C arrays
        # that bisect reads (dicts of lists were ~5 MB at 11k files; a numpy searchsorted a class, ~1 s
        # more of test selection's build)
        sub, base = g.step_node[inherits].astype(np.int32), rows[inherits].astype(np.int32)
        self._bases = runs(sub, base)
        self._subclasses = runs(base, sub)
        # (class << 32 | base), sorted: what the memo keeps of them
        self.base_keys = np.unique(sub.astype(np.int64) << 32 | base)
        # per node id (and depth), the index of its answer in `_answers`, -1 where not worked out:
        # 4 bytes a node (lists of the answers held 8; dicts 16 MB more at 11k files)
        self._answers: list[frozenset] = [_NONE]  # each distinct answer once
        self._same: dict[frozenset, int] = {_NONE: 0}
        self._made = held_memo.unknown(g.n)
        self._near_memo = [held_memo.unknown(g.n) for _ in range(HOLD_DEPTH + 1)]
        self._up: dict[int, tuple[int, ...]] = {}
        self._down: dict[int, tuple[int, ...]] = {}
        self.keys = held_memo.call_keys(self.ptr, self.callee)
        self.dropped: set[int] | None = None  # the symbols whose `made` the memo had and may differ now
        self.flipped = False
        if memo is not None:
            self._take(memo)

    def _take(self, memo: held_memo.Memo) -> None:
        """Start from the last build's answers that still hold (graph/held_memo.py)."""
        stale, self.flipped = held_memo.stale(memo, self.keys, self.is_class, HOLD_DEPTH)
        self._answers, near, made, remap = held_memo.answers_kept(memo)
        self._same = {a: k for k, a in enumerate(self._answers)}
        self._by_name_before = held_memo.by_name_of(memo, self._answers, remap)
        near[:, stale[:memo.n]] = -1
        path = self.g.path_of[:memo.n]
        drop = stale[:memo.n] | (path >= 0) & stale[np.maximum(path, 0)]  # `made` reads the file's `near` too
        self._up = held_memo.up_of(memo)
        moved = held_memo.changed_bases(memo.bases, self.base_keys)
        if moved:  # the bases of a class changed: so did those of its subclasses (answers hold no bases)
            self._up = {c: v for c, v in self._up.items() if moved.isdisjoint(v)}
        drop &= made >= 0
        self.dropped = set(np.flatnonzero(drop).tolist())
        made[drop] = -1
        # ids only grow: the new names' answers are not worked out
        self._near_memo = [held_memo.unknown(self.g.n, m) for m in near]
        self._made = held_memo.unknown(self.g.n, made)

    def names_kept(self, memo: held_memo.Memo | None, name: np.ndarray, src: np.ndarray) -> dict:
        """The last build's answers per name whose untyped calls (`name`, `src`: their name
        and caller ids) come from the same callers, each making what it made."""
        if memo is None or self.flipped:
            return {}
        callers = self.callers
        n = min(len(memo.callers), len(callers))
        same = np.zeros(len(callers), dtype=bool)
        same[:n] = (memo.callers[:n] == callers[:n]).all(axis=1)
        if self.dropped:
            dropped = np.zeros(self.g.n, dtype=bool)
            dropped[list(self.dropped)] = True
            same[name[dropped[src]]] = False
        return {k: v for k, v in self._by_name_before.items() if same[k]}

    def memo(self) -> held_memo.Memo:
        """What this build worked out, for the next graph's (its graph is not kept)."""
        return held_memo.pack(self.g.n, self.keys, self.is_class, self.base_keys, self._near_memo, self._made,
                              self._answers, self._same, self._up, self.by_name, self.callers)

    def same(self, classes: frozenset) -> frozenset:
        """One object for equal answers: many callers reach the same classes."""
        return self._answers[self._code(classes)]

    def _code(self, classes: frozenset) -> int:
        k = self._same.get(classes)
        if k is None:
            k = self._same[classes] = len(self._answers)
            self._answers.append(classes)
        return k

    def bases_of(self, c: int) -> list[int]:
        """The class's direct bases."""
        return run_of(self._bases, c)

    def up(self, c: int) -> tuple[int, ...]:
        """The class and its bases, transitively."""
        return _closure(c, self.bases_of, self._up)

    def down(self, c: int) -> tuple[int, ...]:
        """The class and its subclasses, transitively: making any of them makes a `c`."""
        return _closure(c, lambda b: run_of(self._subclasses, b), self._down)

    def made(self, s: int) -> frozenset:
        """The classes that `s`, or its file's module-level code, may make (not their bases: `s`
        holds a `c` when it makes one of `down(c)`; closed over their bases, the answers were ~9 MB
        more at 11k files)."""
        k = self._made[s]
        if k < 0:
            near = self._near(s, HOLD_DEPTH)
            f = int(self.g.path_of[s])
            if f >= 0:
                module = self._near(f, HOLD_DEPTH)
                near = near | module if module and module is not near else near
            self._made[s] = k = self._code(near)
        return self._answers[k]

    def holds_one(self, s: int, c: int) -> bool:
        """Whether `s` may make a `c` (or one of a subclass)."""
        return not self.made(s).isdisjoint(self.down(c))

    def _near(self, v: int, depth: int) -> frozenset:
        """The classes within `depth` sure calls of `v` (`v` included), memoised per depth: callers
        share their callees' answers (a walk per caller was most of test selection's build)."""
        memo = self._near_memo[depth]
        k = memo[v]
        if k < 0:
            found = _NONE
            if depth:
                parts = [self._near(u, depth - 1) for u in self.callee[self.ptr[v]:self.ptr[v + 1]].tolist()]
                parts = [p for p in parts if p]
                if parts:
                    found = frozenset().union(*parts)
            if self.is_class[v]:
                found = found | {v}
            memo[v] = k = self._code(found)
        return self._answers[k]

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

    def makes(self, callers: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """Per (caller, class): whether the caller makes the class or a subclass (`holds_one`)."""
        who = np.unique(callers).tolist()
        made = np.unique(np.array([u * (1 << 32) + c for u in who for c in self.made(u)], dtype=np.int64))
        asked, which = np.unique(classes, return_inverse=True)
        down = [self.down(c) for c in asked.tolist()]  # each (caller, class) pair as its class's subclasses
        ptr = np.zeros(len(down) + 1, dtype=np.int64)
        np.cumsum([len(d) for d in down], out=ptr[1:])
        flat = np.fromiter((x for d in down for x in d), dtype=np.int64, count=int(ptr[-1]))
        owner = np.repeat(np.arange(len(callers)), ptr[which + 1] - ptr[which])
        found = np.zeros(len(callers), dtype=bool)
        found[owner[held_memo.among(callers[owner] * (1 << 32) + flat[csr_rows(ptr, which)], made)]] = True
        return found


def _closure(c: int, step, found_before: dict) -> tuple[int, ...]:
    """`c` and what `step` leads to from it, transitively, remembered in `found_before`."""
    found = found_before.get(c)
    if found is None:
        found, todo = {c}, [c]
        while todo:
            for b in step(todo.pop()):
                if b not in found:
                    found.add(b)
                    todo.append(b)
        found = found_before[c] = tuple(found)  # a tuple of two: a quarter of a set's memory
    return found

