"""The impact graph's steps: per node, the edges to the nodes that depend on it, best-scored first
(CSR over edge indexes; a symbol edge also steps between the two files). Built from every edge on
a whole load; after an edit (graph/follow.py) from the last graph's steps and the new edges: an
edge kept (same row, same fingerprint) keeps its steps and their order, and the new edges' steps
are merged in (sorting all ~440,000 steps of the stdlib took ~60 ms of each edit).

The order: by node, then score descending, then table order (each edge's own step before its
file-level copy), as the walks met them when they were per-node lists.
"""

from __future__ import annotations

import array
import bisect

import numpy as np

DEPENDENCY_KINDS = ("IMPORTS", "CALLS", "INHERITS", "USES_FIXTURE")  # src depends on dst
FORWARD_KINDS = ("DRIVES", "CO_CHANGES")  # dst is affected by src
MAX_MERGED = 20_000  # new steps merged one by one up to this many; a sort of all beyond


class Steps:
    """ptr (per node, where its steps start), node (the dependent reached), edge (the edge
    taken), copy (the step is a symbol edge's file-level copy)."""

    __slots__ = ("ptr", "node", "edge", "copy")

    def __init__(self, ptr, node, edge, copy):
        self.ptr, self.node, self.edge, self.copy = ptr, node.astype(np.int32), edge.astype(np.int32), copy


def csr(keys: np.ndarray, n: int) -> np.ndarray:
    """Row pointers for values already sorted by `keys` (integers below n)."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return ptr


GROUP_BLOCK = 1 << 16  # values `grouped` places a block at a time


def grouped(keys: np.ndarray, n: int, values: tuple[np.ndarray, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(row pointers, each of `values` ordered by `keys`, stably): as `csr` over `np.argsort(keys,
    kind="stable")` gives, by a counting sort a block at a time, with no permutation of them all
    (8 bytes a value: at 11,282 files, the peak of test selection's build, BENCHMARKS.md dh)."""
    ptr = csr(keys, n)  # counts: the keys need no order
    free = ptr[:-1].copy()  # per key, where its next value goes
    out = [np.empty(len(keys), dtype=v.dtype) for v in values]
    for lo in range(0, len(keys), GROUP_BLOCK):
        order = np.argsort(keys[lo:lo + GROUP_BLOCK], kind="stable")
        block = keys[lo:lo + GROUP_BLOCK][order]
        heads = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        count = np.diff(np.r_[heads, len(block)])
        at = free[block] + np.arange(len(block)) - np.repeat(heads, count)  # after the block's equal keys before it
        for o, v in zip(out, values):
            o[at] = v[lo:lo + GROUP_BLOCK][order]
        free[block[heads]] += count
    return ptr, out


def runs(keys: np.ndarray, values: np.ndarray) -> tuple[array.array, array.array]:
    """`values` ordered by `keys` (stably), with the sorted keys, as C int arrays for `run_of`: a few
    values per key looked up one key at a time (a dict of lists was ~5 MB at 11k files; a numpy
    searchsorted per key cost more than the lookup)."""
    order = np.argsort(keys, kind="stable")
    return (array.array("i", keys[order].astype(np.int32).tobytes()),
            array.array("i", values[order].astype(np.int32).tobytes()))


def run_of(found: tuple[array.array, array.array], key: int) -> list[int]:
    """The values `runs` ordered under `key`."""
    keys, values = found
    lo = bisect.bisect_left(keys, key)
    return values[lo:bisect.bisect_right(keys, key, lo)].tolist()


