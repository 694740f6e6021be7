"""Test selection built again after an edit starts from what the last build worked out
(graph/held_memo.py): whatever the edit changed, the build equals one made fresh on the same
graph, array for array. Each edit below changes one thing a kept answer was worked out from."""

from __future__ import annotations

import numpy as np

from memory_lsp.graph import held_memo, tests_carry, tests_reach

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": ("class Store:\n    def get(self):\n        return 1\n\n\n"
                    "class Cache:\n    def get(self):\n        return 3\n\n    def put(self):\n        return 4\n\n\n"
                    "class Base:\n    def load(self):\n        return 2\n"),
    # far() makes what build() makes, two calls away, and calls get() on an untyped receiver
    "pkg/make.py": ("from pkg.core import Store, Cache\n\n\ndef build():\n    return Store()\n\n\n"
                    "def outer():\n    return build()\n"),
    "pkg/far.py": "from pkg.make import outer\n\n\ndef far(y):\n    outer()\n    return y.get()\n",
    "pkg/near.py": "def near(z):\n    return z.put()\n",
    # loader() makes a Cache and calls load() on an untyped receiver: Base's, once Cache is a Base
    "pkg/loader.py": "from pkg.core import Cache\n\n\ndef loader(z):\n    Cache()\n    return z.load()\n",
    "tests/test_far.py": "from pkg.far import far\n\n\ndef test_far():\n    assert far(None)\n",
    "tests/test_near.py": "from pkg.near import near\n\n\ndef test_near():\n    assert near(None)\n",
    "tests/test_loader.py": "from pkg.loader import loader\n\n\ndef test_loader():\n    assert loader(None)\n",
}

MAKE = FILES["pkg/make.py"]
EDITS = [
    ("what a callee two calls away makes: far() now holds a Cache", {
        "pkg/make.py": MAKE.replace("return Store()", "return Cache()")}),
    ("and back", {"pkg/make.py": MAKE}),
    ("a class's bases: Cache is a Store", {
        "pkg/core.py": FILES["pkg/core.py"].replace("class Cache:", "class Cache(Store):")}),
    ("a class's bases again: Cache is a Base too, so what loader() makes holds Base.load", {
        "pkg/core.py": FILES["pkg/core.py"].replace("class Cache:", "class Cache(Store, Base):")}),
    ("a caller's own calls: near() makes a Cache", {
        "pkg/near.py": "from pkg.core import Cache\n\n\ndef near(z):\n    Cache()\n    return z.put()\n"}),
    ("a new function, and a new untyped caller of get()", {
        "pkg/near.py": ("from pkg.core import Cache\n\n\ndef near(z):\n    Cache()\n    return z.put()\n\n\n"
                        "def more(w):\n    return w.get()\n")}),
    ("a class is a function now", {
        "pkg/core.py": FILES["pkg/core.py"].replace("class Store:\n    def get(self):\n        return 1\n",
                                                    "def Store():\n    return 1\n")}),
]


def _arrays(reach) -> dict:
    w = reach.walk
    return {"ptr": w.ptr, "node": w.node, "parent": w.parent, "live": w.live, "known": reach.known,
            "holds_tests": reach.holds_tests, "has_caller": w.has_caller,
            "bits": np.zeros(0) if w.bits is None else w.bits}


def test_a_build_from_the_last_builds_answers_equals_a_fresh_one(tmp_path, index_files, monkeypatch):
    seeded = []
    build = tests_reach.TestReach

    def spy(g, unresolved, memo=None):
        seeded.append(memo is not None)
        return build(g, unresolved, memo)

    monkeypatch.setattr(tests_carry.tests_reach, "TestReach", spy)
    ws = index_files(tmp_path, FILES)
    try:
        graph = ws.load_graph(prepare=True)
        for what, change in EDITS:
            for rel, text in change.items():
                (tmp_path / rel).write_text(text)
            seeded.clear()
            ws.reindex({str(tmp_path / rel): text.encode() for rel, text in change.items()})
            graph = ws.load_graph(prepare=True)
            assert seeded == [True], what  # built again, from the last build's answers
            fresh = build(graph, graph.unresolved_calls)
            mine, theirs = _arrays(graph.test_reach()), _arrays(fresh)
            for name in mine:
                assert np.array_equal(mine[name], theirs[name]), (what, name)
    finally:
        ws.close()


