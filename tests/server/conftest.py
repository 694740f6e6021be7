"""Fixtures for the server tests: a small project with memories, and an editor-like client that
starts `memory-lsp serve` over stdio (pytest-lsp), the way VS Code or Neovim does."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from helpers import write_files

SERVER = [sys.executable, "-m", "memory_lsp", "serve"]

PROJECT = {
    "app/__init__.py": "",
    "app/core.py": '''"""Core parsing."""


def parse(text):
    """Split a line into fields."""
    return text.split(",")


class Store:
    def __init__(self):
        self.rows = []

    def add(self, text):
        self.rows.append(parse(text))
        return len(self.rows)
''',
    "app/api.py": '''import os

from app.core import Store, parse


def handle(request):
    store = Store()
    store.add(request)
    return parse(request)


def shell(cmd):
    return os.system(cmd)
''',
    "tests/test_core.py": '''from app.core import parse


def test_parse():
    assert parse("a,b") == ["a", "b"]
''',
}

# (text, type, citations, extra CLI flags)
MEMORIES = [
    ("parse() splits on every comma, even inside quotes: use csv for quoted input", "gotcha",
     ["app/core.py::parse"], []),
    ("Store keeps rows in memory only; a restart loses them", "decision", ["app/core.py::Store"], []),
    ("Never shell out with os.system: use subprocess.run with a list", "policy", [],
     ["--scope", "**/*.py", "--match", r"os\.system\("]),
]


def cli(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args, "--workspace", str(root)],
                          input=stdin, capture_output=True, text=True, timeout=120)


def make_project(root: Path) -> Path:
    write_files(root, PROJECT)
    for text, type_, cites, extra in MEMORIES:
        args = ["teach", text, "--type", type_, *extra]
        for c in cites:
            args += ["--cite", c]
        done = cli(root, *args)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "proj")


def init_params(root: Path | None, client: str = "visual-studio-code", options: dict | None = None,
                folders: list[Path] | None = None) -> t.InitializeParams:
    options = {"embeddings": {"background": False}, "indexing": {"debounceMs": 50}, **(options or {})}
    return t.InitializeParams(
        capabilities=client_capabilities(client),
        root_uri=root.as_uri() if root else None,
        workspace_folders=[t.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders] if folders else None,
        initialization_options=options)


async def wait_for(predicate, timeout: float = 60.0, every: float = 0.05, what: str = "condition"):
    """Poll `predicate` (sync or async) until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(every)


async def indexed(client: LanguageClient, timeout: float = 90.0) -> None:
    """Wait until the server reports the end of its first indexing run."""
    def ended():
        return any(isinstance(v, t.WorkDoneProgressEnd) for reports in client.progress_reports.values()
                   for v in reports)
    await wait_for(ended, timeout, what="indexing to finish")


async def command(client: LanguageClient, name: str, **arguments):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(command=name, arguments=[arguments]))


def uri(root: Path, rel: str) -> str:
    return (root / rel).as_uri()


def open_doc(client: LanguageClient, root: Path, rel: str, text: str | None = None, version: int = 1) -> str:
    doc_uri = uri(root, rel)
    text = (root / rel).read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=doc_uri, language_id="python", version=version, text=text)))
    return doc_uri


async def hover_at(client: LanguageClient, doc_uri: str, line: int, character: int = 4) -> t.Hover | None:
    return await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=doc_uri), position=t.Position(line=line, character=character)))


def listen_for_refreshes(client: LanguageClient) -> None:
    """Count the server's refresh requests, as an editor would answer them."""
    client.lens_refreshes = 0

    @client.feature(t.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        client.lens_refreshes += 1


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    """VS Code's capabilities (pull diagnostics), on the project, indexed."""
    listen_for_refreshes(lsp_client)
    await lsp_client.initialize_session(init_params(project))
    await indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()