def csr_rows(ptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The positions of the values of `rows` in a CSR layout."""
    starts, lens = ptr[rows], ptr[rows + 1] - ptr[rows]
    return np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)


def among(values: np.ndarray, ids, n: int) -> np.ndarray:
    """Which of `values` are among `ids` (node ids below n; a value of -1, no node, is not): a
    lookup table, where np.isin sorts both (~10 ms for the stdlib's 440,000 steps)."""
    table = np.zeros(n + 1, dtype=bool)  # table[-1]: the extra, never set
    table[np.asarray(ids, dtype=np.int64)] = True
    return table[values]


def build(e: dict, kinds: list[str], n: int) -> Steps:
    """Every edge's steps, sorted."""
    key, node, edge, copy = _steps_of(e, kinds, np.arange(len(e["kind"]), dtype=np.int64))
    sort = np.argsort(-e["score"][edge], kind="stable")
    sort = sort[np.argsort(key[sort], kind="stable")]
    return Steps(csr(key[sort], n), node[sort], edge[sort], copy[sort])


def follow(old: Steps, e: dict, kinds: list[str], n: int, old_to_new: np.ndarray, fresh_at: np.ndarray) -> Steps:
    """The steps after an edit: `old_to_new` maps the last graph's edges to this one's (-1: gone),
    `fresh_at` are this graph's new edges. Kept steps keep their order: their key and score are
    the same and their edges' table order too (rows keep their rowids). Each pass over all the
    steps costs ~2.5 ms on the stdlib here, so the kept steps' keys, scores and positions are
    never spelled out: a node's kept steps are found by counting, and only the runs a new step
    joins are read."""
    key, node, edge, copy = _steps_of(e, kinds, fresh_at)
    if len(edge) > MAX_MERGED:
        return build(e, kinds, n)
    at_edge = old_to_new[old.edge]
    keep = at_edge >= 0
    k_node, k_edge, k_copy = old.node[keep], at_edge[keep], old.copy[keep]
    # where each node's kept steps start: the kept steps before its first step (nodes new since: at the end)
    kept_before = np.zeros(len(keep) + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    kept_ptr = np.full(n + 1, len(k_edge), dtype=np.int64)
    kept_ptr[:len(old.ptr)] = kept_before[old.ptr]
    neg, pos = -e["score"][edge], 2 * edge + copy
    order = np.lexsort((pos, neg, key))
    key, node, edge, copy, neg, pos = key[order], node[order], edge[order], copy[order], neg[order], pos[order]
    # where each new step goes among the kept ones: within its node's run, before the first kept step
    # of a lower score, or of the same score later in table order; a binary search of all new steps
    # at once (one per step in Python took ~10 us each: ~20 ms for a comment typed above 2,000 edges)
    score = e["score"]
    lo, hi = kept_ptr[key], kept_ptr[key + 1]
    while (open_ := np.flatnonzero(lo < hi)).size:
        mid = (lo[open_] + hi[open_]) // 2
        k_neg, k_pos = -score[k_edge[mid]], 2 * k_edge[mid] + k_copy[mid]
        before = (k_neg < neg[open_]) | ((k_neg == neg[open_]) & (k_pos < pos[open_]))
        lo[open_] = np.where(before, mid + 1, lo[open_])
        hi[open_] = np.where(before, hi[open_], mid)
    at = lo
    ptr = kept_ptr.copy()
    ptr[1:] += np.cumsum(np.bincount(key, minlength=n))  # and the new steps of the nodes before
    return Steps(ptr, np.insert(k_node, at, node), np.insert(k_edge, at, edge), np.insert(k_copy, at, copy))


def _steps_of(e: dict, kinds: list[str], at: np.ndarray):
    """(key, node, edge, copy) of the steps of the edges at `at` (ascending), in table order: each
    edge's own step, then its file-level copy (a symbol edge of a dependency kind)."""
    kind, src, dst, src_path, dst_path = (e[c][at] for c in ("kind", "src", "dst", "src_path", "dst_path"))
    is_dep = np.isin(kind, [kinds.index(k) for k in DEPENDENCY_KINDS if k in kinds])
    is_fwd = np.isin(kind, [kinds.index(k) for k in FORWARD_KINDS if k in kinds])
    lifted = is_dep & ((src != src_path) | (dst != dst_path))
    own, lift = np.flatnonzero(is_dep | is_fwd), np.flatnonzero(lifted)
    rows = np.concatenate([own, lift])
    copy = np.repeat([False, True], [len(own), len(lift)])
    order = np.argsort(2 * rows + copy, kind="stable")
    rows, copy = rows[order], copy[order]
    fwd = is_fwd[rows]
    key = np.where(copy, dst_path[rows], np.where(fwd, src[rows], dst[rows]))
    node = np.where(copy, src_path[rows], np.where(fwd, dst[rows], src[rows]))
    return key.astype(np.int64), node, at[rows], copy
