"""A long-lived process's first index runs in a child process (workspace/apart.py, issue 13 item 4):
the index it leaves equals one made in the process itself, the memories taught before it are
resolved against it, a stopped child leaves a usable file and no process behind, and a small
workspace is still indexed in the process."""

from __future__ import annotations

import os
import threading
import time

import pytest

from memory_lsp.commands import run
from memory_lsp.workspace import Workspace

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
    "edges": "SELECT * EXCLUDE (score) FROM edges ORDER BY ALL",
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


@pytest.fixture
def outdated(two):
    """(a fresh index here, the other folder indexed by "older rules" and opened as a server
    would open it): both closed at the end."""
    here_root, apart_root = two
    here = Workspace.open(here_root)
    here.index(workers=0)
    old = Workspace.open(apart_root)
    old.index(workers=0)
    old.store.set_meta("facts_version", "made by an older memory-lsp")
    old.close()
    apart = Workspace.open(apart_root, memory_limit_mb=256, index_apart_from=0)
    yield here, apart
    here.close()
    apart.close()


def test_an_index_older_rules_made_is_made_again_in_a_child(outdated):
    here, apart = outdated
    report = apart.index()
    assert apart.apart_usage is not None and report.parsed == 5
    assert facts(apart) == facts(here)
    usage = apart.apart_usage  # the rules are now the running code's: the next run is made here
    (apart.root / "lib/extra.py").write_text("def extra():\n    return 3\n")
    assert apart.index().parsed == 1 and apart.apart_usage is usage


def test_a_reader_of_the_last_snapshot_waits_for_the_childs_file(outdated):
    """A lens on the snapshot from before the run (the older rules' index) asks for the graph
    while the child indexes: it waits, and counts on the file the child leaves."""
    here, apart = outdated
    last = apart.snapshot()
    counted: list = []
    reader = threading.Thread(target=lambda: counted.append(
        last.impact_counts("lib/core.py::helper", "lib/core.py", 3, 0.0, wait=True)))

    def progress(_done, _total):
        if not reader.is_alive() and not counted:
            reader.start()  # the child runs: the store is closed

    apart.index(progress=progress)
    reader.join(60)
    assert counted == [here.snapshot().impact_counts("lib/core.py::helper", "lib/core.py", 3, 0.0, wait=True)]
    assert counted[0][0] > 0
