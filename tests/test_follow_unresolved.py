"""A graph that follows an edit keeps test selection's unresolved calls (graph/follow_unresolved.py)
by reading again the rows of the files the edit touched: after each edit they equal the whole
read (store/test_reads.unresolved_calls) of the same index, row for row and in its order.
Edits chosen for what a row depends on besides its own file: a name defined or removed in another
file (dispatch), a call resolved by an edit elsewhere (the test's file unchanged), a file added.
"""

from __future__ import annotations

from memory_lsp.store import test_reads

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
            assert hasattr(graph, "unresolved_rows"), what  # followed, not read whole
            want = _rows(test_reads.unresolved_calls(ws.store.cursor()))
            assert _rows(graph.unresolved_calls) == want, what
            seen.append((len(want["tests"]), len(want["dispatch"]), len(want["untyped"]), len(want["classes"])))
        # the edits moved rows both ways: the fixture exercises what it claims
        assert len(set(seen)) > 2, seen
    finally:
        ws.close()
