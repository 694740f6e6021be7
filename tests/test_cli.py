"""The CLI as a user runs it: a subprocess, text and --json, one-line errors with exit code 2."""

import json
import subprocess
import sys

import pytest


FILES = {
    "lib/__init__.py": "",
    "lib/core.py": "def helper():\n    return 1\n",
    "lib/api.py": "from lib.core import helper\n\ndef serve():\n    return helper()\n",
    "tests/test_api.py": "from lib.api import serve\n\ndef test_serve():\n    assert serve() == 1\n",
}


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def root(tmp_path_factory, write_files):
    root = write_files(tmp_path_factory.mktemp("cli"), FILES)
    done = cli("index", str(root))
    assert done.returncode == 0, done.stderr
    assert "indexed" in done.stdout and "python 4 files" in done.stdout
    return root


def test_index_json_reports_counts(root):
    out = cli("index", "--workspace", str(root), "--json")
    data = json.loads(out.stdout)
    assert (data["files"], data["parsed"], data["unchanged"]) == (4, 0, 4)
    assert data["edges"]["IMPORTS"] == 2


def test_impact_json_shape(root):
    out = cli("impact", "lib/core.py::helper", "--depth", "3", "--workspace", str(root), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["target"] == "lib/core.py::helper"
    first = data["dependents"][0]
    assert set(first) >= {"path", "symbol", "depth", "via", "edge_kinds", "score"}
    assert (first["path"], first["symbol"], first["depth"], first["edge_kinds"]) == ("lib/api.py", "serve", 1, ["CALLS"])
    assert data["tests"] == ["tests/test_api.py"]
    assert isinstance(data["unresolved"], int)


def test_impact_text_from_inside_the_workspace(root):
    out = cli("impact", "lib/core.py", cwd=root)
    assert out.returncode == 0, out.stderr
    assert "lib/api.py" in out.stdout and "tests to run:" in out.stdout


def test_doctor_and_stats(root):
    doctor = json.loads(cli("doctor", "-w", str(root), "--json").stdout)
    assert doctor["extensions"] == {"fts": "loaded", "vss": "loaded"}
    assert doctor["schema_version"] == doctor["expected_schema_version"]
    stats = cli("stats", "-w", str(root), "--example")
    assert "most central files" in stats.stdout and "lib/core.py" in stats.stdout


@pytest.mark.parametrize("args, message", [
    (["impact", "nope.py"], "not an indexed file: nope.py"),
    (["impact", "lib/core.py::Missing"], "no symbol Missing in lib/core.py"),
    (["impact", "../elsewhere.py"], "outside the workspace"),
    (["impact", "lib/core.py", "--depth", "0"], "depth must be at least 1"),
])
def test_bad_arguments_are_one_line_and_exit_2(root, args, message):
    out = cli(*args, "--workspace", str(root))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and message in out.stderr
    assert "Traceback" not in out.stderr


def test_not_a_workspace(tmp_path):
    out = cli("index", str(tmp_path / "missing"))
    assert out.returncode == 2 and "not a workspace folder" in out.stderr


def test_second_process_is_told_the_index_is_busy(root):
    holder = subprocess.Popen(
        # (a process that is not memory-lsp's: it asks the owner, which keeps the index after the CLI's
        # commands, to let go first, as memory-lsp's own processes do)
        [sys.executable, "-c", "import sys, duckdb, time; from memory_lsp import runtime; runtime.let_go(sys.argv[2]); "
         "c = duckdb.connect(sys.argv[1]); print('ready', flush=True); time.sleep(60)",
         str(root / ".memory" / "index.duckdb"), str(root)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        out = cli("doctor", "-w", str(root))
        assert out.returncode == 2
        assert "in use by another memory-lsp process" in out.stderr and "Traceback" not in out.stderr
    finally:
        holder.kill()
        holder.wait()
