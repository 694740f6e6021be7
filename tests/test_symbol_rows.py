"""A file's symbols answered from the impact graph's columns (graph/symbol_rows.py) equal the index's
rows (store/code.py `symbols_of`) after a whole load and after each graph that follows an edit: a
function added, lines moved by a comment, a file added, one deleted, a symbol renamed. A snapshot whose
graph is current asks DuckDB nothing for them; one whose graph predates the code asks the store."""

from __future__ import annotations

from memory_lsp.graph import symbol_rows
from memory_lsp.store import code

FILES = {
    "pkg/__init__.py": "",
    "pkg/shapes.py": ("class Shape:\n    def area(self):\n        return 0\n\n    class Inner:\n        def deep(self):\n"
                      "            return 1\n\n\ndef make():\n    def local():\n        return Shape()\n    return local()\n"),
    "pkg/twice.py": "def f():\n    return 1\n\n\ndef f():\n    return 2\n",  # the same id twice: both rows kept
    "pkg/web.ts": "export class Box {\n  open(): number {\n    return 1;\n  }\n}\nexport function wrap() {\n  return new Box();\n}\n",
    "notes.py": "X = 1\n",  # a file without symbols
}


def _index_rows(ws) -> dict:
    cur = ws.store.cursor()
    paths = [r[0] for r in cur.execute("SELECT path FROM files ORDER BY path").fetchall()]
    return {p: code.symbols_of(cur, p) for p in paths}


def _same(ws, graph) -> None:
    want = _index_rows(ws)
    assert want["pkg/shapes.py"] and want["pkg/web.ts"] and want["notes.py"] == []
    for path, rows in want.items():
        got = symbol_rows.symbols_of(graph, path)
        assert got is not None, path
        assert [r.start for r in got] == sorted(r.start for r in got), path  # file order
        assert sorted(got) == sorted(rows), path  # ties in start line: DuckDB's ORDER BY leaves them unordered
    assert symbol_rows.symbols_of(graph, "pkg/nowhere.py") is None


def test_a_files_symbols_from_the_graph_equal_the_index_after_each_edit(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        _same(ws, ws.load_graph())
        shapes = FILES["pkg/shapes.py"]
        edits = [{"pkg/shapes.py": shapes + "\n\ndef added(x):\n    return x\n"},
                 {"pkg/shapes.py": "# a comment\n# two\n" + shapes + "\n\ndef added(x):\n    return x\n"},
                 {"pkg/more.py": "class More:\n    def m(self):\n        return 1\n"},
                 {"pkg/twice.py": "def g():\n    return 1\n"},
                 {"pkg/web.ts": FILES["pkg/web.ts"].replace("open()", "close()")}]
        for change in edits:
            for rel, text in change.items():
                (tmp_path / rel).write_text(text)
            ws.reindex({str(tmp_path / rel): text.encode() for rel, text in change.items()})
            graph = ws.load_graph()
            assert graph.followed, change
            _same(ws, graph)
        (tmp_path / "pkg/more.py").unlink()
        ws.reindex({str(tmp_path / "pkg/more.py"): None})
        graph = ws.load_graph()
        assert symbol_rows.symbols_of(graph, "pkg/more.py") is None
        _same(ws, graph)
    finally:
        ws.close()


def test_a_snapshot_asks_the_store_only_while_its_graph_predates_the_code(tmp_path, index_files, monkeypatch):
    ws = index_files(tmp_path, FILES)
    asked = []
    real = code.symbols_of
    monkeypatch.setattr(code, "symbols_of", lambda cur, path: asked.append(path) or real(cur, path))
    try:
        ws.load_graph()
        snap = ws.snapshot()
        assert snap.graph_current
        got = snap.symbols("pkg/shapes.py")
        assert asked == []
        assert sorted(got) == sorted(real(ws.store.cursor(), "pkg/shapes.py")) and len(got) >= 5
        assert {s.qualname for s in got} >= {"Shape", "Shape.area", "Shape.Inner", "Shape.Inner.deep", "make"}
        text = FILES["pkg/shapes.py"] + "\n\ndef later():\n    return 2\n"
        (tmp_path / "pkg/shapes.py").write_text(text)
        ws.reindex({str(tmp_path / "pkg/shapes.py"): text.encode()})
        stale = ws.snapshot()
        assert not stale.graph_current  # the graph follows when asked (the server's graph thread)
        assert "later" in [s.name for s in stale.symbols("pkg/shapes.py")]
        assert asked == ["pkg/shapes.py"]
        ws.load_graph()
        assert "later" in [s.name for s in ws.snapshot().symbols("pkg/shapes.py")] and asked == ["pkg/shapes.py"]
    finally:
        ws.close()
