"""Issue 14 item 7: a database that breaks under a running server. The file is damaged on disk
while a standalone server holds it (the next read of a block fails its checksum), and a real
DuckDB FatalException (a checkpoint over a damaged block invalidates the connection): the store
says so (`on_damage`), the file is set aside and reopened, the index rebuilt, and later requests
are answered with every memory."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from memory_lsp.memory.book import MemoryBook
from memory_lsp.store.db import damaged
from memory_lsp.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))
from rawclient import RawClient  # noqa: E402

SERVER = [sys.executable, "-m", "memory_lsp", "serve", "--standalone"]
ENV = dict(os.environ, MEMORY_LSP_NO_OWNER="1")


def workspace(root: Path, memories: int = 5) -> Path:
    (root / "pkg").mkdir(parents=True)
    for i in range(40):
        (root / "pkg" / f"m{i}.py").write_text("".join(
            f"def f{i}_{j}(x):\n    '''doc {i} {j}'''\n    return g{j}(x) + {j}\n\n" for j in range(30)), encoding="utf-8")
    book = MemoryBook(root)
    for i in range(memories):
        book.teach(f"memory {i} about f{i}_1", "fact")
    return root


def damage_blocks(db: Path) -> None:
    """64 random bytes in every 256 KiB block after the headers, in place (same file, same size)."""
    size = db.stat().st_size
    with open(db, "r+b") as f:
        for offset in range(12288, size - 1000, 262144):
            f.seek(offset + 1000)
            f.write(os.urandom(64))


def test_a_running_server_reopens_an_index_damaged_under_it(tmp_path):
    root = workspace(tmp_path / "ws")
    done = subprocess.run([sys.executable, "-m", "memory_lsp", "index", str(root)], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    db = root / ".memory" / "index.duckdb"
    raw = RawClient(SERVER)
    try:
        raw.initialize(root)
        raw.wait_indexed()

        def command(name, **arguments):
            return raw.call("workspace/executeCommand", {"command": name, "arguments": [arguments]}, timeout=60)

        # the index answers (from the in-memory graph: a search here would bring the search
        # tables into DuckDB's cache, and the re-index below must read blocks from the file)
        assert command("memory.impact", target="pkg/m3.py")["result"]["target"] == "pkg/m3.py"
        damage_blocks(db)
        # a file changed on disk: re-indexing it reads blocks the server had not cached
        (root / "pkg" / "m3.py").write_text("def changed_after_damage():\n    return 1\n", encoding="utf-8")
        raw.notify("workspace/didChangeWatchedFiles",
                   {"changes": [{"uri": (root / "pkg" / "m3.py").as_uri(), "type": 2}]})
        raw.wait_for(lambda: list(db.parent.glob("index.duckdb.broken-*")), 60, "the damaged file set aside")

        def answered():
            answer = command("memory.search", query="changed_after_damage")
            return "result" in answer and "pkg/m3.py" in json.dumps(answer["result"])
        raw.wait_for(answered, 120, "search answered from the rebuilt index")
        assert "pkg/m4.py" in json.dumps(command("memory.search", query="f4_1")["result"])
        assert len(command("memory.memories")["result"]["memories"]) == 5
        assert [m for m in raw.messages if "error" in m] == []  # reads during the recovery waited for it
        assert raw.close() == 0
    finally:
        raw.close()
    log = "".join(raw.stderr)
    assert "is damaged" in log and "set aside and rebuilt" in log
    assert "Traceback" not in json.dumps(raw.messages)


def test_a_fatal_error_invalidates_the_connection_and_reopen_recovers(tmp_path):
    root = workspace(tmp_path / "ws", memories=8)
    ws = Workspace.open(root)
    ws.index(workers=0)
    # ballast of several row groups: a checkpoint after a large delete rewrites (reads) them
    ws.store.cursor().execute("CREATE TABLE ballast AS SELECT range AS i, repeat('x', 100) || range AS s "
                              "FROM range(300000)")
    ws.close()
    db = root / ".memory" / "index.duckdb"
    ws = Workspace.open(root)
    seen = []
    ws.store.on_damage = seen.append
    try:
        ws.store.cursor().execute("DELETE FROM ballast WHERE i < 100000")
        damage_blocks(db)
        try:
            ws.store.cursor().execute("CHECKPOINT")
        except duckdb.Error as exc:
            assert isinstance(exc, duckdb.FatalException), exc
        try:
            ws.store.cursor().execute("SELECT 1")  # every query fails now: the connection is invalidated
        except duckdb.FatalException as exc:
            assert "invalidated" in str(exc)
        assert [type(e) for e in seen] == [duckdb.FatalException]  # on_damage is told once
        assert damaged(seen[0])
        ws.reopen()
        assert "set aside" in ws.store.recovered
        assert list(db.parent.glob("index.duckdb.broken-*"))
        report = ws.index(workers=0)
        assert report.parsed == 40
        assert len(ws.memories()) == 8
        assert "pkg/m1.py" in json.dumps(ws.search("f1_1", k=5))
    finally:
        ws.close()
