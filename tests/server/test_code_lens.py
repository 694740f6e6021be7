"""Code lenses: one per function and class, sent unresolved and resolved lazily into
"N memories · M dependents · K tests", carrying the command a click runs. One server for the
module: these tests only read."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types as t

from conftest import command, lenses, open_doc, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")

TITLE = re.compile(r"^\d+ (memory|memories) · \d+ dependents? · \d+ tests?$")


@pytest.fixture(scope="module")
def module_project(module_project, write_files):
    return write_files(module_project, {"notes.txt": "def parse(text): not code\n"})


async def test_unresolved_lenses_on_functions_and_classes(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    found = await lenses(module_client, doc, resolve=False)
    assert [(lens.range.start.line, lens.data["symbol"]) for lens in found] == [
        (3, "parse"), (8, "Store"), (9, "Store.__init__"), (12, "Store.add")]
    for lens in found:
        assert lens.command is None  # counted only when the editor shows it
        assert lens.range.start == lens.range.end
        assert lens.data["uri"] == doc and lens.data["path"] == "app/core.py"


async def test_resolved_titles_count_memories_dependents_and_tests(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    titles = {lens.data["symbol"]: lens.command.title for lens in await lenses(module_client, doc)}
    assert titles == {
        "parse": "1 memory · 3 dependents · 1 test",  # Store.add, api.handle, the test
        "Store": "1 memory · 1 dependent · 1 test",  # api.handle
        "Store.__init__": "0 memories · 0 dependents · 1 test",
        "Store.add": "0 memories · 1 dependent · 1 test",
    }
    api = open_doc(module_client, module_project, "app/api.py")
    for lens in await lenses(module_client, api):
        assert TITLE.match(lens.command.title), lens.command.title
    assert [lens.data["symbol"] for lens in await lenses(module_client, api)] == ["handle", "shell"]


async def test_the_lens_command_runs(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    by_symbol = {lens.data["symbol"]: lens.command for lens in await lenses(module_client, doc)}

    # with memories: the list of the file's memories
    cmd = by_symbol["parse"]
    assert cmd.command == "memory.memories" and list(cmd.arguments) == [{"file": "app/core.py"}]
    result = await module_client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=cmd.command, arguments=cmd.arguments))
    assert {m["type"] for m in result["memories"]} == {"gotcha", "decision", "policy"}

    # without: what depends on the symbol
    cmd = by_symbol["Store.add"]
    assert cmd.command == "memory.impact"
    assert list(cmd.arguments) == [{"target": "app/core.py::Store.add", "depth": 2}]
    result = await module_client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=cmd.command, arguments=cmd.arguments))
    assert result["target"] == "app/core.py::Store.add"
    assert [(d["path"], d["symbol"]) for d in result["dependents"]] == [("app/api.py", "handle")]
    assert result["tests"] == ["tests/test_core.py"]


async def test_no_lenses_where_there_is_no_code(module_client, module_project, tmp_path, write_files):
    assert await lenses(module_client, open_doc(module_client, module_project, "notes.txt")) == []
    assert await lenses(module_client, open_doc(module_client, module_project, "app/__init__.py")) == []
    outside = write_files(tmp_path / "elsewhere", {"app/core.py": (module_project / "app/core.py").read_text()})
    assert await lenses(module_client, open_doc(module_client, outside, "app/core.py")) == []


async def test_resolving_a_lens_the_server_did_not_make(module_client, module_project):
    odd = t.CodeLens(range=t.Range(t.Position(0, 0), t.Position(0, 0)), data={"uri": "file:///nowhere.py"})
    assert (await module_client.code_lens_resolve_async(odd)).command is None
    gone = t.CodeLens(range=t.Range(t.Position(0, 0), t.Position(0, 0)),
                      data={"uri": uri(module_project, "app/core.py"), "path": "app/core.py", "symbol": "Nope"})
    resolved = await module_client.code_lens_resolve_async(gone)
    assert resolved.command.title.startswith("0 memories · 0 dependents · ")  # a symbol no longer there
    assert (await command(module_client, "memory.stats"))["languages"]  # still answering
