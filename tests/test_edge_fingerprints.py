"""Every edge keeps its fingerprint in the row (store/edges.py), so the graph that follows an edit
reads one number per edge. After any run, each row's fingerprint is the hash of what it says now:
a write that changes a column in place (lines moved, scores, git's co-changes) must not leave an
old one behind, or the graph would keep an edge as it was. An index whose rows have none yet (made
before the column) is read as if they had."""

import subprocess

import numpy as np
from test_import_lines_moved import FILES

from memory_lsp.graph.impact import ImpactGraph
from memory_lsp.store import graph_reads
from memory_lsp.store.edges import FINGERPRINT
from memory_lsp.workspace import Workspace

STALE = f"SELECT count(*) FROM edges e WHERE e.fingerprint IS DISTINCT FROM {FINGERPRINT}"


def _git(root, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


def _stale(ws) -> int:
    return ws.store.cursor().execute(STALE).fetchone()[0]


def test_every_run_leaves_each_edge_with_the_fingerprint_of_what_it_says(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    _git(root, "init", "-q")
    for text in ("# one\n", "# two\n"):  # base.py and more.py change together twice: a CO_CHANGES edge
        for path in ("pkg/base.py", "pkg/more.py"):
            (root / path).write_text(FILES[path] + text)
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", text)
    ws = Workspace.open(root)
    ws.index(workers=0)
    cur = ws.store.cursor()
    assert cur.execute("SELECT count(*) FROM edges WHERE kind = 'CO_CHANGES'").fetchone()[0] > 0
    assert cur.execute("SELECT count(*) FROM edges WHERE score > 0").fetchone()[0] > 0
    assert _stale(ws) == 0
    edits = [  # an editor's runs: lines moved in place (restored edges, imports moved), then made again
        ("pkg/core.py", "# typed\n" + FILES["pkg/core.py"]),
        ("pkg/core.py", "\n\n" + FILES["pkg/core.py"]),
        ("pkg/more.py", FILES["pkg/more.py"] + "\ndef louder():\n    return again() + ping()\n"),
        ("tests/test_core.py", FILES["tests/test_core.py"].replace("== 1", "== 2")),
    ]
    for path, text in edits:
        (root / path).write_text(text)
        ws.reindex({path: text.encode()})
        assert _stale(ws) == 0, path
    (root / "pkg/util.py").unlink()
    ws.reindex({"pkg/util.py": None})
    assert _stale(ws) == 0
    (root / "pkg/base.py").write_text(FILES["pkg/base.py"] + "# three\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "three")
    ws.index(workers=0)  # a whole run: the history and every score again
    assert _stale(ws) == 0
    ws.close()


def test_rows_without_a_fingerprint_read_as_if_they_had_one(tmp_path, index_files):
    ws = index_files(tmp_path / "ws", FILES)
    root = ws.root
    cur = ws.store.cursor()
    hashed = f"SELECT e.rowid AS r, {FINGERPRINT} AS fp FROM edges e ORDER BY e.rowid"
    expected = cur.execute(hashed).fetchnumpy()
    with ws.store.transaction() as wcur:  # as an index made before the column has them
        wcur.execute("UPDATE edges SET fingerprint = NULL WHERE rowid % 2 = 0")
    assert cur.execute("SELECT count(*) FROM edges WHERE fingerprint IS NULL").fetchone()[0] > 0
    with graph_reads.graph_transaction(ws.store.cursor()) as rcur:
        got = graph_reads.edge_fingerprints(rcur)
    assert np.array_equal(got["r"], expected["r"]) and np.array_equal(got["fp"], expected["fp"].astype(np.uint64))
    graph = ImpactGraph.load(ws.store)
    assert np.array_equal(graph.e["fp"], expected["fp"].astype(np.uint64))
    (root / "pkg/core.py").write_text("# typed\n" + FILES["pkg/core.py"])
    ws.reindex({"pkg/core.py": ("# typed\n" + FILES["pkg/core.py"]).encode()})
    assert _stale(ws) == 0  # the editor's run filled them
    ws.close()


def test_an_index_made_before_the_column_keeps_its_rows_and_reads_the_same_graph(tmp_path, index_files):
    ws = index_files(tmp_path / "ws", FILES)
    root = ws.root
    cur = ws.store.cursor()
    expected = cur.execute(f"SELECT {FINGERPRINT} FROM edges e ORDER BY e.rowid").fetchall()
    ws.store.conn.execute("ALTER TABLE edges DROP COLUMN fingerprint")  # schema v6's edges
    ws.store.conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    ws.close()
    again = Workspace.open(root)
    assert not again.store.recovered  # migrated, not rebuilt
    assert again.doctor()["counts"]["files"] == len(FILES)
    graph = ImpactGraph.load(again.store)
    assert graph.e["fp"].tolist() == [row[0] for row in expected]
    again.reindex({"pkg/core.py": ("# typed\n" + FILES["pkg/core.py"]).encode()})
    assert _stale(again) == 0
    again.close()
