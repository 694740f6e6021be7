"""Test selection (graph/tests_reach.TestReach) grown to a graph that follows an edit which added or
removed symbols and changed nothing else selection reads: a function typed (`def f(x): return
len(x)`) adds a node that no step touches. Building selection again for it cost ~340 ms of the
~930 ms a function typed on the stdlib took (bench/BENCHMARKS.md bp); growing it costs a few.

A node added or removed that no step touches changes no other node's answer: nothing walks to it
or from it but what holds it (graph/tests_held.py: a nested function's function, a method's
class). So the last selection holds for every other node, and each such node's own arrays are
worked out here as TestReach would: a symbol of a test file is run by a test (its file's bit when
nothing calls it); a symbol held by another (its holder's id) runs when its holder runs and for
the same tests; a test file's `holds_tests` is worked out again. Refused (None: built again)
whenever that may not be so: a step or a call site changed, a file came or went, a class came or
went (the unresolved `classes` column, compared by tests_carry), a method of a class called by name
(its holding turns on callers), a method of a class read by name (graph/tests_read.py), a symbol in a file run through an attribute holding a class, a
construction method (`__init__`: a raiser's step may go to it, graph/tests_raised.py), a node
that stays held by one that changed, or a test file's first entry (a bit column more).
"""

from __future__ import annotations

import copy

import numpy as np

from memory_lsp.graph import tests_held, tests_raised, tests_through
from memory_lsp.graph.test_files import holds_tests_in, inheriting_files


class Before:
    """What `grow` compares of the graph a selection was built for (its arrays, not copies: a
    graph's arrays are never written once built)."""

    __slots__ = ("n", "digest", "kinds", "strategies", "is_symbol", "is_file", "is_test", "path_of", "sites",
                 "step_sums", "decorated")

    def __init__(self, g, digest: bytes, step_sums: np.ndarray):
        self.n, self.digest, self.kinds, self.strategies = g.n, digest, list(g.kinds), list(g.strategies)
        self.is_symbol, self.is_file, self.is_test, self.path_of = g.is_symbol, g.is_file, g.is_test, g.path_of
        self.sites = called_names(g)
        self.step_sums = step_sums
        self.decorated = tests_through.decorated_sites(g)


def called_names(g) -> np.ndarray:
    """The call names with a call site (selection walks a method called by name through its callers)."""
    return np.flatnonzero(np.diff(g.call_ptr) > 0)


