"""An editor's runs are written into the index file between edits (workspace/host.py
`checkpoint_edits`, which the server's writer runs after each graph load): DuckDB otherwise holds
them in memory, with its write-ahead log, until the log passes 16 MB (~30 MB of the server at
11,282 files, BENCHMARKS.md az)."""

from __future__ import annotations

A = "def f(x):\n    return x + 1\n"


def _log_bytes(root) -> int:
    wal = root / ".memory" / "index.duckdb.wal"
    return wal.stat().st_size if wal.exists() else 0


def test_an_editors_run_is_checkpointed_between_edits(tmp_path, index_files):
    ws = index_files(tmp_path, {"a.py": A, "b.py": "from a import f\n\n\ndef g():\n    return f(1)\n"})
    try:
        assert not ws.checkpoint_edits()  # a whole run checkpoints itself: nothing to write
        ws.reindex({str(tmp_path / "a.py"): (A + "\n\ndef h():\n    return f(2)\n").encode()})
        assert _log_bytes(tmp_path) > 0
        assert not ws.checkpoint_edits(busy=lambda: True)  # more work waits: left for later
        assert _log_bytes(tmp_path) > 0
        ws.load_graph()  # its read transaction ends with the load: DuckDB can checkpoint after it
        assert ws.checkpoint_edits()
        assert _log_bytes(tmp_path) == 0
        assert not ws.checkpoint_edits()  # nothing written since
        assert ws.impact("a.py::h")["target"]  # the index reads as before
        ws.reindex({str(tmp_path / "a.py"): A.encode()})  # the file back: rows written (h deleted)
        assert ws.checkpoint_edits() and _log_bytes(tmp_path) == 0
    finally:
        ws.close()
