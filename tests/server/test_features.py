"""Feature bodies as functions of a workspace snapshot: no server process, no LSP stream.

Each body (`hover_for`, `lenses_for`/`resolved`, `diagnostics_for`, `actions_for`,
`symbols_matching`) takes a real `Snapshot` of a real index and returns lsprotocol values; the
pytest-lsp tests beside this file check the same features end to end over stdio.
"""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from memory_lsp.server.features.code_actions import actions_for
from memory_lsp.server.features.code_lens import lenses_for, resolved
from memory_lsp.server.features.diagnostics import SOURCE, diagnostics_for
from memory_lsp.server.features.hover import hover_for
from memory_lsp.server.features.workspace_symbols import symbols_matching
from memory_lsp.settings import Config, parse
from memory_lsp.workspace import Workspace

from conftest import MEMORIES, PROJECT


@pytest.fixture(scope="module")
def snap(tmp_path_factory, write_files):
    """The server tests' project, indexed in this process, with its three memories taught."""
    root = write_files(tmp_path_factory.mktemp("features") / "proj", PROJECT)
    ws = Workspace.open(root)
    ws.index(workers=0)
    for text, type_, cites, extra in MEMORIES:
        options = dict(zip(extra[::2], extra[1::2]))
        ws.book.teach(text, type_, cite=cites, scope=options.get("--scope"), match=options.get("--match"),
                      lookup=ws.snapshot().lookup())
    ws.sync_memories()
    ws.load_graph()
    yield ws.snapshot()
    ws.close()


def markdown(hover: t.Hover | None) -> str:
    assert hover is not None
    return hover.contents.value


def test_hover_on_a_cited_function_shows_its_memory_and_impact(snap):
    text = markdown(hover_for(snap, "app/core.py", 5, Config()))  # inside `def parse`
    assert "splits on every comma" in text
    assert text.startswith("**gotcha**")
    assert "**Impact** of changing `parse`" in text
    assert "Store keeps rows" not in text.split("---")[0]  # the symbol's own memory comes first


def test_hover_on_a_method_brings_its_class_memory(snap):
    text = markdown(hover_for(snap, "app/core.py", 14, Config()))  # inside `Store.add`
    assert text.index("Store keeps rows") < text.index("splits on every comma")


def test_hover_respects_max_memories_and_says_how_many_are_hidden(snap):
    settings, problems = parse({"hover": {"maxMemories": 1}})
    assert problems == []
    text = markdown(hover_for(snap, "app/core.py", 14, settings))
    assert "Store keeps rows" in text
    assert "1 more: `memory-lsp memories --file app/core.py`" in text or "2 more" in text


def test_hover_where_only_a_scoped_policy_applies(snap):
    text = markdown(hover_for(snap, "tests/test_core.py", 1, Config()))
    assert "applies to `**/*.py`" in text and "Impact" not in text


def test_hover_outside_the_index_is_none(snap):
    assert hover_for(snap, "notes/todo.txt", 1, Config()) is None


def test_code_lenses_cover_functions_and_resolve_to_counts(snap):
    lenses = lenses_for(snap, "file:///x/app/core.py", "app/core.py")
    symbols = [lens.data["symbol"] for lens in lenses]
    assert "parse" in symbols and "Store" in symbols
    parse_lens = resolved(snap, lenses[symbols.index("parse")], Config())
    assert parse_lens.command is not None
    assert "1 memory" in parse_lens.command.title


def test_diagnostics_anchor_cited_memories_and_match_policy_patterns(snap):
    core = diagnostics_for(snap, "app/core.py", PROJECT["app/core.py"], Config())
    assert any("splits on every comma" in d.message and d.range.start.line == 3 for d in core)
    api = diagnostics_for(snap, "app/api.py", PROJECT["app/api.py"], Config())
    hit = [d for d in api if "os.system" in d.message]
    assert hit and hit[0].range.start.line == 12  # `return os.system(cmd)`
    assert all(d.source == SOURCE for d in core + api)


def test_diagnostics_can_be_turned_off(snap):
    settings, _ = parse({"diagnostics": {"enabled": False}})
    assert diagnostics_for(snap, "app/core.py", PROJECT["app/core.py"], settings) == []


def test_code_actions_offer_teach_with_the_symbol_cited(snap):
    at = t.Position(line=4, character=4)
    actions = actions_for(snap, "app/core.py", t.Range(start=at, end=at), [])
    teach = actions[0]
    assert teach.title == "Teach a memory about parse"
    assert teach.command.arguments == [{"cite": ["app/core.py::parse"], "type": "gotcha"}]
    assert len(actions) > 1  # and actions about the memory cited there


def test_workspace_symbols_match_by_name(snap):
    found = symbols_matching(snap, "Store")
    assert [s.name for s in found][:1] == ["Store"]
    assert found[0].location.uri.endswith("app/core.py")
