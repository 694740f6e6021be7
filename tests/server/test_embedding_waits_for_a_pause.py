"""An edit does not start the background job that brings the search documents and vectors up to
date: it reads every item's text to find what is missing (0.5-2.6 s at 11,000 files) and would
hold the next keystroke's re-index behind it. It runs once the edits pause (the idle settle)."""

from __future__ import annotations

import time

from conftest import folder_with_graph

from memory_lsp.server import folders


def _wait(predicate, within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.05)
    return predicate()


def _vector_of(folder, name: str) -> bool:
    return bool(folder.ws.store.cursor().execute(
        "SELECT count(*) FROM vectors v JOIN chunks c ON c.id = v.item_id WHERE c.name = ?", [name]).fetchone()[0])


def test_the_background_embeds_an_edit_once_the_edits_pause(tmp_path, write_files, monkeypatch):
    monkeypatch.setattr(folders, "SETTLE_AFTER_SECONDS", 1.0)
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "def first(x):\n    return x + 1\n"})
    with folder_with_graph(tmp_path, background=True) as folder:
        assert _wait(lambda: _vector_of(folder, "first"))  # the first index's job
        time.sleep(folders.SETTLE_AFTER_SECONDS + 1.5)  # and the pause after its graph load, with its job
        original, runs = folder.ws.embed_pending, []

        def counted(*args, **kwargs):
            runs.append(time.monotonic())
            return original(*args, **kwargs)
        folder.ws.embed_pending = counted
        edited = time.monotonic()
        text = b"def first(x):\n    return x + 1\n\n\ndef second(y):\n    return first(y) * 2\n"
        folder.reindex({str(tmp_path / "pkg/a.py"): text}).result(60)
        assert _wait(folder.ws.graph_is_current)
        time.sleep(0.3)
        assert runs == []  # not after the edit
        assert _wait(lambda: _vector_of(folder, "second"))  # after the pause
        assert runs and runs[0] - edited >= folders.SETTLE_AFTER_SECONDS
