"""What one build of test selection's holders (graph/tests_held.Holding) worked out, kept for the
build of the graph that follows an edit. An edit that changes a call makes test selection be
built again (~0.85 s of CPU on the stdlib, two thirds of it which classes each caller makes
within HOLD_DEPTH calls), yet it changes those answers only around the edit.

An answer is kept when nothing it was worked out from changed:
- what a node makes within d calls (`near`): the sure calls of the nodes within d calls of it and
  which nodes are classes. A node is stale when, in the last graph, it reaches within HOLD_DEPTH
  calls a node whose sure calls or class flag changed (with no such node in its neighbourhood,
  the neighbourhood is the same now);
- what a symbol makes (`made`): its own and its file's `near`, with the bases of the classes in
  it: an answer holding a class whose bases changed is dropped (so are that class's `up`);
- what a name's untyped callers make (`by_name`): its callers (a per-name sum of mixes, as
  tests_carry's digest) and their `made`; all of it when a class flag changed (`around`).
Names are shared by the graphs that follow one another: an id names the same node in both.
"""

from __future__ import annotations

import numpy as np


class Memo:
    """One build's answers and what they were worked out from (kept by its TestReach)."""

    __slots__ = ("n", "keys", "is_class", "bases", "near", "made", "closed", "up", "by_name", "callers")

    def __init__(self, n, keys, is_class, bases, near, made, closed, up, by_name, callers):
        self.n, self.keys, self.is_class, self.bases = n, keys, is_class, bases
        self.near, self.made, self.closed, self.up = near, made, closed, up
        self.by_name, self.callers = by_name, callers


def call_keys(ptr: np.ndarray, callee: np.ndarray) -> np.ndarray:
    """Each (caller, callee) pair of the sure calls as one 64-bit key, sorted, once."""
    caller = np.repeat(np.arange(len(ptr) - 1, dtype=np.uint64), np.diff(ptr).astype(np.int64))
    keys = np.sort((caller << np.uint64(32)) | callee.astype(np.uint64))  # np.unique hashes: 5x slower here
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def name_callers(name: np.ndarray, src: np.ndarray, on_self: np.ndarray, n_names: int) -> np.ndarray:
    """Per call-name id, its untyped callers as (a sum of each one's mix, their count)."""
    out = np.zeros((n_names, 2), dtype=np.uint64)
    if not len(name):
        return out
    with np.errstate(over="ignore"):
        np.add.at(out[:, 0], name, mix(src.astype(np.uint64) * np.uint64(2) + on_self.astype(np.uint64)))
    out[:, 1] = np.bincount(name, minlength=n_names)[:n_names]
    return out


def stale(before: Memo, keys: np.ndarray, is_class: np.ndarray, depth: int) -> tuple[np.ndarray, bool]:
    """(the nodes whose `near` may differ from the last build's, as a mask over this graph's
    nodes; whether a class flag changed)."""
    flipped = np.flatnonzero(before.is_class != is_class[:before.n])
    moved = np.concatenate([before.keys[~among(before.keys, keys)], keys[~among(keys, before.keys)]])
    changed = np.unique(np.concatenate([(moved >> np.uint64(32)).astype(np.int64), flipped]))
    mask = np.zeros(len(is_class), dtype=bool)
    mask[changed] = True
    caller = (before.keys >> np.uint64(32)).astype(np.int64)
    callee = (before.keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
    frontier = changed[changed < before.n]
    for _ in range(depth):
        if not len(frontier):
            break
        up = caller[np.isin(callee, frontier)]
        frontier = np.unique(up[~mask[up]])
        mask[frontier] = True
    return mask, bool(len(flipped))


def changed_bases(before: np.ndarray, now: np.ndarray) -> set[int]:
    """The classes whose bases differ (added, removed or changed); each side: (class << 32 | base), distinct."""
    return set((np.setxor1d(before, now, assume_unique=True) >> 32).tolist())


def among(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Which values of `a` are in sorted `b`."""
    if not len(b):
        return np.zeros(len(a), dtype=bool)
    at = np.minimum(np.searchsorted(b, a), len(b) - 1)
    return b[at] == a


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every bit of the input moves about half the output's."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))
