"""A graph that follows an edit keeps test selection's unresolved calls (graph/follow_unresolved.py)
by reading again the rows of the files the edit touched: after each edit they equal the whole
read (store/test_reads.unresolved_calls) of the same index, row for row and in its order (the
`untyped`, `raised` and `classes` rows as ids of the graph's names, in id order). So does a graph loaded
whole, which makes them from the rows it keeps for the edits to follow.
Edits chosen for what a row depends on besides its own file: a name defined or removed in another
file (dispatch), a call resolved by an edit elsewhere (the test's file unchanged), a file added,
a raised class also made outside a `raise` (its `raised` row goes) and only raised again; what a
module a test imports a variable from declares (its attributes, its type), that module alone edited.
"""

from __future__ import annotations

import weakref

import numpy as np

from memory_lsp.graph import follow_unresolved
from memory_lsp.store import test_reads
from memory_lsp.workspace import host

HELPER = "def present():\n    return 1\n\n\nclass Problem(Exception):\n    pass\n"
CODE = ("import helper\n\n\nclass Maker:\n    def make(self):\n        return self.factory()\n\n"
        "    def other(self):\n        return helper.present()\n\n"
        "    def fail(self):\n        raise helper.Problem()\n")
HOLDER = ("from helper import present\n\nHOOKS = [present]\n\n\ndef quiet():\n    return HOOKS\n\n\n"
          "def loud():\n    return present()\n")  # quiet: a `silent` row (it calls nothing)
TEST = ("import unittest\nimport helper\n\n\nclass TestHelper(unittest.TestCase):\n"
        "    def test_missing(self):\n        helper.missing()\n")


def _rows(calls: dict) -> dict:
    return {kind: list(zip(*(v.tolist() for v in columns.values()))) for kind, columns in calls.items()}


def _whole(ws, graph) -> dict:
    """A whole read of the index now (store/test_reads.py's own queries, not the rows a graph keeps),
    as the graph holds it: `untyped` and `classes` as ids of its names, each kind in id order."""
    read = test_reads.unresolved_calls(ws.store.cursor())
    u, r = read["untyped"], read["raised"]
    untyped = zip(graph.table.ids(u["src"].tolist()).tolist(), graph.calls.ids(u["name"].tolist()).tolist(),
                  np.asarray(u["on_self"], dtype=bool).tolist(), np.asarray(u["read"], dtype=bool).tolist())
    raised = zip(graph.table.ids(r["src"].tolist()).tolist(), graph.calls.ids(r["name"].tolist()).tolist())
    classes = np.unique(graph.table.ids(read["classes"]["id"].tolist()))
    silent = np.unique(graph.table.ids(read["silent"]["src"].tolist()))
    return {**_rows({kind: read[kind] for kind in ("tests", "dispatch", "reexports")}),
            "untyped": sorted(set(untyped)), "raised": sorted(set(raised)), "classes": [(c,) for c in classes.tolist()],
            "silent": [(s,) for s in silent.tolist()]}


def _named(graph) -> list[tuple]:
    """The graph's untyped calls with their names."""
    u = graph.unresolved_calls["untyped"]
    return [(graph.table[s], graph.calls[n], o) for s, n, o in zip(u["src"].tolist(), u["name"].tolist(),
                                                                    u["on_self"].tolist())]


