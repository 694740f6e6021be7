"""Start-up on a folder big enough for worker processes: the first index finishes (forked parse
workers must not inherit pygls's lock on stdin), and memories answer hovers from the log before
the code is indexed; on a folder of 300+ files the first index is made by a child process
(workspace/apart.py) and everything answers from the file it leaves."""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient

from conftest import SERVER, cli, hover_at, indexed, init_params, listen_for_refreshes, open_doc, wait_for

STDLIB_PACKAGES = ("email", "json", "http", "logging", "asyncio")  # about 75 files: over the parallel threshold
LARGE_PACKAGES = STDLIB_PACKAGES + ("idlelib", "lib2to3")  # 300+ files: the first index is made by a child


def copy_stdlib(root, packages):
    for name in packages:
        shutil.copytree(f"{sysconfig.get_paths()['stdlib']}/{name}", root / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    done = cli(root, "teach", "Header folding happens at 78 characters", "--type", "gotcha",
               "--cite", "email/header.py::Header")
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture(params=["parsed here", "made by a child"])
def big_project(request, tmp_path):
    return copy_stdlib(tmp_path / "big", STDLIB_PACKAGES if request.param == "parsed here" else LARGE_PACKAGES)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, big_project):
    listen_for_refreshes(lsp_client)
    await lsp_client.initialize_session(init_params(big_project, options={"indexing": {"workers": 2}}))
    yield
    await lsp_client.shutdown_session()


def owner_log_says(text: str) -> bool:
    return any(text in log.read_text(errors="replace")
               for log in Path(os.environ["MEMORY_LSP_RUNTIME_DIR"]).glob("owner-*.log"))


async def test_first_index_with_worker_processes_finishes_and_hovers_come_early(client, big_project, request):
    doc = open_doc(client, big_project, "email/header.py")
    first = await wait_for(lambda: hover_at(client, doc, 0, 0), 60, what="a hover from the memory log")
    assert "Header folding happens at 78 characters" in first.contents.value
    await indexed(client, timeout=120)
    symbols = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="HTTPConnection"))
    assert any(s.name == "HTTPConnection" for s in symbols)
    lenses = await client.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=doc)))
    header = next(lens for lens in lenses if lens.data["symbol"] == "Header")
    resolved = await client.code_lens_resolve_async(header)
    assert resolved.command.title.startswith("1 memory")  # then its confident dependents, if any
    by_child = request.node.callspec.params["big_project"] == "made by a child"
    assert owner_log_says(f"indexed {big_project.resolve()} in a child process") == by_child
