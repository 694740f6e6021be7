"""A graph that follows an edit keeps test selection's unresolved calls (graph/follow_unresolved.py)
by reading again the rows of the files the edit touched: after each edit they equal the whole
read (store/test_reads.unresolved_calls) of the same index, row for row and in its order.
Edits chosen for what a row depends on besides its own file: a name defined or removed in another
file (dispatch), a call resolved by an edit elsewhere (the test's file unchanged), a file added.
"""

from __future__ import annotations

import weakref

import numpy as np

from memory_lsp.graph import follow_unresolved
from memory_lsp.store import test_reads
from memory_lsp.workspace import host

HELPER = "def present():\n    return 1\n"
CODE = ("import helper\n\n\nclass Maker:\n    def make(self):\n        return self.factory()\n\n"
        "    def other(self):\n        return helper.present()\n")
TEST = ("import unittest\nimport helper\n\n\nclass TestHelper(unittest.TestCase):\n"
        "    def test_missing(self):\n        helper.missing()\n")


def _rows(calls: dict) -> dict:
    return {kind: list(zip(*(v.tolist() for v in columns.values()))) for kind, columns in calls.items()}


def _edits():
    yield "a test file edited: one more unresolved call", {
        "tests/test_helper.py": TEST + "\n    def test_gone(self):\n        helper.gone()\n"}
    yield "the name a dispatch call uses defined in another file", {"other.py": "def factory():\n    return 2\n"}
    yield "that name removed again", {"other.py": "def unrelated():\n    return 2\n"}
    yield "the test's call resolves now: defined in the module it goes through", {
        "helper.py": HELPER + "\n\ndef missing():\n    return 3\n"}
    yield "lines only", {"code.py": "# a comment\n" + CODE}
    yield "the method an untyped call names renamed: no method of that name anywhere", {
        "code.py": CODE.replace("def make", "def build")}
    yield "a method of that name again, in another file, with a class", {
        "other.py": "class Other:\n    def make(self):\n        return 4\n"}
    yield "a file added", {"tests/test_more.py": TEST.replace("missing", "absent")}


def test_followed_unresolved_calls_equal_a_whole_read(tmp_path, index_files):
    ws = index_files(tmp_path, {"helper.py": HELPER, "code.py": CODE, "other.py": "def unrelated():\n    return 2\n",
                                "user.py": "def use(x):\n    return x.make()\n", "tests/test_helper.py": TEST})
    try:
        graph = ws.load_graph()
        want = _rows(test_reads.unresolved_calls(ws.store.cursor()))
        assert want["tests"] and want["dispatch"] and want["untyped"] and want["classes"]  # every kind
        assert _rows(graph.unresolved_calls) == want
        seen = []
        for what, change in _edits():
            for rel, text in change.items():
                (tmp_path / rel).write_text(text)
            ws.reindex({str(tmp_path / rel): text.encode() for rel, text in change.items()})
            graph = ws.load_graph()
            assert graph.followed, what  # followed, not read whole
            want = _rows(test_reads.unresolved_calls(ws.store.cursor()))
            assert _rows(graph.unresolved_calls) == want, what
            seen.append((len(want["tests"]), len(want["dispatch"]), len(want["untyped"]), len(want["classes"])))
        # the edits moved rows both ways: the fixture exercises what it claims
        assert len(set(seen)) > 2, seen
    finally:
        ws.close()


def _read(rows: list[tuple]) -> dict:
    """A whole read as test_reads.unresolved_rows gives it, with these `untyped` rows only."""
    def column(values, dtype=object):
        out = np.empty(len(values), dtype=dtype)
        out[:] = values
        return out
    empty = {"path": column([]), "src": column([]), "module": column([]), "name": column([])}
    return {"tests": empty, "dispatch": empty, "classes": {"id": column([])},
            "methods": {"path": column([r[0] for r in rows]), "name": column([r[2] for r in rows])},
            "untyped": {"path": column([r[0] for r in rows]), "src": column([r[1] for r in rows]),
                        "name": column([r[2] for r in rows]), "on_self": column([r[3] for r in rows], bool)}}


