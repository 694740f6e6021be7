"""The command layer: strict argument checks with one clear line each, defaults, and results that
are exactly what the CLI prints with --json."""

import json
import subprocess
import sys

import pytest

from memory_lsp import commands
from memory_lsp.commands import COMMANDS, run
from memory_lsp.errors import IndexBusy, UserError
from memory_lsp.workspace import Workspace
from memory_lsp.workspace.offline import OfflineWorkspace

FILES = {
    "lib/__init__.py": "",
    "lib/core.py": "def helper():\n    return 1\n\n\ndef unused():\n    return 2\n",
    "lib/api.py": "from lib.core import helper\n\ndef serve():\n    return helper()\n",
    "tests/test_api.py": "from lib.api import serve\n\ndef test_serve():\n    assert serve() == 1\n",
}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True, timeout=120)


def cli_json(root, *args):
    done = cli(*args, "-w", str(root), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def as_json(data: dict) -> dict:
    return json.loads(json.dumps(data, default=str))


def run_on_index(root, name, arguments):
    """One command on the open index, closed again before the CLI runs: one process may open it."""
    ws = Workspace.open(root)
    try:
        return run(ws, name, arguments)
    finally:
        ws.close()


@pytest.fixture(scope="module")
def root(tmp_path_factory, write_files):
    root = write_files(tmp_path_factory.mktemp("commands"), FILES)
    assert cli("index", str(root)).returncode == 0
    taught = cli("teach", "-w", str(root), "helper() must stay pure", "--type", "policy",
                 "--cite", "lib/core.py::helper")
    assert taught.returncode == 0, taught.stderr
    return root


def test_the_registry_has_every_command():
    assert list(COMMANDS) == [
        "memory.teach", "memory.capture", "memory.memories", "memory.edit", "memory.forget", "memory.feedback",
        "memory.approve", "memory.pin", "memory.reanchor", "memory.import", "memory.export", "memory.consolidate",
        "memory.search",
        "memory.context", "memory.expand", "memory.impact", "memory.stats", "memory.doctor", "memory.reindex"]
    assert {n for n, c in COMMANDS.items() if c.needs_index} == {
        "memory.search", "memory.context", "memory.expand", "memory.impact", "memory.stats", "memory.doctor",
        "memory.reindex"}
    assert COMMANDS["memory.impact"].usage() == "memory.impact target:str [depth:int=3] [min_confidence:float=0.5]"
    from memory_lsp.graph.impact import DEFAULT_MIN_CONFIDENCE
    assert COMMANDS["memory.impact"].params["min_confidence"].default == DEFAULT_MIN_CONFIDENCE
    forwarded = {n for n, c in COMMANDS.items() if c.forwardable}
    assert forwarded >= {"memory.memories", "memory.export", "memory.search", "memory.impact"}
    assert not forwarded & {"memory.teach", "memory.forget", "memory.edit", "memory.feedback", "memory.reanchor"}


@pytest.mark.parametrize("name, arguments, message", [
    ("memory.serch", {}, "unknown command 'memory.serch'; the commands are: memory.teach, "),
    ("memory.search", {"query": "x", "qeury": "y"},
     "memory.search: unknown argument 'qeury' (it takes: query, kind, k, file, mode, orphaned)"),
    ("memory.search", {}, "memory.search: missing argument 'query' (a string)"),
    ("memory.search", {"query": "x", "k": "ten"}, "memory.search: argument 'k' must be an integer, got a string (\"ten\")"),
    ("memory.search", {"query": 3}, "memory.search: argument 'query' must be a string, got an integer (3)"),
    ("memory.search", {"query": "x", "k": True}, "memory.search: argument 'k' must be an integer, got true"),
    ("memory.search", {"query": "x", "k": 2.5}, "argument 'k' must be an integer, got a number (2.5)"),
    ("memory.search", {"query": None}, "argument 'query' must be a string, got null"),
    ("memory.search", {"query": "x", "file": ["a.py", 1]}, "argument 'file' must be a list of strings, got a list"),
    ("memory.search", {"query": "x", "file": "a.py"}, "argument 'file' must be a list of strings, got a string"),
    ("memory.search", {"query": "x", "kind": "files"},
     "memory.search: argument 'kind' must be one of memory, code, all; got 'files'"),
    ("memory.memories", {"all": "yes"}, "memory.memories: argument 'all' must be true or false, got a string"),
    ("memory.feedback", {"id": "x", "verdict": "great"}, "argument 'verdict' must be one of useful, wrong, outdated"),
    ("memory.doctor", {"verbose": True}, "memory.doctor: unknown argument 'verbose' (it takes: no arguments)"),
    ("memory.search", ["x"], "memory.search: the arguments must be a JSON object, got a list ([\"x\"])"),
])
def test_bad_arguments_are_one_clear_line(root, name, arguments, message):
    with pytest.raises(UserError) as caught:  # checked before anything is opened: the log alone will do
        run(OfflineWorkspace(root), name, arguments)
    text = str(caught.value)
    assert message in text and "\n" not in text


def test_defaults_are_filled_in_and_not_shared():
    search = COMMANDS["memory.search"]
    first = search.arguments({"query": "x"})
    assert first == {"query": "x", "kind": "all", "k": 10, "file": [], "mode": "hybrid", "orphaned": False}
    first["file"].append("a.py")
    assert search.arguments({"query": "x"})["file"] == []
    assert COMMANDS["memory.memories"].arguments({"file": None, "type": None}) == {
        "file": None, "type": None, "state": None, "at": None, "all": False}
    assert COMMANDS["memory.doctor"].arguments(None) == {}


@pytest.mark.parametrize("name, arguments, cli_args", [
    ("memory.search", {"query": "helper"}, ["search", "helper"]),
    ("memory.search", {"query": "pure", "kind": "memory", "k": 3, "mode": "bm25"},
     ["search", "pure", "--kind", "memory", "--k", "3", "--mode", "bm25"]),
    ("memory.impact", {"target": "lib/core.py::helper"}, ["impact", "lib/core.py::helper"]),
    ("memory.impact", {"target": "lib/core.py", "depth": 1}, ["impact", "lib/core.py", "--depth", "1"]),
    ("memory.memories", {}, ["memories"]),
    ("memory.memories", {"file": "lib/core.py", "type": "policy"}, ["memories", "--file", "lib/core.py", "--type", "policy"]),
    ("memory.stats", {"top": 2, "example": True}, ["stats", "--top", "2", "--example"]),
    ("memory.expand", {"file": "lib/core.py"}, ["expand", "lib/core.py"]),
])
def test_results_are_what_the_cli_prints_with_json(root, name, arguments, cli_args):
    result = run_on_index(root, name, arguments)
    assert as_json(result) == cli_json(root, *cli_args)


def test_export_returns_the_text_the_cli_prints(root):
    out = run_on_index(root, "memory.export", {"format": "json"})
    assert (out["format"], out["count"]) == ("json", 1)
    done = cli("export", "-w", str(root), "--format", "json")
    assert done.stdout == out["text"] + ("" if out["text"].endswith("\n") else "\n")


def test_commands_use_the_open_workspace_and_never_close_it(tmp_path, write_files):
    root = write_files(tmp_path, FILES)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        taught = run(ws, "memory.teach", {"text": "serve() is the entry point", "type": "decision",
                                              "cite": ["lib/api.py::serve"]})
        (listed,) = run(ws, "memory.memories", {"file": "lib/api.py"})["memories"]
        assert listed["id"] == taught["id"] and listed["citations"][0]["state"] == "valid"
        (root / "lib/core.py").write_text("def helper():\n    return 1\n\n\ndef extra():\n    return 3\n")
        report = run(ws, "memory.reindex", {"files": ["lib/core.py"]})
        assert (report["files"], report["parsed"]) == (1, 1)
        assert {s["symbol"] for s in run(ws, "memory.expand", {"file": "lib/core.py"})["symbols"]} == {
            "helper", "extra"}
        assert ws.doctor()["healthy"]  # still open
    finally:
        ws.close()


def test_memory_reads_replay_the_log_without_an_index(tmp_path, write_files):
    root = write_files(tmp_path, FILES)
    ws = OfflineWorkspace(root)
    taught = run(ws, "memory.teach", {"text": "keep it simple", "type": "preference", "cite": ["lib/core.py::helper"]})
    (listed,) = run(ws, "memory.memories", {})["memories"]
    assert listed["id"] == taught["id"] and listed["citations"][0]["state"] == "valid"  # read from the file
    assert not (root / ".memory" / "index.duckdb").exists() and ws.note is None
    with pytest.raises(UserError, match="no memory 'nosuch'"):
        run(ws, "memory.approve", {"id": "nosuch"})
    assert commands.COMMANDS["memory.reindex"].timeout is None  # the CLI waits for a server's full reindex


def test_index_commands_are_refused_offline_with_the_reason(tmp_path, write_files):
    root = write_files(tmp_path, FILES)
    with pytest.raises(UserError, match="has no open index"):
        run(OfflineWorkspace(root), "memory.impact", {"target": "lib/core.py"})
    busy = OfflineWorkspace(root, busy=IndexBusy("the index is in use by another process"))
    with pytest.raises(IndexBusy, match="in use by another process"):
        run(busy, "memory.search", {"query": "helper"})
    assert busy.note == "the index is in use by another process: citation states are read from the files"
    with pytest.raises(UserError, match="'k' must be an integer"):  # a bad argument is said first
        run(busy, "memory.search", {"query": "helper", "k": "ten"})