def _edits():
    yield "a test file edited: one more unresolved call", {
        "tests/test_helper.py": TEST + "\n    def test_gone(self):\n        helper.gone()\n"}
    yield "the name a dispatch call uses defined in another file", {"other.py": "def factory():\n    return 2\n"}
    yield "that name removed again", {"other.py": "def unrelated():\n    return 2\n"}
    yield "the test's call runs a module variable of the module it goes through (a held row)", {
        "helper.py": HELPER + "\n\nclass Runner:\n    def __call__(self):\n        return 3\n\n\nmissing = Runner()\n"}
    yield "the test's call resolves now: defined in the module it goes through", {
        "helper.py": HELPER + "\n\ndef missing():\n    return 3\n"}
    yield "lines only", {"code.py": "# a comment\n" + CODE}
    yield "the method an untyped call names renamed: no method of that name anywhere", {
        "code.py": CODE.replace("def make", "def build")}
    yield "a method of that name again, in another file, with a class", {
        "other.py": "class Other:\n    def make(self):\n        return 4\n"}
    yield "a file added", {"tests/test_more.py": TEST.replace("missing", "absent")}
    yield "the class removed: the file defines none now", {"other.py": "def unrelated():\n    return 2\n"}
    yield "a test file's last unresolved call gone", {"tests/test_more.py": TEST.replace("helper.missing()", "pass")}
    yield "the raised class also made, not raised", {
        "code.py": CODE.replace("raise helper.Problem()", "kept = helper.Problem()\n        raise helper.Problem()")}
    yield "only raised again", {"code.py": CODE}
    yield "a call typed into the function that made none", {"holder.py": HOLDER.replace("return HOOKS", "return len(HOOKS)")}
    yield "the function's call gone again, the held value too", {"holder.py": "def quiet():\n    return 1\n"}
    yield "held again", {"holder.py": HOLDER}


def test_followed_unresolved_calls_equal_a_whole_read(tmp_path, index_files):
    ws = index_files(tmp_path, {"helper.py": HELPER, "code.py": CODE, "other.py": "def unrelated():\n    return 2\n",
                                "user.py": "def use(x):\n    return x.make()\n", "tests/test_helper.py": TEST,
                                "holder.py": HOLDER})
    try:
        graph = ws.load_graph()
        want = _whole(ws, graph)
        assert want["tests"] and want["dispatch"] and want["untyped"] and want["classes"] and want["raised"]  # every kind
        silent = {graph.table[s] for s, in want["silent"]}
        assert "holder.py::quiet" in silent and "holder.py::loud" not in silent
        assert _rows(graph.unresolved_calls) == want
        seen, held = [], []
        for what, change in _edits():
            for rel, text in change.items():
                (tmp_path / rel).write_text(text)
            ws.reindex({str(tmp_path / rel): text.encode() for rel, text in change.items()})
            graph = ws.load_graph()
            assert graph.followed, what  # followed, not read whole
            want = _whole(ws, graph)
            assert _rows(graph.unresolved_calls) == want, what
            held.append(sum(row[2] for row in want["tests"]))
            seen.append((len(want["tests"]), len(want["dispatch"]), len(want["untyped"]), len(want["classes"]),
                         len(want["raised"]), len(want["silent"])))
        # the edits moved rows both ways: the fixture exercises what it claims
        assert len(set(seen)) > 2, seen
        assert [s[4] for s in seen[-5:-3]] == [0, 1], seen  # the raised row went, and came back
        assert held == [0, 0, 0, 1, 0] + [0] * (len(seen) - 5), held  # the module variable's row came, and went
        assert [s[5] - seen[-5][5] for s in seen[-4:]] == [0, -1, 0, 0], seen  # quiet's silent row went (a call), and came back
    finally:
        ws.close()


def test_a_load_reading_the_large_kinds_a_row_at_a_time_keeps_every_row(tmp_path, index_files, monkeypatch):
    """A whole load reads `methods`, `untyped` and `raised` in chunks (`read_kept`: one chunk's strings
    alive at once); one row a chunk, the rows kept are a whole read's."""
    monkeypatch.setattr(follow_unresolved, "CHUNK_ROWS", 1)
    ws = index_files(tmp_path, {"helper.py": HELPER, "code.py": CODE + "\n    def again(self):\n        raise helper.Problem()\n",
                                "user.py": "def use(x):\n    return x.make()\n\n\ndef more(y):\n    y.other()\n    return y.fail()\n",
                                "tests/test_helper.py": TEST})
    try:
        graph = ws.load_graph()
        want = _whole(ws, graph)
        assert len(want["untyped"]) >= 3 and len(want["raised"]) >= 2, want
        assert _rows(graph.unresolved_calls) == want
        methods = test_reads.unresolved_rows(ws.store.cursor(), ("methods",))["methods"]
        kept = graph.unresolved_rows
        assert sorted(zip(graph.table.ids(methods["path"].tolist()).tolist(),
                          graph.calls.ids(methods["name"].tolist()).tolist())) == \
            sorted(zip(kept["methods"]["path"].tolist(), kept["methods"]["name"].tolist()))
        assert sum(kept["method_files"].values()) == len(methods["name"]) >= 4
    finally:
        ws.close()


