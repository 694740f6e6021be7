"""The impact graph follows an edit (graph/follow.py): after each re-index of a few buffers or
files, the graph built from the last one and the changed rows answers exactly as a graph read
whole from the same index: every file's and symbol's walk (dependents, order, paths, scores,
confidences, lines, tests), counts, target checks, symbols per file and unresolved call sites.
Real code (the standard library's json package, the Python graph contract), indexed for real.
"""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from memory_lsp.graph import steps
from memory_lsp.graph.follow import follow
from memory_lsp.graph.impact import ImpactGraph
from memory_lsp.workspace import Workspace

CONTRACT = Path(__file__).parent / "contracts" / "languages" / "python" / "workspace"
STDLIB = Path(sysconfig.get_paths()["stdlib"])

NEW_MODULE = '''"""Uses the decoder and the encoder."""
from json.decoder import JSONDecoder, scanstring
from json import encoder


def decode_twice(text):
    first = JSONDecoder().decode(text)
    return scanstring(first, 0)


class LoudEncoder(encoder.JSONEncoder):
    def encode(self, o):
        return decode_twice(super().encode(o))
'''
NEW_TEST = '''import unittest
from lib.json import extra


class TestExtra(unittest.TestCase):
    def test_decode_twice(self):
        self.assertEqual(extra.decode_twice('"a"'), "a")
        extra.LoudEncoder().encode([1])
'''


def _edits(root: Path):
    """(description, {path: new text or None for deleted}) applied one after the other."""
    decoder = (root / "lib/json/decoder.py").read_text()
    encoder = (root / "lib/json/encoder.py").read_text()
    yield "a function appended that calls others", {
        "lib/json/decoder.py": decoder + "\n\ndef decode_again(s):\n    return scanstring(s, 0) or JSONObject\n"}
    yield "lines only: a comment on top", {"lib/json/encoder.py": "# moved down a line\n" + encoder}
    yield "a new module and a test asserting on it", {"lib/json/extra.py": NEW_MODULE,
                                                       "tests/test_extra.py": NEW_TEST}
    # the test's IMPORTS and ASSERTS_ON edges moved in place (store/moved_lines.move_file_links)
    yield "lines only: a comment above a test's imports", {"tests/test_extra.py": "# extra\n\n" + NEW_TEST}
    yield "a function renamed with its calls", {
        "lib/json/encoder.py": encoder.replace("py_encode_basestring_ascii", "py_ascii_encoder")}
    yield "a file deleted", {"lib/json/tool.py": None}
    yield "a function removed that others call", {"lib/json/extra.py": NEW_MODULE.replace(
        "def decode_twice(text):", "def decode_thrice(text):")}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("follow")
    shutil.copytree(STDLIB / "json", root / "lib" / "json", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CONTRACT, root / "contract")
    # names beyond ASCII: the graph finds names by bisection over their UTF-8 bytes
    (root / "lib" / "unicode_names.py").write_text(
        "def café():\n    return 1\n\n\nclass Ärger:\n    def 数据(self):\n        return café()\n\n\n"
        "def z():\n    return Ärger().数据() + café()\n", encoding="utf-8")
    ws = Workspace.open(root, memory_limit_mb=256)  # as the server: DuckDB's freed memory handed back
    ws.index(workers=0)
    yield ws
    ws.close()


def _targets(ws: Workspace, extra: set[tuple[str, str]]) -> list[tuple[str, str]]:
    cur = ws.store.cursor()
    files = [(r[0], r[0]) for r in cur.execute("SELECT path FROM files ORDER BY path").fetchall()]
    symbols = [(r[0], r[1]) for r in cur.execute("SELECT id, path FROM symbols ORDER BY id").fetchall()]
    return sorted(set(files) | set(symbols) | extra)


def _same_answers(got: ImpactGraph, want: ImpactGraph, targets: list[tuple[str, str]]) -> int:
    answered = 0
    for node, path in targets:
        for min_confidence in (0.0, 0.5):
            walked = want.walk(node, path, 3, min_confidence)
            assert got.walk(node, path, 3, min_confidence) == walked, (node, min_confidence)
            assert got.counts(node, path, 3, min_confidence) == want.counts(node, path, 3, min_confidence), node
            symbols = ([node] if node != path else []) + [d.node for d in walked[0] if d.symbol]
            symbols_of = None if node != path else path
            assert got.unresolved(symbols, symbols_of, min_confidence) == \
                want.unresolved(symbols, symbols_of, min_confidence), node
            answered += bool(walked[0])
        assert got.has_file(path) == want.has_file(path), path
        assert got.is_test_file(path) == want.is_test_file(path), path
        assert got.has_symbol(node) == want.has_symbol(node), node
        assert got.qualnames(path) == want.qualnames(path), path
    return answered


