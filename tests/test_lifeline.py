"""index/lifeline.py: a process ends when its parent does. A killed server must not leave its
index child holding the DuckDB file, nor parse workers waiting forever on their queue."""

from __future__ import annotations

import subprocess
import sys

from test_index_apart import apart_processes
from waiting import wait_until

from memory_lsp.errors import IndexBusy
from memory_lsp.store import Store

# P starts C, which takes the lifeline, says so and sleeps; P prints C's pid and sleeps
PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print(child.pid, flush=True)
time.sleep(600)
"""
CHILD = ("import os, time; from memory_lsp.index.lifeline import die_with_parent; "
         "die_with_parent(os.getppid()); print('ready', flush=True); time.sleep(600)")
# P runs the index child on a workspace and stops reading it once the workers are under way
SERVER = """
import sys, time
from pathlib import Path
from memory_lsp.settings import Settings
from memory_lsp.workspace import apart

def progress(done, total):
    if done:
        print("under way", flush=True)
        time.sleep(600)

apart.run(Path(sys.argv[1]), sys.argv[2], Settings(), progress, workers=2)
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_child_with_the_lifeline_ends_with_its_parent():
    parent = subprocess.Popen([sys.executable, "-c", PARENT, CHILD], stdout=subprocess.PIPE, text=True)
    try:
        lines = {parent.stdout.readline().strip(), parent.stdout.readline().strip()}
        assert "ready" in lines
        (child,) = [int(line) for line in lines if line.isdigit()]
        assert alive(child)
    finally:
        parent.kill()
        parent.wait()
    assert wait_until(lambda: not alive(child), 10), "the child outlived its parent"


def test_a_killed_server_leaves_no_index_process_and_a_free_file(tmp_path, write_files):
    """The whole arrangement, killed while the workers parse. (There the child would also end
    at its next progress line, on the closed pipe; in resolution it writes none for minutes at
    50,000 files: the test above pins what ends it then.)"""
    files = {f"pkg/m{i}.py": "".join(f"def f{i}_{j}():\n    return f{i}_{(j + 1) % 30}()\n\n" for j in range(30))
             for i in range(300)}
    root = write_files(tmp_path / "ws", files)
    db = root / ".memory" / "index.duckdb"
    db.parent.mkdir()
    before = apart_processes()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(root), str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "under way"
        assert apart_processes() - before, "the index child and its workers run"
    finally:
        server.kill()
        server.wait()
    assert wait_until(lambda: not (apart_processes() - before)), "the child or its workers outlived the server"
    # a process exiting has no command line any more but may still hold its files for a moment
    assert wait_until(lambda: opens(db)), "the file is still held"


def opens(db) -> bool:
    try:
        Store.open(db).close()
    except IndexBusy:
        return False
    return True
