"""Fixtures for the server tests: a small project with memories, and an editor-like client that
starts `memory-lsp serve` over stdio (pytest-lsp), the way VS Code or Neovim does."""

from __future__ import annotations

import asyncio
import contextlib
import io
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Union

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from sample_app import APP_CORE


SERVER = [sys.executable, "-m", "memory_lsp", "serve"]

PROJECT = {
    "app/__init__.py": "",
    "app/core.py": APP_CORE,
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


def cli_here(root: Path, *args: str) -> tuple[int, str]:
    """The CLI run in this process (exit code, stdout): seconds faster than a subprocess, for
    comparisons on a folder no server holds."""
    from memory_lsp.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*args, "--workspace", str(root)])
    return code, out.getvalue()


@contextlib.contextmanager
def folder_with_graph(path: Path, background: bool = False):
    """A server's Folder on `path` in this process (no file watcher; background embedding only if
    asked), yielded once its first index ran and its impact graph is loaded."""
    from concurrent.futures import ThreadPoolExecutor
    from dataclasses import replace

    from memory_lsp.server.folders import Folder
    from memory_lsp.settings import Config

    config = Config()
    config = replace(config, indexing=replace(config.indexing, watch=False, workers=0),
                     embeddings=replace(config.embeddings, background=background))
    with ThreadPoolExecutor(1) as reader:
        folder = Folder(path, config, reader, on_change=lambda folder, paths: None)
        try:
            folder.start().result(timeout=120)
            deadline = time.monotonic() + 60
            while not folder.ws.graph_is_current() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert folder.ws.graph_is_current()
            yield folder
        finally:
            folder.close()


def make_project(root: Path, write_files) -> Path:
    write_files(root, PROJECT)
    for text, type_, cites, extra in MEMORIES:
        args = ["teach", text, "--type", type_, *extra]
        for c in cites:
            args += ["--cite", c]
        done = cli(root, *args)
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(scope="session")
def project_template(tmp_path_factory, write_files) -> Path:
    """The project with its memories, built once (teaching through the CLI takes seconds)."""
    return make_project(tmp_path_factory.mktemp("template") / "proj", write_files)


def copy_project(template: Path, dest: Path) -> Path:
    """A fresh copy of the project; the index and a server's files are left behind."""
    shutil.copytree(template, dest, ignore=shutil.ignore_patterns("index.duckdb*", "server.json"))
    return dest


@pytest.fixture
def project(tmp_path, project_template) -> Path:
    return copy_project(project_template, tmp_path / "proj")


@pytest.fixture(scope="module")
def module_project(tmp_path_factory, project_template) -> Path:
    return copy_project(project_template, tmp_path_factory.mktemp("module") / "proj")


def capabilities(client: str) -> t.ClientCapabilities:
    """An editor's capabilities. "visual-studio-code": what pytest-lsp ships (VS Code 1.65) plus pull
    diagnostics with refresh, as VS Code has sent since 1.67. "neovim": Neovim 0.9, which has no
    pull diagnostics (the server pushes them) and no code lens refresh."""
    if client == "neovim":
        return client_capabilities("neovim@v0.9.1")
    caps = client_capabilities(client)
    if client == "visual-studio-code":
        caps.text_document.diagnostic = t.DiagnosticClientCapabilities(dynamic_registration=True,
                                                                      related_document_support=False)
        caps.workspace.diagnostics = t.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


def init_params(root: Path | None, client: str = "visual-studio-code", options: dict | None = None,
                folders: list[Path] | None = None) -> t.InitializeParams:
    options = {"embeddings": {"background": False}, "indexing": {"debounceMs": 50}, **(options or {})}
    return t.InitializeParams(
        capabilities=capabilities(client),
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


async def indexed(client: LanguageClient, folders: int = 1, timeout: float = 90.0) -> None:
    """Wait until the server reports the end of its first indexing run (of each folder)."""
    def ended():
        return sum(isinstance(v, t.WorkDoneProgressEnd) for reports in client.progress_reports.values()
                   for v in reports) >= folders
    await wait_for(ended, timeout, what="indexing to finish")


async def command(client: LanguageClient, name: str, **arguments):
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(command=name, arguments=[arguments]))


def doc_id(doc_uri: str) -> t.TextDocumentIdentifier:
    return t.TextDocumentIdentifier(uri=doc_uri)


async def pull(client: LanguageClient, doc_uri: str) -> list[t.Diagnostic]:
    report = await client.text_document_diagnostic_async(t.DocumentDiagnosticParams(text_document=doc_id(doc_uri)))
    return list(report.items)


