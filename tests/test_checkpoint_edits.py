"""After each graph load the server's writer writes an editor's runs into the index file
(workspace/host.py `checkpoint_edits`; DuckDB otherwise holds them in memory, with its
write-ahead log, until the log passes 16 MB: ~30 MB of the server at 11,282 files, BENCHMARKS.md
az); once idle, it also hands back DuckDB's cache of the blocks the load read (`settle`: 68 MB
there, BENCHMARKS.md ba)."""

from __future__ import annotations

import threading

A = "def f(x):\n    return x + 1\n"


def _log_bytes(root) -> int:
    wal = root / ".memory" / "index.duckdb.wal"
    return wal.stat().st_size if wal.exists() else 0


def _cached(store) -> int:
    return store.cursor().execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() "
                                  "WHERE tag = 'BASE_TABLE'").fetchone()[0]


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


def test_the_blocks_a_graph_load_read_are_handed_back(tmp_path, index_files):
    files = {f"m{i}.py": "".join(f"def f{i}_{j}(x):\n    return f{i}_{j - 1}(x) + {j}\n\n\n" for j in range(1, 60))
             for i in range(40)}
    ws = index_files(tmp_path, files)
    try:
        ws.store.drop_cache()
        ws.load_graph(prepare=True)
        assert _cached(ws.store) > 1 << 20  # the load's blocks, cached up to DuckDB's limit
        limit = ws.store.cursor().execute("SELECT current_setting('memory_limit')").fetchone()[0]
        ws.settle()
        assert _cached(ws.store) <= 1 << 20  # the 1 MiB the eviction's limit leaves
        assert ws.store.cursor().execute("SELECT current_setting('memory_limit')").fetchone()[0] == limit
        assert ws.impact("m3.py::f3_5")["target"]  # read again from the file
    finally:
        ws.close()


def test_reads_under_way_are_not_failed_by_the_drop(tmp_path, index_files):
    """The drop sets a limit of 1 MiB for a moment: a query then would fail for want of memory.
    Readers wait at the store's gate instead (store/cursor.py `Gate.alone`)."""
    ws = index_files(tmp_path, {"a.py": A})
    store, errors, done = ws.store, [], threading.Event()
    store.conn.execute("CREATE TABLE big AS SELECT range AS n, md5(range::VARCHAR) AS h FROM range(300000)")

    def read():
        while not done.is_set():
            try:
                store.cursor().execute("SELECT h, count(*) FROM big GROUP BY h ORDER BY h LIMIT 3").fetchall()
            except Exception as exc:  # noqa: BLE001 - what failed is the finding
                errors.append(exc)
                return

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(30):
            store.drop_cache()
    finally:
        done.set()
        reader.join()
        ws.close()
    assert errors == []


def test_a_read_under_way_keeps_the_cache_rather_than_stall_the_readers():
    """A long read (a graph load's join) is inside the gate: the drop waits a moment, then leaves
    the cache; calls that came meanwhile wait only that moment, and pass once it gives up."""
    from memory_lsp.store.cursor import Gate

    gate, inside, leave, passed = Gate(), threading.Event(), threading.Event(), threading.Event()

    def long_read():
        with gate.passing():
            inside.set()
            leave.wait(10)

    def later_read():
        with gate.passing():
            passed.set()

    reader = threading.Thread(target=long_read)
    reader.start()
    inside.wait(10)
    with gate.alone(0.2) as alone:
        late = threading.Thread(target=later_read)
        late.start()
        assert not passed.wait(0.05)  # held back while the drop waits or runs
        assert alone is False  # the long read was still inside
    assert passed.wait(10)  # let through once the drop gave up
    leave.set()
    reader.join()
    late.join()
    with gate.alone(0.2) as alone:
        assert alone is True  # nobody inside now


CHAIN = {f"m{i}.py": f"from m{(i + 1) % 40} import f{(i + 1) % 40}_1\n\n\n"
         + "".join(f"def f{i}_{j}(x):\n    return f{i}_{j - 1}(x) + f{(i + 1) % 40}_1(x)\n\n\n" for j in range(1, 60))
         for i in range(40)}