def test_untyped_read_over_ranges_of_files_gives_the_whole_statements_rows(tmp_path, index_files):
    """`untyped` is read a range of files a statement (store/test_reads.py `_parts`, the graph load's
    peak): every row of the whole statement once, whichever range its file falls in."""
    files = {"helper.py": HELPER, "code.py": CODE, "tests/test_helper.py": TEST}
    files.update({f"pkg/user{k}.py": f"def use{k}(x):\n    x.other()\n    return x.make()\n" for k in range(9)})
    ws = index_files(tmp_path, files)
    try:
        cur = ws.store.cursor()
        assert len(test_reads._parts(cur, "untyped")) == test_reads.UNTYPED_PARTS
        whole = cur.execute(test_reads._ROWS["untyped"]).fetchall()
        between = []  # a graph load's release of DuckDB's memory, between two ranges' statements
        chunks = list(test_reads.unresolved_row_chunks(cur, "untyped", 2, between.append))
        got = [row for chunk in chunks for row in zip(*(chunk[c].tolist() for c in chunk))]
        assert len(whole) >= 18 and sorted(got) == sorted(whole) and len(got) == len(whole)
        assert len({path for path, *_ in got}) >= 9  # the rows come from files of every range
        assert between == [cur] * (test_reads.UNTYPED_PARTS - 1)
    finally:
        ws.close()


def test_tests_rows_read_one_statement_after_another_are_their_union(tmp_path, index_files):
    """`tests` is read as its three statements one after another (the graph load's peak when they ran as
    one UNION ALL): the rows of the union, those of an unresolved call and those of a module variable's."""
    held = "class Formatter:\n    def __call__(self, x):\n        return x\n\n\nformat_it = Formatter()\n"
    test = "from fmt import format_it\n\n\ndef test_format():\n    format_it(1)\n"
    ws = index_files(tmp_path, {"helper.py": HELPER, "fmt.py": held, "tests/test_helper.py": TEST,
                                "tests/test_fmt.py": test})
    try:
        cur = ws.store.cursor()
        union = cur.execute(" UNION ALL ".join(test_reads._ROWS["tests"])).fetchall()
        read = test_reads.unresolved_rows(cur, ("tests",))["tests"]
        got = list(zip(*(read[c].tolist() for c in ("path", "src", "module", "held"))))
        assert sorted(got) == sorted(union) and len(got) == len(union)
        assert {h for *_, h in got} == {False, True}  # `helper.missing()` and `format_it(1)`
    finally:
        ws.close()


def _read(rows: list[tuple]) -> dict:
    """A whole read as test_reads.unresolved_rows gives it, with these `untyped` rows only."""
    def column(values, dtype=object):
        out = np.empty(len(values), dtype=dtype)
        out[:] = values
        return out
    empty = {"path": column([]), "src": column([]), "module": column([]), "name": column([])}
    return {"tests": {**empty, "held": column([], bool)}, "dispatch": empty, "classes": {"id": column([])}, "raised": empty, "silent": empty,
            "declared": {"path": column([]), "fp": column([])},
            "methods": {"path": column([r[0] for r in rows]), "name": column([r[2] for r in rows])},
            "untyped": {"path": column([r[0] for r in rows]), "src": column([r[1] for r in rows]),
                        "name": column([r[2] for r in rows]), "on_self": column([r[3] for r in rows], bool),
                        "read": column([False] * len(rows), bool)}}


