"""A whole index run that finds nothing changed (an editor's start on a workspace it indexed
before) keeps what it would only make again: the scores it made within the hour (they only age)
and every DOCUMENTS edge; an edit, or scores older than that, are scored again."""

import time

from memory_lsp.graph import scoring
from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def run():\n    return helper()\n\n\ndef helper():\n    return 1\n",
    "pkg/cli.py": "from pkg.core import run\n\n\ndef main():\n    return run()\n",
    "README.md": "# Tool\n\nStart with `pkg/cli.py`; `run` does the work.\n",
}


def _state(ws):
    cur = ws.store.cursor()
    return (ws.store.meta("scored_at"),
            cur.execute("SELECT src, dst, line, score FROM edges ORDER BY ALL").fetchall(),
            cur.execute("SELECT path, score FROM files ORDER BY path").fetchall())


def test_a_run_that_changed_nothing_keeps_recent_scores_and_every_edge(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        before = _state(ws)
        assert before[0] is not None
        assert any(r[0] == "README.md" for r in before[1])  # a DOCUMENTS edge to keep
        report = ws.index(workers=0)
        assert not report.code_changed
        assert _state(ws) == before  # the same scores, stamp and edges

        ws.store.set_meta("scored_at", str(time.time() - scoring.SCORES_KEPT_S - 1))
        ws.index(workers=0)  # scores an hour old: made again, though nothing changed
        assert float(ws.store.meta("scored_at")) > time.time() - 60

        stamp = ws.store.meta("scored_at")
        (root / "pkg" / "core.py").write_text(FILES["pkg/core.py"] + "\n\ndef more():\n    return run()\n")
        assert ws.index(workers=0).code_changed
        assert ws.store.meta("scored_at") != stamp  # a change is scored at once
    finally:
        ws.close()


def _citation(ws, mid):
    (m,) = [m for m in ws.memories(include_retired=True) if m.id == mid]
    return m.citations[0]


def test_a_start_that_changed_nothing_keeps_the_memories_and_the_search_index(tmp_path, write_files, monkeypatch):
    """The next process's start (a whole run that finds nothing changed) neither resolves every
    citation again nor marks the search index stale (its next search rebuilt it: ~15 s at 11,000
    files): the last sync saw this code."""
    from memory_lsp.memory import citations
    from memory_lsp.store import fulltext

    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    mid = ws.book.teach("run() is the only entry", "gotcha", cite=["pkg/core.py::run"]).memory.id
    ws.sync_memories()
    fulltext.ensure_fts(ws.store)
    ws.close()

    resolved = []
    real = citations.resolve
    monkeypatch.setattr(citations, "resolve", lambda c, lookup: resolved.append(c) or real(c, lookup))
    ws = Workspace.open(root)
    try:
        assert not ws.index(workers=0).code_changed
        assert resolved == [] and ws.store.meta("fts_dirty") == "0"
        assert ws.has_code() and _citation(ws, mid).state == "valid"
    finally:
        ws.close()


def test_a_projection_older_than_the_index_is_resolved_again(tmp_path, write_files):
    """A process that died between an index run and its memories' sync left them resolved against
    older code: the next start, though its run finds nothing to index, resolves them again."""
    from memory_lsp.graph.passes import PASSES
    from memory_lsp.index import indexer

    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    mid = ws.book.teach("run() is the only entry", "gotcha", cite=["pkg/core.py::run"]).memory.id
    ws.sync_memories()
    assert _citation(ws, mid).current["start_line"] == 1
    (root / "pkg" / "core.py").write_text("# moved\n# down\n" + FILES["pkg/core.py"])
    indexer.run(ws.store, ws.root, ws.settings, workers=0, passes=PASSES)  # indexed, never synced
    ws.close()

    ws = Workspace.open(root)
    try:
        assert not ws.index(workers=0).code_changed
        assert _citation(ws, mid).current["start_line"] == 3  # where the code is now
    finally:
        ws.close()
