"""The CLI -> language server bridge: the socket protocol in process, then the CLI answered by
another process that owns the index (and falling back when that process is gone)."""

import json
import logging
import os
import socket
import subprocess
import sys
import threading

import pytest

from memory_lsp import bridge
from memory_lsp.cli import forward
from memory_lsp.errors import UserError

FILES = {
    "lib/__init__.py": "",
    "lib/core.py": "def helper():\n    return 1\n",
    "lib/api.py": "from lib.core import helper\n\ndef serve():\n    return helper()\n",
    "tests/test_api.py": "from lib.api import serve\n\ndef test_serve():\n    assert serve() == 1\n",
}

# a stand-in for the language server: owns the index and answers through a Bridge until killed
HOLDER = """
import sys, time
from memory_lsp import bridge, commands
from memory_lsp.workspace import Workspace
ws = Workspace.open(sys.argv[1])
def answer(name, args):  # as the server's writer does: apply new log events, then run the command
    ws.sync_memories()
    return commands.run(ws, name, args)
if sys.argv[2] == "bridge":
    bridge.Bridge.start(ws.root, answer)
print("ready", flush=True)
time.sleep(300)
"""


@pytest.fixture
def served(tmp_path):
    """A bridge in this process with a handler that tests can steer; closed after the test."""
    handlers = {"echo": lambda args: {"echo": args}}
    b = bridge.Bridge.start(tmp_path, lambda name, args: handlers[name](args))
    yield tmp_path, b, handlers
    b.close()


def test_ask_gets_the_result_and_close_cleans_up(served):
    root, b, _ = served
    info = forward.find(root)
    assert info["pid"] == os.getpid() and info["root"] == str(root.resolve())
    assert json.loads((root / ".memory" / "server.json").read_text()) == info
    assert len(info["socket"]) < 100 and "server.json*" in (root / ".memory" / ".gitignore").read_text()
    assert forward.ask(root, "echo", {"a": [1, "b"]}) == {"echo": {"a": [1, "b"]}}
    b.close()
    assert forward.find(root) is None
    assert not (root / ".memory" / "server.json").exists() and not os.path.exists(info["socket"])
    with pytest.raises(forward.Unreachable, match="no memory-lsp language server is running"):
        forward.ask(root, "echo", {})


def test_errors_are_one_line(served, caplog):
    root, _, handlers = served

    def refuse(args):
        raise UserError("no such thing\nreally")

    def crash(args):
        raise RuntimeError("a bug")

    handlers.update(refuse=refuse, crash=crash)
    with pytest.raises(UserError, match="^no such thing really$"):
        forward.ask(root, "refuse", {})
    with caplog.at_level(logging.ERROR, logger="memory_lsp.bridge"):
        with pytest.raises(UserError) as caught:
            forward.ask(root, "crash", {})
    assert str(caught.value) == "the language server failed on crash (RuntimeError); its log has the details"
    assert any(r.exc_info and "a bug" in str(r.exc_info[1]) for r in caplog.records)  # the traceback is logged


@pytest.mark.parametrize("line, error", [
    (b"not json\n", "bad request: not a JSON line"),
    (b'["memory.search"]\n', 'bad request: expected {"command": NAME, "arguments": {...}}'),
])
def test_bad_request_lines(served, line, error):
    root, _, _ = served
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(forward.find(root)["socket"])
        sock.sendall(line)
        assert json.loads(sock.makefile("rb").readline()) == {"error": error}


def test_connections_are_served_concurrently(served):
    root, _, handlers = served
    released = threading.Event()

    def wait(args):  # answers only once a second request has been served
        return {"released": released.wait(60)}

    def release(args):
        released.set()
        return {}

    handlers.update(wait=wait, release=release)
    answers = []
    first = threading.Thread(target=lambda: answers.append(forward.ask(root, "wait", {}, timeout=60)))
    first.start()
    assert forward.ask(root, "release", {}, timeout=60) == {}
    first.join()
    assert answers == [{"released": True}]


def test_a_second_bridge_for_the_same_root_is_refused(served):
    root, _, _ = served
    with pytest.raises(UserError, match="already listens"):
        bridge.Bridge.start(root, lambda name, args: {})


