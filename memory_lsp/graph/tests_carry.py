"""Test selection's arrays (graph/tests_reach.TestReach) carried to the graph that follows an edit
when nothing they were built from changed: most edits (a comment, a body's lines, a call
already resolved the same way) move lines, scores and confidences, none of which selection
reads, and building them again costs ~0.5 s of CPU on the stdlib, ~3 s at 25,000 files.

What a TestReach reads of its graph, each part of the digest below:
- how many nodes it knows (its arrays are sized by it; the names are shared, so an id names the
  same node in both graphs) and the labels of edge kinds and strategies (steps hold their indexes);
- which nodes are symbols, files, test files, and each node's file;
- the steps, as a multiset of (callee, caller, kind, strategy): the walk, the holders and the
  guesses only ever ask what is among them, never their order (hashed without sorting: a sum of
  each row's 64-bit mix, which no order changes);
- for the name-guessed steps, which of them share a call site (same caller, same line): the
  lines themselves move with every edit above, so each is taken as its rank among its caller's;
- which names have a call site (a method called by name runs only through its callers);
- which callees a module-level line right above a definition calls, and that definition (decorators:
  graph/tests_through.py);
- test selection's unresolved calls, as the same columns (graph/follow_unresolved.py keeps the
  last graph's columns for a kind whose rows did not change).
"""

from __future__ import annotations

import hashlib

import numpy as np

from memory_lsp.graph import tests_grow, tests_reach, tests_through
from memory_lsp.graph.held_memo import mix
from memory_lsp.graph.steps import among

# the unresolved kinds a selection is carried or grown only when unchanged; `silent` (the symbols making no call)
# moves with every such symbol typed, which tests_grow.grow takes
UNRESOLVED_KINDS = ("tests", "dispatch", "untyped", "classes", "reexports", "raised")


def reach(g) -> tests_reach.TestReach:
    """The graph's test selection: the last graph's when it was built from the same parts, else
    built with what the last build worked out that still holds (graph/held_memo.py)."""
    before, g.reach_before = g.reach_before, None
    memo = None
    if before is not None:
        reach_before, unresolved_before, graph_before = before
        unresolved = g.unresolved_calls or {}
        silent = None if unresolved.get("silent") is unresolved_before.get("silent") else \
            (unresolved_before.get("silent"), unresolved.get("silent"))
        if all(unresolved.get(k) is unresolved_before.get(k) for k in UNRESOLVED_KINDS):
            if silent is None and graph_before.n == g.n and digest(g) == graph_before.digest:
                return reach_before
            grown = tests_grow.grow(reach_before, graph_before, g, _step_sums(g), silent)
            if grown is not None:
                return grown
        memo = reach_before.memo
    return tests_reach.TestReach(g, g.unresolved_calls, memo)


def carry_from(old, new, old_to_new: np.ndarray, fresh_at: np.ndarray) -> None:
    """Let `new` (following `old`) take `old`'s test selection if it was built and still holds,
    or what its build worked out. `old_to_new`, `fresh_at`: the edges kept (their index in `new`,
    or -1) and made (graph/follow.py), from which `new`'s steps are hashed as a change of `old`'s."""
    built = old.__dict__.get("_reach")
    if built is not None:
        new.reach_before = (built, old.unresolved_calls or {}, tests_grow.Before(old, digest(old), _step_sums(old)))
        new._step_sums = _followed_sums(old, new, old_to_new, fresh_at)


def digest(g) -> bytes:
    """What a TestReach is built from (the module's docstring), as one hash; kept on the graph."""
    found = g.__dict__.get("_reach_digest")
    if found is None:
        h = hashlib.blake2b(digest_size=32)
        h.update(np.int64(g.n).tobytes())
        h.update("\0".join(g.kinds).encode() + b"\1" + "\0".join(g.strategies).encode())
        for mask in (g.is_symbol, g.is_file, g.is_test):
            h.update(np.packbits(mask).tobytes())
        h.update(g.path_of.astype(np.int32).tobytes())
        h.update(_step_sums(g).tobytes())
        h.update(tests_grow.called_names(g).astype(np.int64).tobytes())
        h.update(tests_through.decorated_sites(g).tobytes())  # lines decide them
        found = g._reach_digest = h.digest()
    return found


def _step_sums(g) -> np.ndarray:
    """The graph's steps as a multiset (`_sums`), kept on the graph."""
    sums = g.__dict__.get("_step_sums")
    if sums is None:
        sums = g._step_sums = _row_sums(g)
    return sums


