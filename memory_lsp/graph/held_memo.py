"""What one build of test selection's holders (graph/tests_held.Holding) worked out, kept for the
build of the graph that follows an edit. An edit that changes a call makes test selection be
built again (~0.85 s of CPU on the stdlib, two thirds of it which classes each caller makes
within HOLD_DEPTH calls), yet it changes those answers only around the edit.

An answer is kept when nothing it was worked out from changed:
- what a node makes within d calls (`near`): the sure calls of the nodes within d calls of it and
  which nodes are classes. A node is stale when, in the last graph, it reaches within HOLD_DEPTH
  calls a node whose sure calls or class flag changed (with no such node in its neighbourhood,
  the neighbourhood is the same now);
- what a symbol makes (`made`): its own and its file's `near` (no bases: a class's `up`, which a
  change of its bases drops, says which classes an instance of it is);
- what a name's untyped callers make (`by_name`): its callers (a per-name sum of mixes, as
  tests_carry's digest) and their `made`; all of it when a class flag changed (`around`).
Names are shared by the graphs that follow one another: an id names the same node in both.
"""

from __future__ import annotations

import array

import numpy as np


class Memo:
    """One build's answers and what they were worked out from (kept by its TestReach). The answers
    (sets of class ids) are packed (`Sets`), and `up` (a class -> it and its bases) and `by_name` (a
    name -> what its untyped callers make, the classes they are in) are arrays of indexes into them
    and of ids: as Python sets and dicts they were ~25 MB at 10,740 files with tests, kept all day
    (`pack`; the next build unpacks what it takes: `answers_kept`, `up_of`, `by_name_of`)."""

    __slots__ = ("n", "keys", "is_class", "bases", "near", "made", "answers", "up", "by_name", "callers")

    def __init__(self, n, keys, is_class, bases, near, made, answers, up, by_name, callers):
        self.n, self.keys, self.is_class, self.bases = n, keys, is_class, bases
        self.near, self.made, self.answers = near, made, answers  # per node, an index in answers (-1: none)
        self.up, self.by_name, self.callers = up, by_name, callers


class Sets:
    """Sets of ids as one array and where each starts (a frozenset of a few ints: ~500 bytes)."""

    __slots__ = ("ptr", "data")

    def __init__(self, sets):
        sets = list(sets)
        self.ptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, sets), dtype=np.int64, count=len(sets)), out=self.ptr[1:])
        self.data = np.fromiter((x for one in sets for x in one), dtype=np.int32, count=int(self.ptr[-1]))

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def sets(self, which) -> list[frozenset]:
        """The sets at the indexes `which`, in their order."""
        data, ptr = self.data.tolist(), self.ptr.tolist()
        return [frozenset(data[ptr[k]:ptr[k + 1]]) for k in which]


def pack(n, keys, is_class, bases, near, made, answers: list[frozenset], same: dict, up: dict,
         by_name: dict, callers) -> Memo:
    """A build's memo (tests_held.Holding's), packed; `same`: each answer's index."""
    def indexes(values) -> np.ndarray:
        return np.fromiter((same[v] for v in values), dtype=np.int32, count=len(values))
    return Memo(n, keys, is_class, bases, near, made, Sets(answers),
                (np.fromiter(up, dtype=np.int64, count=len(up)), Sets(up.values())),
                (np.fromiter(by_name, dtype=np.int64, count=len(by_name)),
                 indexes([m for m, _ in by_name.values()]), Sets(a for _, a in by_name.values())),
                callers)


def unknown(n: int, known: np.ndarray | None = None) -> array.array:
    """Per node id, -1 (not worked out), or `known`'s index where it has one: an array of C ints,
    4 bytes a node, indexed as fast as a list."""
    out = array.array("i", [-1]) * n
    if known is not None:
        np.frombuffer(out, dtype=np.int32)[:len(known)] = known
    return out


def answers_kept(memo: Memo) -> tuple[list[frozenset], np.ndarray, np.ndarray, np.ndarray]:
    """(the memo's answers that some node or name still has, the first the empty one; its `near`
    per depth and `made`, as arrays of indexes into them; each old index's new one, -1: gone):
    answers no node has any more go, so that the list does not grow with each build."""
    near = np.stack([np.frombuffer(m, dtype=np.int32) for m in memo.near])
    made = np.frombuffer(memo.made, dtype=np.int32)
    used = np.unique(np.concatenate([near.ravel(), made, memo.by_name[1], [0]]))
    used = used[used >= 0]
    remap = np.full(len(memo.answers) + 1, -1, dtype=np.int32)  # -1 stays -1 (the last slot)
    remap[used] = np.arange(len(used), dtype=np.int32)
    return memo.answers.sets(used.tolist()), remap[near], remap[made], remap


def up_of(memo: Memo) -> dict[int, tuple[int, ...]]:
    classes, found = memo.up
    data, ptr = found.data.tolist(), found.ptr.tolist()
    return {c: tuple(data[ptr[k]:ptr[k + 1]]) for k, c in enumerate(classes.tolist())}


def by_name_of(memo: Memo, answers: list[frozenset], remap: np.ndarray) -> dict[int, tuple[frozenset, frozenset]]:
    names, made, around = memo.by_name
    return dict(zip(names.tolist(), zip((answers[k] for k in remap[made].tolist()), around.sets(range(len(around))))))


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
