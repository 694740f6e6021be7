"""A whole index run leaves nothing in DuckDB's write-ahead log: what its commits wrote (a run
that changed no file still writes every file's and edge's score) is checkpointed into the file,
not held in the process's memory until the log passes 16 MB (at 11,000 files 22 MB of DuckDB's
memory, the warm server 8-12 MB: BENCHMARKS.md ax)."""

import os

from memory_lsp.workspace import Workspace

FILES = {"pkg/__init__.py": "", **{f"pkg/m{i}.py": f"from pkg import m{(i + 1) % 6}\n\ndef f{i}():\n    return m{(i + 1) % 6}.f{(i + 1) % 6}()\n"
         for i in range(6)}}


def _wal(ws) -> int:
    path = str(ws.store.path) + ".wal"
    return os.path.getsize(path) if os.path.exists(path) else 0


def test_a_whole_run_leaves_its_writes_in_the_file(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        assert _wal(ws) == 0
        ws.index(workers=0)  # nothing changed: the scores are written again
        assert _wal(ws) == 0
        assert ws.store.cursor().execute("SELECT count(*) FROM edges WHERE kind = 'CALLS'").fetchone()[0] == 6  # all kept
    finally:
        ws.close()


def test_a_checkpoint_refused_while_a_transaction_runs_is_no_error(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        other = ws.store.conn.cursor()
        other.execute("BEGIN TRANSACTION")
        other.execute("UPDATE files SET loc = loc")  # another writer's transaction, open
        assert ws.store.checkpoint() is False  # DuckDB refuses while it is
        other.execute("COMMIT")
        assert ws.store.checkpoint() is True
        assert _wal(ws) == 0
    finally:
        ws.close()