def test_a_servers_whole_load_hands_the_blocks_back_between_its_reads(tmp_path, index_files, monkeypatch):
    """A long-lived process (a memory limit set) loads the graph whole with DuckDB's cache dropped
    between its reads (at 10,740 files the blocks of each read sat under the next: the load's peak
    700 -> 490 MB, BENCHMARKS.md cc). The same graph; and a write under way is not waited for:
    that load keeps the cache. (Drops keep KEEP_BESIDE_THE_WRITER_MB, more than this workspace's
    whole cache: 1 here, where no writer runs beside.)"""
    from memory_lsp.workspace import Workspace, host

    monkeypatch.setattr(host, "KEEP_BESIDE_THE_WRITER_MB", 1)

    index_files(tmp_path, CHAIN).close()
    plain = Workspace.open(tmp_path)  # no limit: the CLI's one-shot process, cache kept
    try:
        plain.store.drop_cache()
        plain.load_graph(prepare=True)
        assert _cached(plain.store) > 1 << 20
        expected = {t: plain.impact(t, depth=3) for t in ("m0.py::f0_1", "m7.py::f7_30", "m39.py")}
    finally:
        plain.close()
    ws = Workspace.open(tmp_path, memory_limit_mb=256)
    try:
        ws.load_graph(prepare=True)
        assert _cached(ws.store) <= 1 << 20
        assert {t: ws.impact(t, depth=3) for t in expected} == expected
        assert expected["m0.py::f0_1"]["dependents"]
        (tmp_path / "m5.py").write_text(CHAIN["m5.py"] + "\n\ndef more():\n    return f5_1(2)\n")
        ws.index()  # a full run: the next graph is read whole
        holding, done = threading.Event(), threading.Event()

        def writer():  # an index run of another thread holds the write lock through the load
            with ws.store.write_lock:
                holding.set()
                done.wait(60)

        held = threading.Thread(target=writer)
        held.start()
        holding.wait(10)
        try:
            loader = threading.Thread(target=ws.load_graph)
            loader.start()
            loader.join(60)
            assert not loader.is_alive()  # it did not wait for the writer
            assert _cached(ws.store) > 1 << 20  # and kept the cache rather than drop it beside a write
        finally:
            done.set()
            held.join()
    finally:
        ws.close()


RACE = """
import sys, threading
from memory_lsp.workspace import Workspace
ws = Workspace.open(sys.argv[1], memory_limit_mb=256)
store, errors, done = ws.store, [], threading.Event()
keep = int(sys.argv[2])
def drops():  # a whole load's reads, each followed by a drop (graph thread)
    while not done.is_set():
        try:
            store.drop_cache(wait=False, keep_mb=keep)
            store.cursor().execute("SELECT count(*) FROM edges").fetchall()
        except Exception as exc:
            errors.append(repr(exc))
thread = threading.Thread(target=drops)
thread.start()
try:
    for i in range(300):  # the writer: an edit (its first reads outside the lock, as indexer.run's), the checkpoint
        store.conn.execute("SELECT path, hash, size, mtime FROM files WHERE path = ANY(?::VARCHAR[])", [["m1.py"]]).fetchall()
        with store.transaction() as cur:
            cur.execute("INSERT INTO meta VALUES (?, ?)", [f"race{i}", "x" * 2000])
        if not store.checkpoint():
            errors.append("checkpoint refused")
finally:
    done.set()
    thread.join()
ws.close()
print("errors", errors[:3])
sys.exit(1 if errors else 0)
"""


def test_a_drop_on_another_thread_meets_the_writers_checkpoint_safely(tmp_path, index_files):
    """A long-lived process's graph load drops DuckDB's cache on the graph thread while the writer
    checkpoints between edits. Both on the writer's connection at once corrupted the heap (an owner
    died of `malloc(): unaligned tcache chunk` in a CI run); the drop's low limit must not fail the
    checkpoint (it takes the write lock), nor the writer's reads outside the lock (a 1 MiB limit
    failed them in the next run: the load's drops keep 64 MiB). In a process of its own: a corrupted
    heap kills it."""
    import subprocess
    import sys

    index_files(tmp_path, CHAIN).close()
    from memory_lsp.workspace import host

    run = subprocess.run([sys.executable, "-c", RACE, str(tmp_path), str(host.KEEP_BESIDE_THE_WRITER_MB)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-2000:]
