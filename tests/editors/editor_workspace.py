"""What the real-editor tests share: the editor binary (skip when it is missing, fail when
MEMORY_LSP_REQUIRE_EDITORS=1, as in CI), the server under test (this checkout's `memory-lsp`), and
a small workspace with one memory, taught through the CLI the way a user would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sample_app import APP_CORE

REPO = Path(__file__).resolve().parents[2]
SERVER = str(Path(sys.executable).with_name("memory-lsp"))  # the venv's console script

FILES = {
    "app/__init__.py": "",
    "app/core.py": APP_CORE,
    "app/api.py": '''from app.core import Store, parse


def handle(request):
    store = Store()
    store.add(request)
    return parse(request)
''',
    # a method and a function used, not called: impact lists where (store/attribute_reads.py, value_uses.py)
    "app/hooks.py": '''class Hooks:
    def on_add(self, row):
        return row

    def wire(self, store):
        store.listeners = [self.on_add, log_row]


def log_row(row):
    return row


DEFAULT_HOOKS = [log_row]
''',
}
MEMORY = "parse() splits on every comma, even inside quotes: use csv for quoted input"


def editor(name: str) -> str:
    """The editor's path; a missing editor skips the test, or fails it where editors are required."""
    found = shutil.which(name)
    if found:
        return found
    if os.environ.get("MEMORY_LSP_REQUIRE_EDITORS") == "1":
        pytest.fail(f"{name} is not installed and MEMORY_LSP_REQUIRE_EDITORS=1 (CI installs it: .ci/run)")
    pytest.skip(f"{name} is not installed")


def make_workspace(root: Path, write_files) -> Path:
    write_files(root, FILES)
    done = subprocess.run([SERVER, "teach", MEMORY, "--type", "gotcha", "--cite", "app/core.py::parse",
                           "--workspace", str(root)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return root


def run_editor(argv: list[str], out: Path, env: dict[str, str], timeout: float = 300) -> dict:
    """Run the editor until it exits; the JSON its script wrote to `out` (the session's output on failure)."""
    done = subprocess.run(argv, env={**os.environ, **env, "OUT": str(out)}, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert out.exists(), f"the editor wrote nothing (exit {done.returncode})\n{done.stdout}\n{done.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in result, f"{result['error']}\n{done.stderr}"
    return result


def events(root: Path) -> list[dict]:
    log = root / ".memory" / "events.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
