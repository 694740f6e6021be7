"""Issue 14 item 6: `memory-lsp doctor` names every skipped file with its reason, 50 a reason and
a count of the rest, in text and in --json (an undecodable file is indexed with replacement
characters, so it is named under partially indexed instead). Each case is made for real in a tmp
workspace (a FIFO, a socket, a device node, symlinks, a folder without permissions) and the CLI
runs as a subprocess, in a plain folder and in a git work tree (git lists neither FIFOs nor
unreadable folders)."""

import json
import os
import socket
import stat
import subprocess
import sys

import pytest

from memory_lsp.settings import Settings
from memory_lsp.workspace import Workspace

MEMORY_LSP = [sys.executable, "-m", "memory_lsp"]

FILES = {
    "good.py": "def ok():\n    return 1\n",
    "pkg/real.py": "def real():\n    return 2\n",
    "huge.py": "x = 1\n" * 200_000,  # 1.2 MB, over the 1 MB limit
    "minified.js": "var a=1;" * 5000,  # one 40 KB line
    "binary.py": b"\x00\x01\x02def x(): pass\n",
    "latin1.py": "def caf\xe9():\n    return 1\n".encode("latin-1"),  # undecodable: indexed with U+FFFD
}


def cli(*args):
    done = subprocess.run(MEMORY_LSP + list(args), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def named(doctor: dict) -> dict[str, tuple[str, str]]:
    """{path: (reason, detail)} of every file doctor names."""
    return {f["path"]: (reason, f["detail"])
            for reason, group in doctor["skipped_files"].items() for f in group["files"]}


@pytest.fixture(params=["plain", "git"])
def hostile(request, tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    os.symlink(root / "good.py", root / "alias.py")
    os.symlink(root / "pkg", root / "linked_pkg")  # a folder link: never walked
    os.mkfifo(root / "pipe.py")  # opening it for reading would block the run
    os.mkfifo(root / "pkg" / "deep_pipe.ts")
    sock = socket.socket(socket.AF_UNIX)
    cwd = os.getcwd()
    os.chdir(root)  # a relative bind: the tmp path may exceed the 108-byte socket path limit
    try:
        sock.bind("sock.py")
    finally:
        os.chdir(cwd)
    if request.param == "git":
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    yield root
    sock.close()


def test_doctor_json_names_each_skipped_file_with_its_reason(hostile):
    cli("index", str(hostile))
    doctor = json.loads(cli("doctor", "-w", str(hostile), "--json"))
    assert named(doctor) == {
        "huge.py": ("too_large", ""),
        "minified.js": ("minified", ""),
        "binary.py": ("binary", ""),
        "alias.py": ("symlink", ""),
        "linked_pkg": ("symlink", "folder"),
        "pipe.py": ("special_file", "fifo"),
        "pkg/deep_pipe.ts": ("special_file", "fifo"),
        "sock.py": ("special_file", "socket"),
    }
    assert doctor["skipped"] == {"special_file": 3, "symlink": 2, "too_large": 1, "minified": 1, "binary": 1}
    assert all(group["more"] == 0 for group in doctor["skipped_files"].values())
    sizes = {f["path"]: f["size"] for f in doctor["skipped_files"]["too_large"]["files"]}
    assert sizes == {"huge.py": 1_200_000}
    assert doctor["counts"]["files"] == 3  # good.py, pkg/real.py (each once) and latin1.py
    assert doctor["partially_indexed_files"]["invalid_utf8"] == {"files": ["latin1.py"], "more": 0}


def test_doctor_text_names_them_too(hostile):
    cli("index", str(hostile))
    text = cli("doctor", "-w", str(hostile))
    for line in ("  pipe.py  (special_file, fifo)", "  linked_pkg  (symlink, folder)", "  alias.py  (symlink)",
                 "  huge.py  (too_large, 1,200,000 bytes)", "  sock.py  (special_file, socket)",
                 "  latin1.py  (invalid_utf8)"):
        assert line in text.splitlines()


def test_fifty_named_a_reason_and_the_rest_counted(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {"target.py": "t = 1\n"})
    for i in range(57):
        os.symlink(root / "target.py", root / f"link{i:02}.py")
    cli("index", str(root))
    doctor = json.loads(cli("doctor", "-w", str(root), "--json"))
    group = doctor["skipped_files"]["symlink"]
    assert [f["path"] for f in group["files"]] == [f"link{i:02}.py" for i in range(50)]
    assert group["more"] == 7 and doctor["skipped"] == {"symlink": 57}
    assert "  ... and 7 more symlink" in cli("doctor", "-w", str(root)).splitlines()


def test_device_node_is_named(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {"good.py": "g = 1\n"})
    try:
        os.mknod(root / "null.py", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    cli("index", str(root))
    assert named(json.loads(cli("doctor", "-w", str(root), "--json"))) == {"null.py": ("special_file", "device")}


def test_files_left_out_by_the_users_excludes_are_named(tmp_path, write_files):
    # the CLI takes no excludes (the editor's settings do): through the workspace the server opens
    root = write_files(tmp_path / "ws", {"src/a.py": "a = 1\n", "private/b.py": "b = 2\n",
                                         "node_modules/c.js": "c = 3\n"})
    ws = Workspace.open(root, settings=Settings(excludes=["private/"]))
    ws.index(workers=0)
    doctor = ws.doctor()
    ws.close()
    assert named(doctor) == {"private/b.py": ("excluded", "")}  # default excludes are not noise


@pytest.mark.parametrize("kind", ["plain", "git"])
def test_unreadable_folder_and_file_are_named(tmp_path, write_files, kind):
    root = write_files(tmp_path / "ws", {"good.py": "g = 1\n", "locked/inside.py": "i = 1\n",
                                         "closed.py": "c = 1\n"})
    os.chmod(root / "locked", 0)
    os.chmod(root / "closed.py", 0)
    try:
        if os.access(root / "locked", os.R_OK) or os.access(root / "closed.py", os.R_OK):
            pytest.skip("permissions do not stop reads here (running as root): no unreadable file can be made")
        if kind == "git":
            subprocess.run(["git", "init", "-q", str(root)], check=True)
        cli("index", str(root))
        doctor = json.loads(cli("doctor", "-w", str(root), "--json"))
    finally:
        os.chmod(root / "locked", 0o755)
        os.chmod(root / "closed.py", 0o644)
    assert named(doctor) == {"locked": ("unreadable_folder", "Permission denied"),
                             "closed.py": ("unreadable", "Permission denied")}
