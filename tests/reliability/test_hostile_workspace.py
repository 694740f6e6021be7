"""Issue 14 item 7, hostile workspace (CI size): symlink loops, a 20 MB line, a FIFO, a 50,000-deep
nested expression and an ignored node_modules/: the index finishes, names what it left out, and
never walks node_modules/ (os.scandir calls counted in a plain folder; in a git work tree the
directories git opens, seen with strace). The time against the same workspace without them is
bench/bench_reliability_hostile.py (at full size: 50,000 files in node_modules/)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory_lsp.index import discover as discover_module
from memory_lsp.settings import Settings
from memory_lsp.workspace import Workspace

DEPTH = 50_000


def build(root: Path, node_modules_files: int) -> Path:
    """The hostile parts around a small ordinary package."""
    (root / "src").mkdir(parents=True)
    for i in range(5):
        (root / "src" / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n", encoding="utf-8")
    os.symlink(root / "src", root / "src" / "loop")  # a directory cycle
    os.symlink(root, root / "src" / "up")  # a link to the workspace itself
    os.symlink(root / "src" / "m0.py", root / "alias.py")
    os.mkfifo(root / "pipe.py")  # opening it would block forever
    (root / "long.py").write_text("x = '" + "a" * 20_000_000 + "'\n", encoding="utf-8")
    (root / "deep.js").write_text("const z = " + "[\n" * DEPTH + "1" + "]\n" * DEPTH + ";\n", encoding="utf-8")
    (root / "deep.py").write_text("x = (\n" + "(\n" * DEPTH + "1" + ")\n" * DEPTH + ")\n", encoding="utf-8")
    for i in range(node_modules_files):
        folder = root / "node_modules" / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"index{i}.js").write_text("module.exports = 1;\n", encoding="utf-8")
    return root


def test_plain_folder_indexes_and_never_scans_node_modules(tmp_path, monkeypatch):
    root = build(tmp_path / "ws", 2_000)
    scanned = []
    real_scandir = os.scandir

    def counting_scandir(path="."):
        scanned.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)  # os.walk looks it up on each call
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        paths = {r[0] for r in ws.store.cursor().execute("SELECT path FROM files").fetchall()}
        doctor = ws.doctor()
    finally:
        ws.close()
    assert scanned, "the walk did not go through os.scandir: this test counts nothing"
    assert [p for p in scanned if "node_modules" in p] == []
    assert not any("/loop/" in p or "/up/" in p for p in scanned)
    assert paths == {f"src/m{i}.py" for i in range(5)} | {"deep.js", "deep.py"}
    named = {f["path"]: reason for reason, group in doctor["skipped_files"].items() for f in group["files"]}
    assert named == {"src/loop": "symlink", "src/up": "symlink", "alias.py": "symlink",
                     "pipe.py": "special_file", "long.py": "too_large"}


@pytest.mark.skipif(shutil.which("strace") is None or shutil.which("git") is None, reason="needs strace and git")
def test_git_work_tree_never_opens_node_modules(tmp_path):
    root = build(tmp_path / "ws", 300)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    trace = tmp_path / "trace.txt"
    program = ("import sys; from pathlib import Path; from memory_lsp.index.discover import discover; "
               "from memory_lsp.settings import Settings; "
               "c, s = discover(Path(sys.argv[1]), Settings()); print(len(c), len(s))")
    done = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,open", "-o", str(trace),
                           sys.executable, "-c", program, str(root)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "ptrace" in done.stderr.lower():
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    candidates, skipped = map(int, done.stdout.split())
    assert candidates == 7 and skipped >= 5  # 5 + deep.js + deep.py; 3 links, the FIFO, the long line
    opened = trace.read_text(encoding="utf-8", errors="replace")
    assert "ws/src" in opened  # git did walk the work tree, and strace saw it
    assert [line for line in opened.splitlines() if "node_modules" in line] == []


def test_discover_prunes_default_excludes_but_names_user_excludes(tmp_path):
    root = build(tmp_path / "ws", 10)
    (root / "private").mkdir()
    (root / "private" / "p.py").write_text("p = 1\n", encoding="utf-8")
    candidates, skipped = discover_module.discover(root, Settings(excludes=["private/"]))
    assert not any(c.path.startswith("node_modules/") for c in candidates)
    assert ("private/p.py", "excluded", 6) in skipped
