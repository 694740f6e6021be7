"""Issue 13 item 3: index workers pack their results as columns (index/batch.py) and redact the
chunks' text themselves; the rows must be those the in-process path writes, row for row."""

from memory_lsp.workspace import Workspace

KEY = "AKIA" + "Q7X2M4N8P1R5T3V9"  # the shape of an AWS access key id, made up

TABLES = {
    "files": "path, lang, hash, size, loc, is_test, notes, side_effects, mutations",
    "symbols": "*", "refs": "*", "chunks": "*", "mentions": "*",
    "edges": "src, dst, kind, src_path, dst_path, line, confidence, strategy, name",
}


def _workspace() -> dict[str, str]:
    files = {}
    for i in range(90):  # above indexer.PARALLEL_THRESHOLD: the worker path runs
        files[f"pkg/mod{i}.py"] = (
            f"from pkg.mod{(i + 1) % 90} import Thing{(i + 1) % 90}\n\n"
            f"class Thing{i}(Thing{(i + 1) % 90}):\n"
            f"    def run(self, x):\n"
            f"        helper = Thing{(i + 1) % 90}()\n"
            f"        helper.run(x)\n"
            f"        self.items = []\n"
            f"        return work{i}(x)\n\n"
            f"def work{i}(y):\n"
            f"    key = '{KEY if i == 7 else 'none'}'\n"
            f"    return [y, key]\n")
    files["pkg/test_things.py"] = "def test_run(tmp_path):\n    assert work3(tmp_path)\n"
    files["README.md"] = "# Pkg\n\nSee `Thing3.run` and `pkg/mod4.py`.\n"
    return files


def _rows(ws: Workspace) -> dict[str, list]:
    cur = ws.store.cursor()
    return {t: sorted(cur.execute(f"SELECT {cols} FROM {t}").fetchall(), key=repr) for t, cols in TABLES.items()}


def test_worker_batches_write_the_rows_of_the_in_process_path(tmp_path, write_files):
    got = {}
    for workers in (0, 2):
        root = write_files(tmp_path / f"w{workers}", _workspace())
        ws = Workspace.open(root)
        try:
            report = ws.index(workers=workers)
            assert report.parsed == 92
            got[workers] = _rows(ws)
        finally:
            ws.close()
    for table in TABLES:
        assert got[2][table] == got[0][table], table
    assert len(got[2]["refs"]) > 90 * 3 and len(got[2]["mentions"]) >= 2
    texts = "\n".join(r[-1] for r in got[2]["chunks"])
    assert KEY not in texts and "[REDACTED:" in texts  # redacted in the worker too


def test_a_touched_identical_file_keeps_its_rows_and_moves_its_mtime(tmp_path, write_files):
    import os

    root = write_files(tmp_path, _workspace())
    ws = Workspace.open(root)
    try:
        ws.index(workers=2)
        before = _rows(ws)
        for i in range(70):  # touched, same bytes: the worker path again, every file "same"
            os.utime(root / f"pkg/mod{i}.py", (1_000_000 + i, 1_000_000 + i))
        report = ws.index(workers=2)
        assert report.parsed == 70
        assert _rows(ws) == before
        mtime = ws.store.cursor().execute("SELECT mtime FROM files WHERE path = 'pkg/mod5.py'").fetchone()[0]
        assert mtime == 1_000_005
    finally:
        ws.close()