def test_untyped_rows_held_as_codes_answer_in_string_order():
    # first seen is not string order: the answer is in the order of the read's ORDER BY
    rows = follow_unresolved._sets(_read([("z.py", "z.py::f", "zeta", True), ("a.py", "a.py::g", "alpha", False),
                                          ("z.py", "z.py::f", "alpha", False), ("a.py", "a.py::g", "alpha", False)]))
    assert all(column.dtype == np.int32 for c, column in rows["untyped"].items() if c != "on_self")
    assert len(rows["untyped"]["src"]) == 3  # distinct
    got = follow_unresolved.calls(rows, ("untyped",))["untyped"]
    assert list(zip(got["src"].tolist(), got["name"].tolist(), got["on_self"].tolist())) == [
        ("a.py::g", "alpha", False), ("z.py::f", "alpha", False), ("z.py::f", "zeta", True)]


def test_codes_of_two_whole_reads_are_never_compared():
    # each whole read numbers its strings anew: other rows may have the same codes
    one = follow_unresolved._sets(_read([("a.py", "a.py::f", "x", False)]))
    other = follow_unresolved._sets(_read([("b.py", "b.py::g", "y", False)]))
    assert all(np.array_equal(one["untyped"][c], other["untyped"][c]) for c in one["untyped"])
    assert not follow_unresolved._unchanged("untyped", one, other)
    assert follow_unresolved._unchanged("untyped", one, dict(one))


def test_the_last_graph_is_freed_before_the_heap_is_trimmed(tmp_path, index_files, monkeypatch):
    # what the C heap hands back after a graph follows an edit is the last graph's (~100 MB at
    # 11,000 files): trimmed while it was still held, it stayed with the process
    ws = index_files(tmp_path, {"helper.py": HELPER, "code.py": CODE, "tests/test_helper.py": TEST})
    try:
        first = weakref.ref(ws.load_graph(prepare=True))
        alive_at_trim = []
        monkeypatch.setattr(host, "release_freed_memory", lambda: alive_at_trim.append(first() is not None))
        (tmp_path / "code.py").write_text(CODE + "\n\ndef added():\n    return 1\n")
        ws.reindex({str(tmp_path / "code.py"): (CODE + "\n\ndef added():\n    return 1\n").encode()})
        ws.load_graph(prepare=True)
        assert alive_at_trim == [False]
    finally:
        ws.close()


def test_the_graphs_untyped_calls_hold_each_string_once(tmp_path, index_files):
    # the graph keeps these columns all day: a string per row was 29 MB at 11,282 files, 12 once
    ws = index_files(tmp_path, {"job.py": "class Job:\n    def run(self):\n        return 1\n",
                                "a.py": "def a(x):\n    return x.run()\n\n\ndef b(y):\n    return y.run()\n",
                                "c.py": "def c(z):\n    return z.run()\n"})
    try:
        untyped = test_reads.unresolved_calls(ws.store.cursor())["untyped"]
        names = untyped["name"].tolist()
        assert names == ["run", "run", "run"]
        assert names[0] is names[1] is names[2]
    finally:
        ws.close()


def test_words_added_by_edits_take_their_place_in_string_order():
    import random

    rng = random.Random(3)
    words = follow_unresolved.Words()
    words.codes([f"pkg/m{rng.randrange(500)}.py::f{i}" for i in range(400)])
    for step in range(6):  # an edit's few new words, then once more than an eighth at once
        words.codes([f"pkg/m{rng.randrange(500)}.py::g{step}_{i}" for i in range(3 if step < 5 else 200)])
        rank = words.rank()
        assert [words.words[c] for c in np.argsort(rank)] == sorted(words.words)


