"""After an editor's re-index the memory sync is skipped only when no memory can have moved
(workspace/host.py `_settled`): every citation found where it points, none in the re-indexed
files. Otherwise the citations are resolved again, as after any code change: a memory whose
code moved follows it, including code that was gone and reappears in a file nobody cited.
"""

from __future__ import annotations

A = "def f(x):\n    return x * 41 + 1\n"
B = "def g(y):\n    return [y, y, y]\n"


def _where(ws, text: str) -> tuple[str, str | None, str]:
    m = next(m for m in ws.snapshot().memories.all if m.text == text)
    c = m.citations[0]
    return (c.current or {}).get("path"), (c.current or {}).get("symbol"), c.state


def test_memory_sync_after_an_edit(tmp_path, index_files):
    ws = index_files(tmp_path, {"a.py": A, "b.py": B, "c.py": "X = 1\n"})
    try:
        ws.book.teach("f answers 42 for 1", "gotcha", cite=[f"{tmp_path / 'a.py'}::f"])
        ws.book.teach("g makes three", "gotcha", cite=[f"{tmp_path / 'b.py'}::g"])
        assert ws.sync_memories()
        assert _where(ws, "f answers 42 for 1") == ("a.py", "f", "valid")
        view = ws.snapshot().memories
        generation = ws.snapshot().generation

        # an uncited file edited: nothing can have moved; the new generation is published
        ws.reindex({str(tmp_path / "c.py"): b"X = 2\n\ndef h():\n    return X\n"})
        assert ws.snapshot().memories is view and ws.snapshot().generation > generation

        # a cited file edited: resolved again (f moved down: still valid, at its new lines)
        ws.reindex({str(tmp_path / "a.py"): ("# moved\n" + A).encode()})
        assert ws.snapshot().memories is not view
        assert _where(ws, "f answers 42 for 1") == ("a.py", "f", "valid")

        # g removed from the file its memory cites: not found there
        ws.reindex({str(tmp_path / "b.py"): b"Y = 0\n"})
        assert _where(ws, "g makes three")[2] != "valid" or _where(ws, "g makes three")[0] != "b.py"
        view = ws.snapshot().memories
        # ... and the same code appears in a file no memory cites: that memory was not found
        # where it points, so the sync runs and follows it there
        ws.reindex({str(tmp_path / "c.py"): ("X = 2\n\n\n" + B).encode()})
        assert ws.snapshot().memories is not view
        assert _where(ws, "g makes three") == ("c.py", "g", "valid")
    finally:
        ws.close()
