"""A long-lived process's first index, and its whole index again after an upgrade, run in a child
process (workspace/apart.py, issue 13 item 4): the index it leaves equals one made in the process
itself, the memories taught before it are resolved against it, a stopped child leaves a usable file
and no process behind, and a small workspace is still indexed in the process."""

from __future__ import annotations

import contextlib
import os
import threading
import time

import pytest

from memory_lsp.commands import run
from memory_lsp.errors import IndexClosed
from memory_lsp.workspace import Workspace
from memory_lsp.workspace.lookup import IndexLookup

FILES = {
    "lib/core.py": "class Base:\n    def go(self):\n        return helper()\n\n\ndef helper():\n    return 1\n",
    "lib/api.py": "from lib.core import Base, helper\n\n\nclass Api(Base):\n    def serve(self):\n"
                  "        return self.go() + helper()\n",
    "tests/test_api.py": "from lib.api import Api\n\n\ndef test_serve():\n    assert Api().serve() == 2\n",
    "web/app.ts": "import { run } from './run';\nexport function main() { return run(); }\n",
    "web/run.ts": "export function run() { return 1; }\n",
}
TABLES = {  # every fact an index run writes, in a stable order (no times; scores decay with a file's age)
    "files": "SELECT path, lang, hash, is_test, reach FROM files ORDER BY ALL",
    "symbols": "SELECT * FROM symbols ORDER BY ALL",
    "edges": "SELECT * EXCLUDE (score, fingerprint) FROM edges ORDER BY ALL",
    "refs": "SELECT * FROM refs ORDER BY ALL",
    "imports": "SELECT * FROM imports ORDER BY ALL",
    "chunks": "SELECT * FROM chunks ORDER BY ALL",
}


def facts(ws: Workspace) -> dict[str, list[tuple]]:
    cur = ws.store.cursor()
    return {table: cur.execute(query).fetchall() for table, query in TABLES.items()}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def two(tmp_path, write_files):
    return write_files(tmp_path / "here", FILES), write_files(tmp_path / "apart", FILES)


def test_a_first_index_in_a_child_equals_one_made_here(two):
    here_root, apart_root = two
    here = Workspace.open(here_root)
    apart = Workspace.open(apart_root, memory_limit_mb=256, index_apart_from=0)
    try:
        taught = run(apart, "memory.teach", {"text": "serve() wants a warm cache", "type": "gotcha",
                                            "cite": ["lib/api.py::Api.serve"]})
        assert not apart.snapshot().indexed  # memories synced, code not indexed yet
        seen: list[tuple[int, int]] = []
        report = apart.index(progress=lambda done, total: seen.append((done, total)))
        assert apart.apart_usage["pid"] != os.getpid() and not alive(apart.apart_usage["pid"])
        assert apart.apart_usage["peak_rss_mb"] > 0
        assert (report.files, report.parsed) == (5, 5) and seen and seen[-1][0] == seen[-1][1] == 5
        here.index(workers=0)
        assert facts(apart) == facts(here)
        assert facts(here)["edges"]  # the comparison compared something
        snap = apart.snapshot()
        assert snap.indexed and [s.qualname for s in snap.symbols("lib/core.py")] == ["Base", "Base.go", "helper"]
        (memory,) = snap.memories.for_file("lib/api.py")
        assert memory.id == taught["id"] and memory.citations[0].state == "valid"
        assert apart.impact("lib/core.py::helper")["dependents"]  # the graph loads from the reopened file
        # the next run is an ordinary one, in this process
        (apart_root / "lib/core.py").write_text("def helper():\n    return 2\n")
        usage = apart.apart_usage
        assert apart.index().parsed == 1 and apart.apart_usage is usage
        assert [s.qualname for s in apart.snapshot().symbols("lib/core.py")] == ["helper"]
    finally:
        here.close()
        apart.close()


class Stop(Exception):
    pass


def test_a_stopped_child_leaves_a_usable_file_and_no_process(tmp_path, write_files):
    """Stopped while its two parse workers run: the child and the workers end (its process
    group), the file opens again, and the next run makes the whole index."""
    files = {f"pkg/m{i}.py": "".join(f"def f{i}_{j}():\n    return f{i}_{(j + 1) % 30}()\n\n" for j in range(30))
             for i in range(200)}
    ws = Workspace.open(write_files(tmp_path, files), memory_limit_mb=256, index_apart_from=0)
    before = apart_processes()
    calls = []

    def stop(done, _total):
        calls.append(done)
        if done > 0:  # the workers have sent a batch: they are under way
            raise Stop

    try:
        with pytest.raises(Stop):
            ws.index(progress=stop, workers=2)
        assert ws.store.cursor().execute("SELECT count(*) FROM meta").fetchone() is not None  # open again
        # the group was sent SIGTERM and the child reaped; its workers end within moments
        deadline = time.monotonic() + 10
        while apart_processes() - before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert apart_processes() - before == set(), "the child or its workers were left behind"
        report = ws.index()
        assert report.files == 200 and ws.snapshot().indexed
        assert len(ws.snapshot().symbols("pkg/m7.py")) == 30
    finally:
        ws.close()


