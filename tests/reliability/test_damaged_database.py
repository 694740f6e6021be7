"""Issue 14 item 7, damaged databases: truncations, byte flips in the headers and in data blocks, a
zeroed tail, garbage in the write-ahead log. The next `memory-lsp index` sets the file aside and
rebuilds, and every memory of the event log is still there (the log is the truth). A flip in a
data block is found when the database opens (every table is read once after an unclean close or a
change by anything else), not by some later search. The time to ready for each variant is
bench/bench_reliability_damage.py."""

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory_lsp.memory.book import MemoryBook
from memory_lsp.store.db import Store
from memory_lsp.workspace import Workspace

MEMORIES = 20
ENV = dict(os.environ, MEMORY_LSP_NO_OWNER="1")  # the CLI opens the file itself


def cli(*args):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True,
                          env=ENV, timeout=300)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A workspace with memories, indexed; its database's bytes after a clean close."""
    root = tmp_path_factory.mktemp("clean")
    for i in range(30):
        (root / "pkg").mkdir(exist_ok=True)
        (root / "pkg" / f"m{i}.py").write_text(
            "".join(f"def f{i}_{j}(x):\n    return g{j}(x) + {j}\n\n" for j in range(20)), encoding="utf-8")
    book = MemoryBook(root)
    for i in range(MEMORIES):
        book.teach(f"memory number {i} about f{i}_1", "fact")
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.close()
    db = root / ".memory" / "index.duckdb"
    return root, db.read_bytes()


def flip(data: bytes, offset: int) -> bytes:
    out = bytearray(data)
    out[offset] ^= 0xFF
    return bytes(out)


def variants(data: bytes) -> dict[str, tuple[bytes, bytes | None]]:
    """name -> (database bytes, write-ahead log bytes or None)."""
    n = len(data)
    cuts = {"0": 0, "100": 100, "4096": 4096, "12288": 12288, "half": n // 2, "last-byte": n - 1}
    out = {f"truncated-{name}": (data[:cut], None) for name, cut in cuts.items()}
    # the file header, both database headers, and data blocks (256 KiB each after the headers)
    offsets = {"8": 8, "100": 100, "4136": 4096 + 40, "8232": 8192 + 40, "12298": 12288 + 10,
               "second-block": 12288 + 262144 + 100, "middle": n // 2, "end": n - 100}
    for name, offset in offsets.items():
        out[f"flipped-{name}"] = (flip(data, offset), None)
    out["zeroed-tail"] = (data[:-65536] + bytes(65536), None)
    out["zeroed-after-headers"] = (data[:12288] + bytes(n - 12288), None)
    out["garbage-wal"] = (data, random.Random(2).randbytes(50_000))
    out["zero-wal"] = (data, bytes(4096))
    return out


def memory_ids(root: Path) -> set[str]:
    done = cli("memories", "-w", str(root), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    return {m["id"] for m in (data["memories"] if isinstance(data, dict) else data)}


def damage(tmp_path: Path, clean, variant: str) -> tuple[Path, set[str]]:
    """A copy of the clean workspace with its database damaged; the memory ids of its log."""
    source, data = clean
    root = tmp_path / "ws"
    shutil.copytree(source, root)
    db = root / ".memory" / "index.duckdb"
    expected = {e["memory"] for e in (json.loads(line) for line in
                                      (root / ".memory" / "events.jsonl").read_text().splitlines())}
    assert len(data) > 12288 + 262144 + 100, "the clean database is too small for these offsets"
    body, wal = variants(data)[variant]
    for stale in db.parent.glob("index.duckdb*"):
        stale.unlink()
    db.write_bytes(body)
    if wal is not None:
        Path(str(db) + ".wal").write_bytes(wal)
    return root, expected


@pytest.mark.parametrize("variant", list(variants(b"\0" * 600_000)))
def test_a_damaged_database_is_rebuilt_and_no_memory_is_lost(tmp_path, clean, variant):
    root, expected = damage(tmp_path, clean, variant)
    ws = Workspace.open(root)
    try:
        report = ws.index(workers=0)
        assert report.files == 30
        assert {m.id for m in ws.memories()} == expected and len(expected) == MEMORIES
        hits = ws.search("f3_1", k=5)
        assert "pkg/m3.py" in json.dumps(hits)
    finally:
        ws.close()


@pytest.mark.parametrize("variant", ["flipped-middle", "truncated-half", "garbage-wal"])
def test_the_cli_rebuilds_a_damaged_database(tmp_path, clean, variant):
    root, expected = damage(tmp_path, clean, variant)
    done = cli("index", str(root))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "30 files" in done.stdout
    assert memory_ids(root) == expected
    search = cli("search", "-w", str(root), "f3_1", "--json")
    assert search.returncode == 0 and "Traceback" not in search.stderr, search.stderr
    assert "pkg/m3.py" in search.stdout


def test_a_flip_after_a_clean_close_is_found_on_open(tmp_path, clean):
    source, data = clean
    root = tmp_path / "ws"
    shutil.copytree(source, root)
    db = root / ".memory" / "index.duckdb"
    Store.open(db).close()  # a clean close: the next open trusts the file as it left it
    assert Path(str(db) + ".clean").exists()
    with open(db, "r+b") as f:  # changed in place by something else (the size stays)
        f.seek(len(data) // 2)
        byte = f.read(1)
        f.seek(len(data) // 2)
        f.write(bytes([byte[0] ^ 0xFF]))
    store = Store.open(db)
    try:
        assert store.recovered and "set aside" in store.recovered
    finally:
        store.close()
    assert list(db.parent.glob("index.duckdb.broken-*"))


def test_a_clean_close_skips_the_full_read(tmp_path, clean, monkeypatch):
    source, _ = clean
    root = tmp_path / "ws"
    shutil.copytree(source, root)
    db = root / ".memory" / "index.duckdb"
    Store.open(db).close()
    from memory_lsp.store import clean_close
    reads = []
    real = clean_close.read_every_block
    monkeypatch.setattr(clean_close, "read_every_block", lambda conn: reads.append(1) or real(conn))
    Store.open(db).close()
    assert reads == []
    os.utime(db)  # touched by something else: checked again
    Store.open(db).close()
    assert reads == [1]


def test_the_full_read_leaves_nothing_in_duckdbs_cache(tmp_path):
    """The check after an unclean close reads every block; what it read must not stay cached
    (up to DuckDB's limit: 260 MB more in a warm server on 11k files, BENCHMARKS.md av)."""
    db = tmp_path / "index.duckdb"
    store = Store.open(db)
    store.conn.execute("CREATE TABLE big AS SELECT range AS n, md5(range::VARCHAR) AS h FROM range(400000)")
    store.close()
    os.utime(db)  # as a process killed while it held the file would leave it: checked on open

    def cached(s: Store) -> int:
        return s.conn.execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() "
                              "WHERE tag = 'BASE_TABLE'").fetchone()[0]

    store = Store.open(db)
    try:
        assert cached(store) <= 1 << 20  # the 1 MiB the eviction's limit leaves (a whole-suite run met exactly that)
        store.conn.execute("SELECT count(*), max(h) FROM big").fetchall()  # and the cache still works
        assert cached(store) > 1 << 20
        assert store.conn.execute("SELECT current_setting('memory_limit')").fetchone()[0] != "1.0 MiB"
    finally:
        store.close()