def test_a_stale_socket_is_replaced_and_another_servers_file_is_kept(tmp_path):
    path = bridge.socket_path(tmp_path.resolve())
    path.parent.mkdir(mode=0o700, exist_ok=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays: a server that was killed
    b = bridge.Bridge.start(tmp_path, lambda name, args: {"ok": True})
    assert forward.ask(tmp_path, "anything", None) == {"ok": True}
    info = tmp_path / ".memory" / "server.json"
    info.write_text(json.dumps({"pid": 1, "socket": str(path)}))  # another server took over the workspace
    b.close()
    assert info.exists()


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_find_ignores_missing_unreadable_and_dead(tmp_path):
    info = tmp_path / ".memory" / "server.json"
    assert forward.find(tmp_path) is None
    info.parent.mkdir()
    info.write_text("{not json")
    assert forward.find(tmp_path) is None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        path = str(tmp_path / "s.sock")
        sock.bind(path)
        info.write_text(json.dumps({"pid": dead_pid(), "socket": path}))
        assert forward.find(tmp_path) is None  # the process is gone
        info.write_text(json.dumps({"pid": os.getpid(), "socket": path, "root": "/elsewhere"}))
        assert forward.find(tmp_path) is None  # a copied workspace: not our server
        info.write_text(json.dumps({"pid": os.getpid(), "socket": path}))
        assert forward.find(tmp_path)["socket"] == path
    info.write_text(json.dumps({"pid": os.getpid(), "socket": str(tmp_path / "gone.sock")}))
    assert forward.find(tmp_path) is None  # no socket


# -- the CLI and a server in another process ----------------------------------------------------
def cli(root, *args):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args, "-w", str(root)], capture_output=True,
                          text=True, timeout=120)


def cli_json(root, *args):
    done = cli(root, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


READS = [("search", "helper"), ("search", "pure", "--kind", "memory"), ("impact", "lib/core.py::helper"),
         ("memories",), ("memories", "--file", "lib/core.py"), ("stats", "--example"), ("expand", "lib/api.py")]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, write_files):
    root = write_files(tmp_path_factory.mktemp("bridge"), FILES)
    assert cli(root, "index").returncode == 0
    taught = cli(root, "teach", "helper() must stay pure", "--type", "policy", "--cite", "lib/core.py::helper")
    assert taught.returncode == 0, taught.stderr
    alone = {args: cli_json(root, *args)[0] for args in READS}  # no server: answered here
    return root, alone


class Holder:
    """Another process that owns the index (with a bridge, or without one)."""

    def __init__(self, root, mode):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(root), mode], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


def test_cli_reads_are_answered_by_the_running_server(workspace):
    root, alone = workspace
    holder = Holder(root, "bridge")
    try:
        pid = forward.find(root)["pid"]
        assert pid == holder.proc.pid
        for args in READS:
            data, stderr = cli_json(root, *args)
            assert data == alone[args], args
            assert f"note: answered by the running language server (pid {pid})" in stderr
        bad = cli(root, "impact", "nope.py")
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not an indexed file: nope.py" in bad.stderr
        # writes go to the log from here; the server reads them on its next request
        taught, _ = cli_json(root, "teach", "serve() returns what helper() returns", "--type", "decision")
        listed, _ = cli_json(root, "memories")
        assert taught["id"] in [m["id"] for m in listed["memories"]]
        assert taught["id"] in cli(root, "memories").stdout
        forgot = cli(root, "forget", taught["id"], "--reason", "obvious")
        assert forgot.returncode == 0, forgot.stderr
        assert cli_json(root, "memories")[0] == alone[("memories",)]
        # last: indexing again stores new scores (they count the time since each file changed)
        index, stderr = cli_json(root, "index")
        assert index["unchanged"] == 4 and "answered by the running language server" in stderr
    finally:
        holder.kill()


def test_a_dead_servers_file_is_ignored_and_the_cli_falls_back(workspace):
    root, alone = workspace
    holder = Holder(root, "bridge")
    socket_file = forward.find(root)["socket"]
    holder.kill()  # killed: server.json and the socket file stay behind
    try:
        assert (root / ".memory" / "server.json").exists() and forward.find(root) is None
        impact = cli_json(root, "impact", "lib/core.py::helper")[0]  # answered here: the index is free
        assert [d["path"] for d in impact["dependents"]] == ["lib/api.py", "tests/test_api.py"]
        busy = Holder(root, "plain")  # owns the index, answers nothing
        try:
            data, stderr = cli_json(root, "memories")
            assert data == alone[("memories",)]
            assert "in use by another memory-lsp process" in stderr and "answered by" not in stderr
            out = cli(root, "impact", "lib/core.py")
            assert out.returncode == 2 and "in use by another memory-lsp process" in out.stderr
            assert out.stderr.count("\n") == 1
        finally:
            busy.kill()
    finally:
        (root / ".memory" / "server.json").unlink(missing_ok=True)
        if os.path.exists(socket_file):
            os.unlink(socket_file)