def apart_processes() -> set[int]:
    """Live processes running the child's code (its parse workers are forks of it)."""
    found = set()
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"memory_lsp.workspace.apart" in fh.read():
                    with open(f"/proc/{pid}/stat") as st:
                        if st.read().rsplit(")", 1)[1].split()[0] != "Z":
                            found.add(int(pid))
        except (OSError, ValueError):
            continue
    return found


def test_a_small_workspace_is_indexed_here(tmp_path, write_files):
    ws = Workspace.open(write_files(tmp_path, FILES), memory_limit_mb=256, index_apart_from=300)
    try:
        assert ws.index(workers=0).parsed == 5 and ws.apart_usage is None
    finally:
        ws.close()


@contextlib.contextmanager
def hovering(ws: Workspace, closed_ok: bool = False):
    """A thread asking what a hover asks, all the while: yields the errors it met, IndexClosed (a snapshot
    of an index closed for the child, which the server answers with ContentModified) only if not `closed_ok`."""
    errors: list[BaseException] = []
    done = threading.Event()

    def hover_all_the_time():
        while not done.is_set():
            snap = ws.snapshot()
            try:
                snap.symbols("lib/core.py")
                snap.is_test("tests/test_api.py")
                snap.find_symbols("help", 5)
                snap.impact_counts("lib/core.py::helper", "lib/core.py", 3, wait=True)
            except BaseException as exc:  # noqa: BLE001 - any error is the finding
                if not (closed_ok and isinstance(exc, IndexClosed)):
                    errors.append(exc)

    reader = threading.Thread(target=hover_all_the_time)
    reader.start()
    try:
        yield errors
    finally:
        done.set()
        reader.join(30)


def test_an_index_older_rules_made_is_made_again_by_the_child(two):
    """After an upgrade every file is indexed again (index/version.py): in the child too, so that the
    server does not keep that run's peak (931.7 MB at 11,282 files, BENCHMARKS.md dg). Readers with a
    snapshot of the old index meet it closed (IndexClosed: the server answers ContentModified), never a
    crash (the store's gate, store/cursor.py); new snapshots read nothing from it until the child is done."""
    here_root, apart_root = two
    old = Workspace.open(apart_root)
    old.index(workers=0)
    old.store.set_meta("facts_version", "made by an older memory-lsp")
    old.close()
    ws = Workspace.open(apart_root, memory_limit_mb=256, index_apart_from=0)
    here = Workspace.open(here_root)
    try:
        assert ws.snapshot().indexed
        with hovering(ws, closed_ok=True) as errors:
            report = ws.index()
        assert ws.apart_usage is not None and ws.apart_usage["pid"] != os.getpid() and report.parsed == 5
        here.index(workers=0)
        assert facts(ws) == facts(here) and ws.store.meta("facts_version") == here.store.meta("facts_version")
        assert ws.snapshot().indexed and ws.impact("lib/core.py::helper")["dependents"]
    finally:
        here.close()
        ws.close()
    assert errors == []


def test_readers_never_touch_the_store_the_child_takes(two):
    """Hovers asked all through a first index made by the child: a snapshot with no code indexed
    reads nothing from the store, so no reader's query meets the connection as it closes."""
    _here_root, apart_root = two
    ws = Workspace.open(apart_root, memory_limit_mb=256, index_apart_from=0)
    try:
        with hovering(ws) as errors:
            run(ws, "memory.memories", {})  # a sync of the log before the index publishes a snapshot too
            assert not ws.snapshot().indexed
            ws.index()
            assert ws.apart_usage is not None
    finally:
        ws.close()
    assert errors == []


def test_a_snapshot_with_no_code_indexed_queries_nothing(tmp_path, write_files, monkeypatch):
    """What the readers test above depends on, pinned: no store query from such a snapshot."""
    from memory_lsp.store import code

    def no_query(*_args, **_kwargs):
        raise AssertionError("a snapshot with no code indexed queried the store")

    for name in ("symbols_of", "symbols_named_like", "file_row"):
        monkeypatch.setattr(code, name, no_query)
    ws = Workspace.open(write_files(tmp_path, FILES), memory_limit_mb=256, index_apart_from=0)
    try:
        snap = ws.snapshot()
        assert not snap.indexed
        assert snap.symbols("lib/core.py") == [] and snap.find_symbols("help", 5) == []
        assert not snap.is_test("tests/test_api.py")
        assert snap.impact_counts("lib/core.py::helper", "lib/core.py", 3, wait=True) is None
        assert not isinstance(snap.lookup(), IndexLookup)
    finally:
        ws.close()
