"""The impact graph holds confidences as codes into a table of their values (graph/confidences.py):
a byte per edge, step and call site, and exactly the answers of float64s. Values a hair apart stay
apart under a filter between them; a graph that follows an edit bringing a value it had not seen
(a name guess among more candidates) answers as a graph read whole, also once its table outgrows
a byte's codes.
"""

from __future__ import annotations

import numpy as np
import pytest

from memory_lsp.graph import confidences
from memory_lsp.graph.follow import follow
from memory_lsp.graph.impact import ImpactGraph

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def helper():\n    return 1\n\n\ndef sure():\n    return 2\n",
    # x.helper(): a guess by name (0.5 among one candidate); x.nowhere(): a call site nothing resolves
    "pkg/user.py": "from pkg.a import sure\n\n\ndef use(x):\n    return x.helper() + sure() + x.nowhere()\n",
    "pkg/top.py": "from pkg.user import use\n\n\ndef top(x):\n    return use(x)\n",
    "tests/test_user.py": "from pkg.user import use\n\n\ndef test_use():\n    assert use(1)\n",
}
HELPER = "def helper():\n    return {}\n"
MIN_CONFIDENCES = (0.0, 0.1, 0.17, 0.25, 0.3, 0.5, 0.8999999, 0.9, 0.95, 1.0)


def _stored(ws) -> np.ndarray:
    rows = ws.store.cursor().execute("SELECT confidence FROM edges ORDER BY rowid").fetchall()
    return np.array([r[0] for r in rows], dtype=np.float64)


def _targets(ws) -> list[tuple[str, str]]:
    cur = ws.store.cursor()
    files = [(p, p) for (p,) in cur.execute("SELECT path FROM files").fetchall()]
    return sorted(files + cur.execute("SELECT id, path FROM symbols").fetchall())


def _answers(graph: ImpactGraph, targets) -> list:
    out = []
    for node, path in targets:
        for least in MIN_CONFIDENCES:
            walked = graph.walk(node, path, 3, least)
            symbols = ([node] if node != path else []) + [d.node for d in walked[0] if d.symbol]
            out.append((node, least, walked, graph.counts(node, path, 3, least),
                        graph.unresolved(symbols, path if node == path else None, least)))
    return out


def _sites(graph: ImpactGraph) -> list[tuple]:
    best = graph.confidences[graph.site_best].view(np.uint64).tolist()  # bits: -0.0 and nan told apart too
    names = [graph.calls[k] for k in graph.site_name.tolist()]
    return sorted(zip(names, (graph.names[f] for f in graph.site_file.tolist()), best))


def test_codes_give_back_every_value_bit_for_bit_and_widen_past_a_byte():
    values = np.array([0.9, 0.8999999, 0.9, -np.inf, 0.0, -0.0, np.nan, 1 / 6, 0.5 / 3], dtype=np.float64)
    table, codes = confidences.coded(confidences.NONE, values)
    assert codes.dtype == np.uint8 and len(table) == 7  # 1/6 and 0.5/3 are the same float64
    assert table[codes].view(np.uint64).tolist() == values.view(np.uint64).tolist()
    many = np.arange(300, dtype=np.float64) / 7
    grown, more = confidences.coded(table, many)
    assert more.dtype == np.uint16
    assert np.array_equal(grown[:len(table)].view(np.uint64), table.view(np.uint64))  # appended: old codes hold
    assert np.array_equal(grown[more], many) and np.array_equal(grown[codes].view(np.uint64), values.view(np.uint64))


def test_a_table_near_a_byte_grown_by_more_values_than_the_passes_take():
    """The passes code a column's values in a byte while the table stays within 256 values; a table of
    224 grown by 33 new values (257 in all) is coded by the sort, in two bytes."""
    table, _ = confidences.coded(confidences.NONE, np.arange(224, dtype=np.float64))
    values = np.repeat(1000.0 + np.arange(33, dtype=np.float64), 3)
    grown, codes = confidences.coded(table, values)
    assert len(grown) == 257 and codes.dtype == np.uint16
    assert np.array_equal(grown[codes], values) and np.array_equal(grown[:224], table)
    few, small = confidences.coded(table, values[:30])  # 10 new values: the passes, a byte
    assert small.dtype == np.uint8 and np.array_equal(few[small], values[:30])


def test_a_hair_below_a_filter_stays_below_it(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        ws.store.cursor().execute("UPDATE edges SET confidence = 0.8999999 WHERE src = 'pkg/top.py::top'")
        graph = ImpactGraph.load(ws.store)
        assert graph.e["confidence"].dtype == graph.step_conf.dtype == graph.site_best.dtype == np.uint8
        assert graph.confidences[graph.e["confidence"]].view(np.uint64).tolist() == \
            _stored(ws).view(np.uint64).tolist()
        target, path = "pkg/user.py::use", "pkg/user.py"
        at = {least: {d.node: d.confidence for d in graph.walk(target, path, 1, least)[0]}
              for least in (0.9, 0.8999999)}
        assert at[0.9] == {"tests/test_user.py::test_use": 0.9}
        assert at[0.8999999] == {**at[0.9], "pkg/top.py::top": 0.9}  # round(0.8999999, 4)
        assert graph.counts(target, path, 1, 0.9)[0] == 1 and graph.counts(target, path, 1, 0.8999999)[0] == 2
        # the call site in pkg/top.py is resolved at 0.8999999 only
        assert graph.unresolved([target], None, 0.9) == 1 and graph.unresolved([target], None, 0.8999999) == 0
    finally:
        ws.close()


@pytest.mark.parametrize("padding", [0, 256])
def test_a_followed_graph_with_new_confidences_answers_as_a_whole_load(tmp_path, index_files, padding):
    """Each edit adds a definition of `helper`: the guess at `x.helper()` is among 2 (0.25 each), then
    3 (0.1667), then too many (none: its site unresolved). `padding`: values the last graph's table
    holds already (none of its codes), so the new ones take two bytes."""
    ws = index_files(tmp_path, FILES)
    try:
        graph = ImpactGraph.load(ws.store)
        graph.confidences = np.concatenate([graph.confidences, 2.0 + np.arange(padding)])
        for k in range(2, 5):
            text = HELPER.format(k)
            (tmp_path / f"pkg/h{k}.py").write_text(text)
            ws.reindex({str(tmp_path / f"pkg/h{k}.py"): text.encode()})
            followed, fresh = follow(graph, ws.store), ImpactGraph.load(ws.store)
            assert followed is not None and followed.followed
            assert len(followed.confidences) > len(graph.confidences) or k == 4  # a value it had not seen
            assert followed.e["confidence"].dtype == (np.uint16 if padding else np.uint8)
            stored = _stored(ws).view(np.uint64).tolist()
            for g in (followed, fresh):
                assert g.confidences[g.e["confidence"]].view(np.uint64).tolist() == stored
            assert _sites(followed) == _sites(fresh)
            assert _answers(followed, _targets(ws)) == _answers(fresh, _targets(ws)), k
            graph = followed
        guesses = ws.store.cursor().execute("SELECT count(*) FROM edges WHERE dst LIKE '%::helper'").fetchone()[0]
        assert guesses == 0 and graph.unresolved(["pkg/a.py::helper"], None, 0.0) == 1
    finally:
        ws.close()