def test_a_name_that_becomes_a_method_elsewhere_brings_rows_of_files_not_touched(tmp_path, index_files):
    # `p.exists()` on an outside type is never guessed, so no edge of use.py changes when another
    # file defines the first method named `exists`: its row comes from the name's flip alone
    use = "import pathlib\n\n\ndef use(p: pathlib.Path):\n    return p.exists()\n"
    other = "class Other:\n    def run(self):\n        return 1\n"
    ws = index_files(tmp_path, {"use.py": use, "other.py": other})
    try:
        ws.load_graph()
        for text, want in ((other + "\n    def exists(self):\n        return 2\n", [("use.py::use", "exists", False)]),
                           (other, [])):
            (tmp_path / "other.py").write_text(text)
            ws.reindex({str(tmp_path / "other.py"): text.encode()})
            graph = ws.load_graph()
            assert graph.followed  # followed
            assert _rows(graph.unresolved_calls)["untyped"] == want
            assert _rows(test_reads.unresolved_calls(ws.store.cursor()))["untyped"] == want
    finally:
        ws.close()


def test_kept_words_are_strings_of_their_own():
    """The read's strings die with it; a kept one among them would keep its memory from being
    handed back (36 MB after five edits at 11,282 files, BENCHMARKS.md ba)."""
    read = np.array(["pkg/a.py::Store.get", "pkg/a.py::Store.get", "x", None], dtype=object)
    words = follow_unresolved.Words()
    codes = words.codes(read)
    assert codes.tolist() == [0, 0, 1, 2] and words.words == ["pkg/a.py::Store.get", "x", None]
    assert words.words[0] is not read[0]
    assert words.codes(["pkg/a.py::Store.get"]).tolist() == [0]  # found again by value


def test_an_edit_that_only_moves_lines_reads_no_unresolved_rows(tmp_path, index_files, monkeypatch):
    """A comment typed: the run moves the file's references and edges to other lines, changes no
    row test selection's unresolved calls hold (they have no lines), and leaves the index's refs
    version (store/code.py) as it was; the graph that follows keeps the last graph's rows instead
    of reading the file's again (~1/3 of following a comment edit on the stdlib)."""
    from memory_lsp.store import graph_reads

    ws = index_files(tmp_path, {"helper.py": HELPER, "code.py": CODE, "user.py": "def use(x):\n    return x.make()\n",
                                "tests/test_helper.py": TEST})
    reads = []  # the files whose rows a follow read again ("*": all, as after a whole load)
    one, every = test_reads.unresolved_rows_of, test_reads.unresolved_rows
    monkeypatch.setattr(test_reads, "unresolved_rows_of", lambda *a, **k: reads.append(a[1]) or one(*a, **k))
    monkeypatch.setattr(test_reads, "unresolved_rows", lambda *a, **k: reads.append("*") or every(*a, **k))
    try:
        before = ws.load_graph()
        version = graph_reads.refs_version(ws.store.cursor())
        assert version is not None and before.refs_version == version

        def edit(text):
            (tmp_path / "code.py").write_text(text)
            ws.reindex({str(tmp_path / "code.py"): text.encode()})
            graph = ws.load_graph()
            assert _rows(graph.unresolved_calls) == _rows(test_reads.unresolved_calls(ws.store.cursor()))
            return graph

        graph = edit("# a comment\n" + CODE)
        assert graph_reads.refs_version(ws.store.cursor()) == version and graph.refs_version == version
        assert reads == []
        graph = edit("# a comment\n" + CODE + "\n    def more(self):\n        return self.maker()\n")
        assert graph.refs_version != version and reads == ["*"]  # a call added: read again
        graph = edit("# two comments\n# a comment\n" + CODE + "\n    def more(self):\n        return self.maker()\n")
        assert reads == ["*"]
        graph = edit("# a comment\n" + CODE + "\n    def more(self):\n        return self.other()\n")
        assert reads == ["*", "code.py"]  # now the file's rows only (the last graph kept them all)
    finally:
        ws.close()
