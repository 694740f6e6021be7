"""Fixtures shared by every test: build a workspace on disk, index it, read its graph.

Each helper is a session-scoped fixture that returns a function (pytest's "factories as
fixtures"), so tests and fixtures of any scope take it as a parameter instead of importing it.
"""

from __future__ import annotations

from pathlib import Path

import json
import os
import signal
import tempfile

import pytest

from memory_lsp.workspace import Workspace

# the graph-contract workspaces hold test files of their own (tests/test_models.py, ...): they are
# data for the indexer, not tests to collect. Kept here: a conftest.py beside them would shadow
# tests/server/conftest.py, which the server tests import as `conftest`.
collect_ignore = ["contracts/languages"]


def _write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def _index_files(root: Path, files: dict[str, str | bytes]) -> Workspace:
    _write_files(root, files)
    ws = Workspace.open(root)
    ws.index(workers=0)
    return ws


def _file_edges(ws: Workspace, kind: str) -> set[tuple[str, str]]:
    rows = ws.store.cursor().execute(
        "SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = ?", [kind]).fetchall()
    return set(rows)


def _symbol_edges(ws: Workspace, kind: str) -> set[tuple[str, str]]:
    rows = ws.store.cursor().execute(
        "SELECT DISTINCT src, dst FROM edges WHERE kind = ?", [kind]).fetchall()
    return set(rows)


@pytest.fixture(scope="session")
def write_files():
    """write_files(root, {relative path: text or bytes}) -> root, with the files written."""
    return _write_files


@pytest.fixture(scope="session")
def index_files():
    """index_files(root, files) -> the open Workspace: the files written and indexed in process."""
    return _index_files


@pytest.fixture(scope="module")
def ws(request, tmp_path_factory):
    """The test module's FILES ({path: text}) written and indexed once for the module; a module that
    needs another workspace defines its own `ws`."""
    ws = _index_files(tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2]), request.module.FILES)
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def file_edges():
    """file_edges(ws, kind) -> {(source file, target file)} of every edge of `kind`."""
    return _file_edges


@pytest.fixture(scope="session")
def symbol_edges():
    """symbol_edges(ws, kind) -> {(source node id, target node id)}; a symbol id is `path::Qualified.Name`."""
    return _symbol_edges


@pytest.fixture(scope="session", autouse=True)
def private_owner():
    """The tests' own memory-lsp owner (its socket folder is theirs; it leaves soon when idle), so
    that a test run never talks to the owner of the editor you are working in."""
    folder = tempfile.mkdtemp(prefix="mlsp-rt-")  # short: Unix socket paths stop near 100 bytes
    os.environ["MEMORY_LSP_RUNTIME_DIR"] = folder
    os.environ.setdefault("MEMORY_LSP_OWNER_IDLE", "5")
    yield folder
    for info in Path(folder).glob("owner-*.json"):
        try:
            os.kill(int(json.loads(info.read_text())["pid"]), signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            pass
