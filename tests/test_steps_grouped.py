"""graph/steps.py `grouped`: a counting sort a block at a time must give what a stable argsort and
`csr` give (test selection's walk is built with it: tests/test_tests_reach.py checks the walk)."""

from __future__ import annotations

import numpy as np
import pytest

from memory_lsp.graph import steps
from memory_lsp.graph.steps import csr, grouped


@pytest.mark.parametrize("n, m", [(1, 0), (5, 3), (100, 200_000), (70_000, 150_000), (3, 1 << 16), (3, (1 << 16) + 1)])
def test_grouped_equals_a_stable_sort_by_key(n, m):
    rng = np.random.default_rng(n + m)
    keys = rng.integers(0, n, m).astype(np.int32)
    ids, marks = rng.integers(0, 1 << 30, m).astype(np.int32), rng.random(m) < 0.3
    order = np.argsort(keys, kind="stable")
    ptr, (got_ids, got_marks) = grouped(keys, n, (ids, marks))
    assert np.array_equal(ptr, csr(keys[order], n))
    assert np.array_equal(got_ids, ids[order]) and got_ids.dtype == np.int32
    assert np.array_equal(got_marks, marks[order])


def test_equal_keys_keep_their_order_across_blocks(monkeypatch):
    # each key's values in input order, however the blocks cut them
    monkeypatch.setattr(steps, "GROUP_BLOCK", 4)
    keys = np.array([2, 0, 2, 1, 2, 0, 0, 2, 1, 2], dtype=np.int32)
    ptr, (values,) = grouped(keys, 3, (np.arange(10, dtype=np.int32),))
    assert ptr.tolist() == [0, 3, 5, 10]
    assert values.tolist() == [1, 5, 6, 3, 8, 0, 2, 4, 7, 9]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_runs_give_each_keys_values_in_their_order(dtype):
    # a class's bases as the INHERITS edges list them (graph/overridden.py, graph/tests_held.py)
    rng = np.random.default_rng(7)
    keys, values = rng.integers(0, 50, 400).astype(dtype), rng.integers(0, 1 << 30, 400).astype(dtype)
    found = steps.runs(keys, values)
    wanted: dict[int, list[int]] = {}
    for k, v in zip(keys.tolist(), values.tolist()):
        wanted.setdefault(k, []).append(v)
    assert all(steps.run_of(found, k) == wanted.get(k, []) for k in range(-1, 52))