def _table(names):
    from memory_lsp.graph.names import Names

    return Names("".join(names), np.array([len(n) for n in names], dtype=np.int64))


def test_untyped_rows_are_kept_as_ids_of_the_graphs_names():
    nodes, called = _table(["a.py", "z.py", "z.py::f"]), _table(["zeta", "alpha"])  # a.py::g: a symbol the graph adds
    rows = follow_unresolved.kept(_read([("z.py", "z.py::f", "zeta", True), ("a.py", "a.py::g", "alpha", False),
                                         ("z.py", "z.py::f", "alpha", False), ("a.py", "a.py::g", "alpha", False)]),
                                  nodes, called)
    assert all(column.dtype == np.int32 for c, column in rows["untyped"].items() if c not in ("on_self", "read"))
    assert len(rows["untyped"]["src"]) == 3  # distinct
    assert len(nodes) == 4 and nodes[3] == "a.py::g" and len(called) == 2
    got = follow_unresolved.calls(rows, ("untyped",))["untyped"]
    assert list(zip(got["src"].tolist(), got["name"].tolist(), got["on_self"].tolist())) == [
        (2, 0, True), (2, 1, False), (3, 1, False)]  # in id order
    assert rows["methods"]["path"].tolist() == [0, 1, 1] and rows["methods"]["name"].tolist() == [1, 0, 1]
    assert rows["method_files"] == {0: 1, 1: 2}


def test_rows_kept_in_other_tables_are_never_compared():
    # a whole load numbers its names anew: other rows may have the same ids
    one = follow_unresolved.kept(_read([("a.py", "a.py::f", "x", False)]), _table(["a.py", "a.py::f"]), _table(["x"]))
    other = follow_unresolved.kept(_read([("b.py", "b.py::g", "y", False)]), _table(["b.py", "b.py::g"]), _table(["y"]))
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


def test_the_graphs_untyped_calls_and_classes_are_ids_of_its_names(tmp_path, index_files):
    # the graph keeps these columns all day: as strings they were ~14 MB at 11,282 files, where the
    # names table holds each name already
    ws = index_files(tmp_path, {"job.py": "class Job:\n    def run(self):\n        return 1\n",
                                "a.py": "def a(x):\n    return x.run()\n\n\ndef b(y):\n    return y.run()\n",
                                "c.py": "def c(z):\n    return z.run()\n"})
    try:
        graph = ws.load_graph()
        kept = graph.unresolved_calls
        assert all(column.dtype != object for kind in ("untyped", "classes") for column in kept[kind].values())
        assert sorted(_named(graph)) == [("a.py::a", "run", False), ("a.py::b", "run", False), ("c.py::c", "run", False)]
        assert [graph.table[c] for c in kept["classes"]["id"].tolist()] == ["job.py::Job"]
    finally:
        ws.close()


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
            assert _named(graph) == want
            assert _rows(graph.unresolved_calls)["untyped"] == _whole(ws, graph)["untyped"]
    finally:
        ws.close()