async def lenses(client: LanguageClient, doc_uri: str, resolve: bool = True) -> list[t.CodeLens]:
    found = await client.text_document_code_lens_async(t.CodeLensParams(text_document=doc_id(doc_uri)))
    if resolve:
        found = [await client.code_lens_resolve_async(lens) for lens in found or []]
    return list(found or [])


async def code_actions(client: LanguageClient, doc_uri: str, start: tuple[int, int], end: tuple[int, int] | None = None,
                       diagnostics: list[t.Diagnostic] = ()) -> list[t.CodeAction]:
    rng = t.Range(t.Position(*start), t.Position(*(end or start)))
    found = await client.text_document_code_action_async(t.CodeActionParams(
        text_document=doc_id(doc_uri), range=rng, context=t.CodeActionContext(diagnostics=list(diagnostics))))
    return list(found or [])


def uri(root: Path, rel: str) -> str:
    return (root / rel).as_uri()


LANGUAGE_IDS = {".py": "python", ".js": "javascript", ".ts": "typescript", ".go": "go", ".txt": "plaintext"}


def open_doc(client: LanguageClient, root: Path, rel: str, text: str | None = None, version: int = 1) -> str:
    doc_uri = uri(root, rel)
    text = (root / rel).read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=doc_uri, language_id=LANGUAGE_IDS.get(Path(rel).suffix, "plaintext"), version=version, text=text)))
    return doc_uri


def replace_all(client: LanguageClient, doc_uri: str, text: str, version: int) -> None:
    """A didChange that replaces the whole buffer (incremental sync, one full-range edit)."""
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=doc_uri, version=version),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(0, 0), t.Position(10_000, 0)), text=text)]))


async def hover_at(client: LanguageClient, doc_uri: str, line: int, character: int = 4) -> t.Hover | None:
    return await client.text_document_hover_async(t.HoverParams(
        text_document=t.TextDocumentIdentifier(uri=doc_uri), position=t.Position(line=line, character=character)))


def listen_for_refreshes(client: LanguageClient) -> None:
    """Count the server's refresh requests, as an editor would answer them."""
    client.lens_refreshes = 0

    @client.feature(t.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params):
        client.lens_refreshes += 1


def _fix_code_action_parsing(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads any code action that has a `command` as a Command (it tests
    `"command" in obj`, and a CodeAction's command is an object), so the client would see
    `Command(command="{'title': ...}")`. An editor tells them apart by the command's type."""
    converter = client.protocol._converter

    def hook(obj, _type):
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, t.Command)
        return converter.structure(obj, t.CodeAction)
    converter.register_structure_hook(Union[t.Command, t.CodeAction], hook)


def prepare(client: LanguageClient) -> LanguageClient:
    listen_for_refreshes(client)
    _fix_code_action_parsing(client)
    return client


@contextlib.asynccontextmanager
async def running(root: Path | None, client: str = "visual-studio-code", options: dict | None = None,
                  folders: list[Path] | None = None, wait: bool = True, process_id: int | None = None,
                  configuration: dict | None = None):
    """A server started for one test, with its own capabilities, options, folders or
    workspace/configuration answers."""
    lsp = prepare(await ClientServerConfig(server_command=SERVER).start())
    if configuration is not None:
        lsp.set_configuration(configuration)
    done = False
    try:
        params = init_params(root, client, options, folders)
        params.process_id = process_id
        await lsp.initialize_session(params)
        if wait and (root or folders):
            await indexed(lsp, folders=len(folders or [root]))
        yield lsp
        await lsp.shutdown_session()
        done = True
    finally:
        if not done and lsp._server is not None and lsp._server.returncode is None:
            lsp._server.kill()  # a failed test: the client's stop() would wait for the server forever
        await lsp.stop()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    """VS Code's capabilities (pull diagnostics), on the project, indexed."""
    prepare(lsp_client)
    await lsp_client.initialize_session(init_params(project))
    await indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def module_client(lsp_client: LanguageClient, module_project: Path):
    """The same, one server for a whole test module (its tests must only read, or say what they change)."""
    prepare(lsp_client)
    await lsp_client.initialize_session(init_params(module_project))
    await indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def memory_ids(client: LanguageClient) -> dict[str, str]:
    """{text: id} of the live memories, as the server knows them."""
    found = await command(client, "memory.memories")
    return {m["text"]: m["id"] for m in found["memories"]}


async def memory(client: LanguageClient, memory_id: str, all: bool = False) -> dict | None:
    found = await command(client, "memory.memories", all=all)
    return next((m for m in found["memories"] if m["id"] == memory_id), None)