def test_far_holds_what_its_callee_two_calls_away_makes(tmp_path, index_files):
    """The edit the memo must notice: a caller's own calls do not change, a callee's callee's do."""
    ws = index_files(tmp_path, FILES)
    try:
        ws.load_graph(prepare=True)
        assert "tests/test_far.py" not in ws.impact("pkg/core.py::Cache.get", depth=3)["tests"]
        (tmp_path / "pkg/make.py").write_text(EDITS[0][1]["pkg/make.py"])
        ws.reindex({str(tmp_path / "pkg/make.py"): EDITS[0][1]["pkg/make.py"].encode()})
        ws.load_graph(prepare=True)
        assert "tests/test_far.py" in ws.impact("pkg/core.py::Cache.get", depth=3)["tests"]
    finally:
        ws.close()


def test_stale_reaches_three_calls_up_from_a_changed_node():
    """a -> b -> c -> d -> e: e's calls change; b, c, d reach e within three calls, a does not."""
    n = 6
    calls = {0: [1], 1: [2], 2: [3], 3: [4]}
    ptr = np.zeros(n + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(calls.get(v, ())) for v in range(n)])
    callee = np.array([u for v in range(n) for u in calls.get(v, ())], dtype=np.int64)
    is_class = np.zeros(n, dtype=bool)
    before = held_memo.Memo(n, held_memo.call_keys(ptr, callee), is_class, {}, [], {}, [], {}, {}, None)
    ptr2 = ptr.copy()
    ptr2[5:] += 1  # e (4) now calls 5
    callee2 = np.r_[callee, 5]
    mask, flipped = held_memo.stale(before, held_memo.call_keys(ptr2, callee2), is_class, 3)
    assert np.flatnonzero(mask).tolist() == [1, 2, 3, 4] and not flipped
    flip = is_class.copy()
    flip[2] = True  # c becomes a class: a and b reach it
    mask, flipped = held_memo.stale(before, before.keys, flip, 3)
    assert np.flatnonzero(mask).tolist() == [0, 1, 2] and flipped


def test_the_answers_no_node_has_any_more_are_not_kept():
    # each build adds the answers it worked out: the next keeps only those some node (or name) still has
    import numpy as np

    none, a, b, c, d = frozenset(), frozenset({1}), frozenset({2}), frozenset({3}), frozenset({4, 5})
    answers = [none, a, b, c, d]
    near = [held_memo.unknown(3, np.array([0, 3, -1], dtype=np.int32))]
    made = held_memo.unknown(4, np.array([1, -1, 3], dtype=np.int32))
    memo = held_memo.pack(3, None, None, None, near, made, answers, {v: k for k, v in enumerate(answers)},
                          {7: (7, 8)}, {9: (d, {1, 2})}, None)
    answers, near, made, remap = held_memo.answers_kept(memo)
    assert answers == [frozenset(), a, c, d]  # b: no node's; d: a name's
    assert near.tolist() == [[0, 2, -1]] and made.tolist() == [1, -1, 2, -1]
    assert held_memo.up_of(memo) == {7: (7, 8)}
    assert held_memo.by_name_of(memo, answers, remap) == {9: (d, frozenset({1, 2}))}


def test_the_memo_a_graph_keeps_holds_no_set_per_answer(tmp_path, index_files):
    # kept all day beside the graph: as sets and dicts ~25 MB at 10,740 files (the builds above
    # unpack it, and equal fresh ones)
    ws = index_files(tmp_path, FILES)
    try:
        memo = ws.load_graph(prepare=True).test_reach().memo
        assert isinstance(memo.answers, held_memo.Sets) and len(memo.answers) > 1
        parts = (*memo.up, *memo.by_name)
        assert all(isinstance(part, (np.ndarray, held_memo.Sets)) for part in parts)
        assert len(memo.up[0]) and len(memo.by_name[0])  # the fixture fills each
    finally:
        ws.close()
