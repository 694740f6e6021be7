"""Code lenses: on a function or class only where there is something to say (memories, or
dependents), titled "N memories · M dependents · K tests" without the zero parts, carrying the
command a click runs; none in test files. One server for the module: these tests only read."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types as t

from conftest import command, lenses, open_doc, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")

TITLE = re.compile(r"^([1-9]\d* (memory|memories))?( · )?([1-9]\d* dependents?)?( · )?([1-9]\d* tests?)?$")
# a helper imported by two modules: dependents found for sure, and no memory
EXTRA = {"notes.txt": "def parse(text): not code\n",
         "app/util.py": "def helper(x):\n    return x\n",
         "app/one.py": "from app.util import helper\n\n\ndef one(x):\n    return helper(x)\n",
         "app/two.py": "from app.util import helper\n\n\ndef two(x):\n    return helper(x)\n"}


@pytest.fixture(scope="module")
def module_project(module_project, write_files):
    return write_files(module_project, EXTRA)


async def test_lenses_only_where_there_is_something_to_say(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    found = await lenses(module_client, doc, resolve=False)
    # Store.__init__ has nothing to say; Store.add's one caller types its receiver (`store = Store()`)
    assert [(lens.range.start.line, lens.data["symbol"]) for lens in found] == [(3, "parse"), (8, "Store"), (12, "Store.add")]
    for lens in found:
        assert lens.command is not None  # sent resolved: choosing the lenses needs the counts
        assert lens.range.start == lens.range.end
        assert lens.data["uri"] == doc and lens.data["path"] == "app/core.py"
    assert {lens.data["symbol"]: lens.command.title for lens in found} == {
        "parse": "1 memory · 3 dependents · 1 test",  # Store.add, api.handle, the test
        "Store": "1 memory · 1 dependent",  # api.handle; no test runs Store (test_parse calls parse)
        "Store.add": "1 dependent",  # api.handle
    }
    util = await lenses(module_client, open_doc(module_client, module_project, "app/util.py"))
    assert [lens.command.title for lens in util] == ["2 dependents"]  # no zero parts
    # nothing calls handle or shell, and they have no memory: no lens at all
    assert await lenses(module_client, open_doc(module_client, module_project, "app/api.py")) == []
    for path in ("app/core.py", "app/util.py"):
        for lens in await lenses(module_client, open_doc(module_client, module_project, path)):
            assert TITLE.match(lens.command.title) and " 0 " not in f" {lens.command.title}", lens.command.title


async def test_no_lenses_in_test_files(module_client, module_project):
    assert await lenses(module_client, open_doc(module_client, module_project, "tests/test_core.py")) == []


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
    util = await lenses(module_client, open_doc(module_client, module_project, "app/util.py"))
    cmd = util[0].command
    assert cmd.command == "memory.impact"
    assert list(cmd.arguments) == [{"target": "app/util.py::helper", "depth": 2}]
    result = await module_client.workspace_execute_command_async(t.ExecuteCommandParams(
        command=cmd.command, arguments=cmd.arguments))
    assert result["target"] == "app/util.py::helper"
    assert sorted((d["path"], d["symbol"]) for d in result["dependents"]) == [("app/one.py", "one"),
                                                                              ("app/two.py", "two")]


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
    assert resolved.command is None  # a symbol no longer there: nothing to say
    bare = t.CodeLens(range=t.Range(t.Position(3, 0), t.Position(3, 0)),
                      data={"uri": uri(module_project, "app/core.py"), "path": "app/core.py", "symbol": "parse"})
    assert (await module_client.code_lens_resolve_async(bare)).command.title == "1 memory · 3 dependents · 1 test"
    assert (await command(module_client, "memory.stats"))["languages"]  # still answering