def test_a_followed_graph_answers_as_a_fresh_load_after_each_edit(ws):
    root = ws.root
    graph = ws.load_graph()
    seen: set[tuple[str, str]] = set()
    for what, change in list(_edits(root)):
        seen |= set(_targets(ws, set()))  # what existed before: a deleted file or symbol must answer as unknown
        buffers = {}
        for rel, text in change.items():
            full = root / rel
            if text is None:
                full.unlink()
                buffers[str(full)] = None
            else:
                full.parent.mkdir(parents=True, exist_ok=True)
                full.write_text(text)
                buffers[str(full)] = text.encode()
        report = ws.reindex(buffers)
        assert report.parsed or report.deleted, what
        followed = follow(graph, ws.store)
        assert followed is not None, what
        # the steps merged from the last graph's are those sorted from all edges
        built = steps.build(followed.e, followed.kinds, followed.n)
        for part in ("ptr", "node", "edge", "copy"):
            assert np.array_equal(getattr(followed.steps, part), getattr(built, part)), (what, part)
        fresh = ImpactGraph.load(ws.store)
        assert _same_answers(followed, fresh, _targets(ws, seen)) > 50, what
        # the host follows too: the graph it publishes shares the last one's names
        published = ws.load_graph()
        assert published.table is graph.table, what
        assert published.walk("lib/json/decoder.py", "lib/json/decoder.py", 3) == \
            fresh.walk("lib/json/decoder.py", "lib/json/decoder.py", 3)
        graph = published


def test_a_full_index_run_reads_the_graph_whole(ws):
    before = ws.load_graph()
    (ws.root / "lib/json/scanner.py").write_text((ws.root / "lib/json/scanner.py").read_text() + "\n# edited\n")
    ws.index(workers=0)
    after = ws.load_graph()
    assert after is not before and after.table is not before.table


def test_every_indexed_name_is_found(ws):
    graph = ImpactGraph.load(ws.store)
    cur = ws.store.cursor()
    files = [r[0] for r in cur.execute("SELECT path FROM files").fetchall()]
    symbols = [r[0] for r in cur.execute("SELECT id FROM symbols").fetchall()]
    assert "lib/unicode_names.py::Ärger.数据" in symbols
    assert all(graph.has_file(f) for f in files)
    assert all(graph.has_symbol(s) for s in symbols)
    assert not graph.has_symbol("lib/unicode_names.py::Ärger.数") and not graph.has_file("lib/unicode")
    assert [graph.names[i] for i in range(graph.n)] == sorted((graph.names[i] for i in range(graph.n)),
                                                              key=lambda n: n.encode())
    callers = graph.walk("lib/unicode_names.py::café", "lib/unicode_names.py", 2)[0]
    assert {d.node for d in callers} >= {"lib/unicode_names.py::z"}


def test_edges_are_matched_by_rowid_and_fingerprint_whether_rowids_are_dense_or_not():
    from memory_lsp.graph.follow import _matches

    rng = np.random.default_rng(3)
    for spread in (1, 50):  # dense rowids (a table from rowid to index), sparse (a search)
        old_r = np.arange(0, 2000 * spread, spread, dtype=np.int64)
        old_fp = rng.integers(0, 2**63, len(old_r)).astype(np.uint64)
        keep = rng.random(len(old_r)) > 0.1
        fp = old_fp[keep].copy()
        fp[::7] += np.uint64(1)  # changed in place: same rowid, another fingerprint
        rowid = np.concatenate([old_r[keep], old_r[-1] + 1 + np.arange(30)])
        fp = np.concatenate([fp, rng.integers(0, 2**63, 30).astype(np.uint64)])
        expected = [int(np.flatnonzero(old_r == r)[0]) if r in set(old_r.tolist()) and
                    old_fp[np.flatnonzero(old_r == r)[0]] == f else -1 for r, f in zip(rowid.tolist(), fp)]
        assert _matches({"r": old_r, "fp": old_fp}, rowid, fp).tolist() == expected


def test_steps_merged_after_random_edits_are_the_steps_sorted_from_all_edges():
    """Many ties in score, symbol edges with their file-level copies, edges removed anywhere and
    made at the end of the table, nodes new since: the merge must equal the sort."""
    rng = np.random.default_rng(11)
    kinds = ["CALLS", "IMPORTS", "DRIVES", "DOCUMENTS"]

    def edges(count, n):
        src, dst = rng.integers(0, n, count), rng.integers(0, n, count)
        lifted = rng.random(count) < 0.5  # a symbol edge: its ends' files are other nodes
        return {"src": src, "dst": dst, "src_path": np.where(lifted, rng.integers(0, n, count), src),
                "dst_path": np.where(lifted, rng.integers(0, n, count), dst),
                "kind": rng.integers(0, len(kinds), count).astype(np.int8),
                "score": rng.integers(0, 4, count) / 2.0}  # few distinct scores: ties in every run

    for n_old, n_new in ((300, 300), (300, 340)):
        old_e = edges(5000, n_old)
        old = steps.build(old_e, kinds, n_old)
        keep = rng.random(5000) > 0.05
        made = edges(400, n_new)
        new_e = {c: np.concatenate([old_e[c][keep], made[c]]) for c in old_e}
        old_to_new = np.full(5000, -1, dtype=np.int64)
        old_to_new[keep] = np.arange(int(keep.sum()))
        fresh_at = np.arange(int(keep.sum()), len(new_e["kind"]), dtype=np.int64)
        merged = steps.follow(old, new_e, kinds, n_new, old_to_new, fresh_at)
        built = steps.build(new_e, kinds, n_new)
        for part in ("ptr", "node", "edge", "copy"):
            assert np.array_equal(getattr(merged, part), getattr(built, part)), (n_new, part)
