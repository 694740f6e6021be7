"""Hover: the memories of the symbol under the cursor, then the file's, each with its type, age,
source, citation state and a link to the cited code; a one-line impact summary; nothing when
there is nothing to say. A policy scoped by a glob shows only where it applies: where its
pattern matches, else in the file's head. One server for the module: these tests only read."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types as t

from conftest import MEMORIES, cli, hover_at, open_doc, uri, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")

GOTCHA, DECISION, POLICY = (m[0] for m in MEMORIES)  # the policy: **/*.py, where os.system( matches
HEADED = "Modules under app/ start with a docstring that says what they own"  # app/**, no pattern
# app/core.py, 0-based lines: 1 blank, 3 `def parse`, 5 its body, 8 `class Store`, 13 in Store.add
EXTRA = {
    # no memory covers a JavaScript file (the policy's scope is **/*.py) and nothing imports it
    "tools/lonely.js": "function lonely(a) {\n  return a + 1;\n}\n\n\nconst x = 2;\n",
    "notes.txt": "Some notes about parse.\nNothing to index here.\n",
}


@pytest.fixture(scope="module")
def module_project(module_project, write_files):
    write_files(module_project, EXTRA)
    done = cli(module_project, "teach", HEADED, "--type", "policy", "--scope", "app/**")
    assert done.returncode == 0, done.stderr
    return module_project


def text_of(hover: t.Hover | None) -> str:
    assert hover is not None, "expected a hover"
    assert isinstance(hover.contents, t.MarkupContent)
    assert hover.contents.kind == t.MarkupKind.Markdown
    return hover.contents.value


def order(text: str, *needles: str) -> list[int]:
    where = [text.find(n) for n in needles]
    assert all(i >= 0 for i in where), f"missing one of {needles} in:\n{text}"
    return where


async def test_symbol_memories_come_before_the_files(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    text = text_of(await hover_at(module_client, doc, 3))  # def parse
    gotcha, decision = order(text, GOTCHA, DECISION)
    assert gotcha < decision  # the symbol's, then the file's
    assert POLICY not in text and HEADED not in text  # scoped policies that do not apply on this line

    text = text_of(await hover_at(module_client, doc, 8))  # class Store
    decision, gotcha = order(text, DECISION, GOTCHA)
    assert decision < gotcha


async def test_a_method_shows_its_class_memories_first(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    text = text_of(await hover_at(module_client, doc, 13))  # inside Store.add
    decision, gotcha = order(text, DECISION, GOTCHA)
    assert decision < gotcha


async def test_each_memory_says_type_age_source_state_and_links_its_citation(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")
    text = text_of(await hover_at(module_client, doc, 5))  # in the body of parse
    section = next(s for s in text.split("\n\n---\n\n") if GOTCHA in s)
    assert section.startswith("**gotcha** · today · user taught · `")
    assert f"> {GOTCHA}" in section
    link = uri(module_project, "app/core.py") + "#L4"
    assert f"cites [app/core.py:4]({link}) (valid)" in section
    # a scoped memory says where it applies instead, on the line where its pattern matches
    api = text_of(await hover_at(module_client, open_doc(module_client, module_project, "app/api.py"), 12))
    policy = next(s for s in api.split("\n\n---\n\n") if POLICY in s)
    assert policy.startswith("**policy** · ") and "applies to `**/*.py`" in policy


async def test_a_scoped_policy_shows_only_where_it_applies(module_client, module_project):
    api = open_doc(module_client, module_project, "app/api.py")
    where = {}
    for line in range(13):  # every line of app/api.py (0-based)
        hover = await hover_at(module_client, api, line, 0)
        text = hover.contents.value if hover else ""
        where[line] = (POLICY in text, HEADED in text)
    assert [line for line, (policy, _) in where.items() if policy] == [12]  # return os.system(cmd)
    assert [line for line, (_, headed) in where.items() if headed] == [0, 1, 2, 3, 4]  # above def handle
    core = open_doc(module_client, module_project, "app/core.py")
    assert HEADED in text_of(await hover_at(module_client, core, 0, 0))
    # the editor's buffer decides where a pattern matches: a new os.system call is covered at once
    module_client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=api, version=2),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(7, 0), t.Position(7, 0)), text="    os.system('date')\n")]))
    assert POLICY in text_of(await hover_at(module_client, api, 7, 4))
    module_client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=api, version=3),
        content_changes=[t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(7, 0), t.Position(8, 0)), text="")]))


async def test_one_line_impact_summary(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/core.py")

    async def with_impact():  # a hover never waits for the graph: the last test's edits re-index
        text = text_of(await hover_at(module_client, doc, 3))
        return text if "**Impact**" in text else None
    text = await wait_for(with_impact, what="the graph after the last test's edits")
    impact = [line for line in text.splitlines() if line.startswith("**Impact**")]
    # parse is called by Store.add, api.handle and the test; the test file is the test to run
    assert impact == ["**Impact** of changing `parse`: 3 dependents, 1 test (depth 2)"]
    assert text.rstrip().endswith(impact[0])

    text = text_of(await hover_at(module_client, doc, 1))  # a blank line in the file's head
    assert text.splitlines()[-1] == "**Impact** of changing this file: 2 dependents, 1 test (depth 2)"
    assert GOTCHA in text and DECISION in text and HEADED in text and POLICY not in text
    assert text.index(GOTCHA) < text.index(DECISION)  # gotchas before decisions
    assert text.index(DECISION) < text.index(HEADED)  # the file's own memories before a rule scoped to app/** (issue 15)

    text = text_of(await hover_at(module_client, doc, 13))  # inside Store.add: `store = Store(); store.add(...)`
    assert text.splitlines()[-1].startswith("**Impact** of changing `Store.add`: 1 dependent")  # a typed receiver (0.9)


async def test_nothing_to_say_is_no_hover(module_client, module_project):
    doc = open_doc(module_client, module_project, "tools/lonely.js")
    assert await hover_at(module_client, doc, 3, 0) is None  # blank line
    assert await hover_at(module_client, doc, 1) is None  # in a function nobody calls, no memory
    assert await hover_at(module_client, doc, 5) is None


async def test_a_document_outside_the_workspace_gets_no_hover(module_client, module_project, tmp_path, write_files):
    outside = write_files(tmp_path / "elsewhere", {"app/core.py": (module_project / "app/core.py").read_text()})
    doc = open_doc(module_client, outside, "app/core.py")
    assert await hover_at(module_client, doc, 3) is None
    untitled = "untitled:Untitled-1"
    module_client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
        uri=untitled, language_id="python", version=1, text="import os\nos.system('ls')\n")))
    assert await hover_at(module_client, untitled, 1) is None


async def test_unsupported_language_gets_no_hover_and_no_error(module_client, module_project):
    doc = open_doc(module_client, module_project, "notes.txt")
    assert await hover_at(module_client, doc, 0) is None
    assert await hover_at(module_client, doc, 50, 3) is None  # past the end of the file
    # the server is still answering
    text = text_of(await hover_at(module_client, open_doc(module_client, module_project, "app/api.py"), 12))
    assert re.search(r"\*\*policy\*\* · today · user taught · `\w{8}`", text)