def test_an_edit_that_only_moves_lines_reads_no_unresolved_rows(tmp_path, index_files, monkeypatch):
    """A comment typed: the run moves the file's references and edges to other lines, changes no
    row test selection's unresolved calls hold (they have no lines), and leaves the index's refs
    version (store/code.py) as it was; the graph that follows keeps the last graph's rows instead
    of reading the file's again (~1/3 of following a comment edit on the stdlib)."""
    from memory_lsp.store import graph_reads

    ws = index_files(tmp_path, {"helper.py": HELPER, "code.py": CODE, "user.py": "def use(x):\n    return x.make()\n",
                                "tests/test_helper.py": TEST})
    reads = []  # the files whose rows a graph read ("*": all, as a whole load does)
    one, every = test_reads.unresolved_rows_of, test_reads.unresolved_rows
    monkeypatch.setattr(test_reads, "unresolved_rows_of", lambda *a, **k: reads.append(a[1]) or one(*a, **k))
    chunks = test_reads.unresolved_row_chunks

    def whole(cur, kinds=None):
        reads.extend(["*"] if kinds is None else [])
        return every(cur, kinds)

    def in_chunks(cur, kind, size, between=None):  # a whole read asks for one kind at a time, methods first
        reads.extend(["*"] if kind == "methods" else [])
        return chunks(cur, kind, size, between)
    monkeypatch.setattr(test_reads, "unresolved_rows", whole)
    monkeypatch.setattr(test_reads, "unresolved_row_chunks", in_chunks)
    try:
        before = ws.load_graph()
        version = graph_reads.refs_version(ws.store.cursor())
        assert version is not None and before.refs_version == version
        assert reads == ["*"]
        reads.clear()

        def edit(text):
            (tmp_path / "code.py").write_text(text)
            ws.reindex({str(tmp_path / "code.py"): text.encode()})
            graph = ws.load_graph()
            assert _rows(graph.unresolved_calls) == _whole(ws, graph)
            return graph

        graph = edit("# a comment\n" + CODE)
        assert graph_reads.refs_version(ws.store.cursor()) == version and graph.refs_version == version
        assert reads == []
        graph = edit("# a comment\n" + CODE + "\n    def more(self):\n        return self.maker()\n")
        assert graph.refs_version != version and reads == ["code.py"]  # a call added: the file's rows read again
        graph = edit("# two comments\n# a comment\n" + CODE + "\n    def more(self):\n        return self.maker()\n")
        assert reads == ["code.py"]
        graph = edit("# a comment\n" + CODE + "\n    def more(self):\n        return self.other()\n")
        assert reads == ["code.py", "code.py"]
    finally:
        ws.close()


CONFIG = ("class Settings:\n    maker = dict\n    hooks: list = []\n\n    def run(self):\n        return 1\n\n\n"
          "CONFIG = Settings()\nLEVELS = {}\n")
CONFIG_TEST = ("from config import CONFIG, LEVELS\n\n\ndef test_made():\n    CONFIG.maker()\n\n\n"
               "def test_hooks():\n    assert CONFIG.hooks == []\n\n\ndef test_levels():\n    LEVELS.keys()\n")


def test_rows_that_read_another_files_declarations_follow_an_edit_of_that_file_alone(tmp_path, index_files):
    """A test's row through a module variable asks the module for the variable's type and what its
    class declares (store/test_reads.py `_DECLARED`, Python's own type): `CONFIG.hooks` read holds what
    the module's code put there (a held row), `CONFIG.maker()` and `LEVELS.keys()` run no code of it
    (no row). An edit of config.py alone, which changes no edge of the test file, changes those rows."""
    ws = index_files(tmp_path, {"config.py": CONFIG, "tests/test_config.py": CONFIG_TEST})
    try:
        graph = ws.load_graph()
        seen = []
        for text in (CONFIG, CONFIG.replace("    maker = dict\n", "").replace("    hooks: list = []\n", ""),
                     CONFIG.replace("LEVELS = {}", "LEVELS = Settings()"), CONFIG):
            if seen:
                (tmp_path / "config.py").write_text(text)
                ws.reindex({str(tmp_path / "config.py"): text.encode()})
                graph = ws.load_graph()
                assert graph.followed
            want = _whole(ws, graph)
            assert _rows(graph.unresolved_calls)["tests"] == want["tests"]
            seen.append(sorted((src.partition("::")[2], held) for src, _module, held in want["tests"]))
        assert seen == [[("test_hooks", True)],
                        [("test_made", False)],  # no attribute declared: a blind call through config.py
                        [("test_hooks", True), ("test_levels", False)],  # LEVELS no dict now
                        [("test_hooks", True)]]
    finally:
        ws.close()