def grow(reach, before: Before, g, step_sums: np.ndarray, silent: tuple | None = None):
    """`reach` (built for the graph `before` describes) grown to `g`, or None where it may not hold.
    `silent`: the last graph's and this one's `silent` columns where they differ (store/test_reads.py)."""
    n0, added = before.n, g.n - before.n
    if (added < 0 or before.kinds != list(g.kinds) or before.strategies != list(g.strategies)
            or not np.array_equal(before.step_sums, step_sums) or not np.array_equal(before.sites, called_names(g))
            or not np.array_equal(before.is_file, g.is_file[:n0]) or g.is_file[n0:].any()
            or not np.array_equal(before.is_test, g.is_test[:n0])
            or not np.array_equal(before.path_of, g.path_of[:n0])
            or not np.array_equal(before.decorated, tests_through.decorated_sites(g))):
        return None
    changed = np.concatenate([np.flatnonzero(before.is_symbol != g.is_symbol[:n0]), np.arange(n0, g.n)])
    if silent is not None and not np.isin(np.setxor1d(*(c["src"] if c else [] for c in silent)), changed).all():
        return None  # a symbol that stays began or stopped making calls: its module's held steps moved
    walk = reach.walk
    parent = np.r_[walk.parent, np.full(added, -1, dtype=walk.parent.dtype)]
    if np.isin(np.delete(parent, changed), changed).any():
        return None  # a node that stays is held by one that changed: its answer may move
    live = np.r_[walk.live, np.zeros(added, dtype=bool)]
    plain = None if walk.live_plain is None else np.r_[walk.live_plain, np.zeros(added, dtype=bool)]
    bits = walk.bits
    bit_row = None if bits is None else np.r_[walk.bit_row, np.full(added, walk.zero_row, dtype=np.int32)]
    new_rows: list[np.ndarray] = []
    holders, is_changed = tests_held.holders(g), set(changed.tolist())
    is_class = tests_held.classes_of(g, g.unresolved_calls or {})
    test_files, decorating = set(), len(tests_through.decorated_sites(g)) > 0
    raising = len((g.unresolved_calls or {}).get("raised", {}).get("src", ()))
    for d in changed.tolist():
        parent[d], live[d] = -1, False
        if plain is not None:
            plain[d] = False
        if bits is not None:
            bit_row[d] = walk.zero_row
        if decorating and g.names[d].rsplit(".", 1)[-1] in tests_through.DECORATOR_DUNDERS:
            return None  # maybe a decorating class's (tests_through.class_decorated): its steps change
        if not g.is_symbol[d]:
            continue
        f, p = int(g.path_of[d]), int(holders.holder_of(np.array([d]), g.n)[0])
        if walk.ptr[f + 1] > walk.ptr[f]:
            return None  # its file is run through an attribute holding a class (tests_through.dispatch)
        if raising and g.names[d].rsplit(".", 1)[-1] in tests_raised.CONSTRUCTION:
            return None  # a raised class's construction: the raisers' steps to it (graph/tests_raised.py)
        if p >= 0 and (_held_by_callers(g, holders, is_class, d, p) or p > d and p in is_changed):
            return None  # held as its callers say, or by a holder not worked out yet
        in_test = bool(g.is_test[f])
        parent[d] = p
        live[d] = in_test or (p >= 0 and bool(live[p]))
        if plain is not None:
            plain[d] = in_test or (p >= 0 and bool(plain[p]))
        if in_test:
            test_files.add(f)
        if bits is None or not live[d]:
            continue
        row = bits[bit_row[p]].copy() if p >= 0 else np.zeros(bits.shape[1], dtype=np.uint64)
        if in_test:  # an entry: nothing calls it (no step touches it)
            slot = int(np.searchsorted(walk.bit_files, f))
            if slot >= len(walk.bit_files) or walk.bit_files[slot] != f:
                return None  # its file's first entry: a column more
            row[slot // 64] |= np.uint64(1) << np.uint64(slot % 64)
        bit_row[d] = len(bits) + len(new_rows)
        new_rows.append(row)
    holds_tests = np.r_[reach.holds_tests, np.zeros(added, dtype=bool)]
    # and the test files whose classes inherit a changed file's (a mixin's test method, in a test file or not)
    touched = {int(g.path_of[d]) for d in changed.tolist() if g.path_of[d] >= 0}
    for f in test_files | inheriting_files(g, touched):
        holds_tests[f] = holds_tests_in(g, f)
    grown = copy.copy(reach)
    grown.walk = w = copy.copy(walk)
    w.parent, w.live, w.live_plain = parent, live, plain
    w.has_caller = np.r_[walk.has_caller, np.zeros(added, dtype=bool)]
    w.ptr = np.r_[walk.ptr, np.full(added, walk.ptr[-1], dtype=walk.ptr.dtype)]
    if bits is not None:
        w.bit_row = bit_row
        w.bits = np.concatenate([bits, np.array(new_rows, dtype=np.uint64)]) if new_rows else bits
    grown.known = np.r_[reach.known, np.zeros(added, dtype=bool)]
    grown.holds_tests = holds_tests
    return grown


def _held_by_callers(g, holders, is_class: np.ndarray, d: int, p: int) -> bool:
    """Whether d's holding by its class p turns on its callers (tests_held's rule, for one symbol)
    or its readers (graph/tests_read.py: its name among the `untyped` rows)."""
    ids = np.array([d])
    leaf = holders.leaf_of(ids, len(g.call_ptr) - 1)
    rows = (g.unresolved_calls or {}).get("untyped", {})
    read = rows["name"][rows["read"].astype(bool)] if "read" in rows else None
    return bool(tests_held.held_as_callers_say(g, holders, is_class, ids, np.array([p]), leaf)[0]) \
        or bool(is_class[p] and leaf[0] >= 0 and read is not None and (read == leaf[0]).any())
