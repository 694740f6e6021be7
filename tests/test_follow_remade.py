"""An editor's run re-makes the edges into a re-parsed file (its importers' IMPORTS, promotions):
they keep the scores the last whole run gave them (the file keeps its own score), so they equal
the rows they replace, and the graph that follows the run reads again only the files whose
edges really changed (graph/follow.py), not every importer of the edited file."""

from __future__ import annotations

from memory_lsp.graph import follow_unresolved

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "import os\n\n\ndef f():\n    return os.getcwd()\n",
    "pkg/a.py": "from pkg.core import f\n\n\ndef a():\n    return f()\n",
    "pkg/b.py": "from pkg import core\n\n\ndef b():\n    return core.f()\n",
    "tests/test_core.py": "from pkg.core import f\n\n\ndef test_f():\n    assert f()\n",
}
COLUMNS = "src, dst, kind, src_path, dst_path, line, confidence, strategy, score"


def _edges(ws, where: str) -> set[tuple]:
    return set(ws.store.cursor().execute(f"SELECT {COLUMNS} FROM edges WHERE {where}").fetchall())


def test_edges_made_again_keep_their_scores(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        into = "dst_path = 'pkg/core.py' AND src_path <> 'pkg/core.py'"
        before = _edges(ws, into)
        score = ws.store.cursor().execute("SELECT score FROM files WHERE path = 'pkg/core.py'").fetchone()[0]
        assert before and score > 0 and all(row[-1] > 0 for row in before)
        text = "# a comment: every line moves\n" + FILES["pkg/core.py"]
        (tmp_path / "pkg/core.py").write_text(text)
        ws.reindex({"pkg/core.py": text.encode()})
        assert _edges(ws, into) == before  # made again (the file was parsed again), the same
        assert ws.store.cursor().execute("SELECT score FROM files WHERE path = 'pkg/core.py'").fetchone()[0] == score
        own = _edges(ws, "src_path = 'pkg/core.py'")
        assert own and all(row[-1] > 0 for row in own)  # its own edges are scored too
    finally:
        ws.close()


def test_the_graph_reads_again_only_the_files_whose_edges_changed(tmp_path, index_files, monkeypatch):
    ws = index_files(tmp_path, FILES)
    try:
        ws.load_graph()

        def edit(text):
            (tmp_path / "pkg/core.py").write_text(text)
            ws.reindex({"pkg/core.py": text.encode()})
            return ws.load_graph()

        text = FILES["pkg/core.py"].replace("os.getcwd()", "os.getcwd() or os.getpid()")
        edit(text)  # the first follow after a whole load reads every row once
        read = []
        real = follow_unresolved.test_reads.unresolved_rows_of
        monkeypatch.setattr(follow_unresolved.test_reads, "unresolved_rows_of",
                            lambda cur, path, is_test: read.append(path) or real(cur, path, is_test))
        graph = edit("# a comment\n" + text.replace("os.getpid()", "os.getppid()"))
        assert graph.followed  # followed
        assert read == ["pkg/core.py"]  # not its importers, whose IMPORTS edges were made again
        edit("# another comment\n# a comment\n" + text.replace("os.getpid()", "os.getppid()"))
        assert read == ["pkg/core.py"]  # lines moved only: no row read (the refs version stayed)
    finally:
        ws.close()