def _sums(rows: np.ndarray) -> np.ndarray:
    """The steps as a multiset of rows (`_row_sums`): the sum of each row's 64-bit mix, two ways, and
    their count (sorting the rows took ~100 ms on the stdlib)."""
    with np.errstate(over="ignore"):
        return np.array([rows.sum(dtype=np.uint64), mix(rows).sum(dtype=np.uint64), len(rows)], dtype=np.uint64)


def _followed_sums(old, new, old_to_new: np.ndarray, fresh_at: np.ndarray) -> np.ndarray:
    """`new`'s step sums from `old`'s: the steps of edges gone out, those of edges made in, and the
    guessed steps of every caller that lost or gained one again on both sides (their ranks may
    move); a kept edge keeps its steps (its ends, kind and strategy are the same)."""
    fresh = np.zeros(len(new.e["fp"]), dtype=bool)
    fresh[fresh_at] = True
    gone, made = old_to_new[old.step_edge] < 0, fresh[new.step_edge]
    guessed_old, guessed_new = _guessed(old), _guessed(new)
    callers = np.union1d(old.step_node[gone & guessed_old], new.step_node[made & guessed_new])
    out_sums = _row_sums(old, np.flatnonzero((gone & ~guessed_old) | (guessed_old & among(old.step_node, callers, old.n))),
                         guessed_old)
    in_sums = _row_sums(new, np.flatnonzero((made & ~guessed_new) | (guessed_new & among(new.step_node, callers, new.n))),
                        guessed_new)
    with np.errstate(over="ignore"):
        return old._step_sums - out_sums + in_sums


def _guessed(g) -> np.ndarray:
    """Per step, whether its edge is a name guess; kept on the graph (the next follow reads it as the last graph's)."""
    found = g.__dict__.get("_guessed_steps")
    if found is None:
        strategies = [g.strategies.index(s) for s in tests_reach.GUESSES if s in g.strategies]
        found = g._guessed_steps = np.isin(g.e["strategy"][g.step_edge], strategies)
    return found


CHUNK = 1 << 18  # steps mixed at a time (the whole graph's at once: ~80 MB of temporaries at 10,740 files)


def _row_sums(g, at: np.ndarray | None = None, guessed_steps: np.ndarray | None = None) -> np.ndarray:
    """`_sums` of the steps at `at` (each caller's guessed steps all among them; None: all) as rows of
    (callee, caller, kind, strategy, call-site rank), the rank 0 but for name-guessed steps (their line's
    rank among the lines of the caller's guesses), each mixed to 64 bits (`_mixed`), a chunk at a time.
    `guessed_steps`: `_guessed(g)` if taken."""
    at, callee, rank = _parts(g, at, guessed_steps)
    total = np.zeros(3, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for lo in range(0, len(at), CHUNK):
            total += _sums(_mixed(g, at[lo:lo + CHUNK], callee[lo:lo + CHUNK], rank[lo:lo + CHUNK]))
    return total


def _parts(g, at, guessed_steps) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the steps, each one's callee, each one's call-site rank) for `_row_sums`."""
    if at is None:
        at = np.arange(len(g.step_node))
        callee = np.repeat(np.arange(g.n, dtype=np.uint32), np.diff(g.step_ptr).astype(np.int64))
    else:
        callee = (np.searchsorted(g.step_ptr, at, side="right") - 1).astype(np.uint32)
    rank = np.zeros(len(at), dtype=np.uint32)
    guessed = np.flatnonzero((_guessed(g) if guessed_steps is None else guessed_steps)[at])
    if len(guessed):
        edge = g.step_edge[at[guessed]]
        line = g.e["line"][edge].astype(np.int64)
        who = g.step_node[at[guessed]].astype(np.int64)
        order = np.lexsort((line, who))
        who, line = who[order], line[order]
        new_site = np.r_[True, (who[1:] != who[:-1]) | (line[1:] != line[:-1])]
        new_caller = np.r_[True, who[1:] != who[:-1]]
        sites = np.cumsum(new_site)
        first = np.maximum.accumulate(np.where(new_caller, sites, 0))
        rank[guessed[order]] = sites - first + 1
    return at, callee, rank


def _mixed(g, at: np.ndarray, callee: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """The rows of `_row_sums`, each mixed to 64 bits."""
    callee, caller = callee.astype(np.uint64), g.step_node[at].astype(np.uint64)
    edge = g.step_edge[at]
    kind, strategy = g.e["kind"][edge].astype(np.uint64), g.e["strategy"][edge].astype(np.uint64)
    with np.errstate(over="ignore"):
        return mix((callee << np.uint64(32)) | caller) ^ mix((kind << np.uint64(48)) ^ (strategy << np.uint64(32))
                                                           ^ rank.astype(np.uint64) ^ np.uint64(0x5DEECE66D))

