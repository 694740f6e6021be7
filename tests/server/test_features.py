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


def test_a_scoped_policy_with_a_pattern_shows_where_it_matches(snap):
    text = markdown(hover_for(snap, "app/api.py", 13, Config()))  # return os.system(cmd)
    assert "Never shell out" in text and "applies to `**/*.py`" in text
    assert hover_for(snap, "tests/test_core.py", 1, Config()) is None  # no os.system there: nothing to say
    assert "Never shell out" not in markdown(hover_for(snap, "app/core.py", 5, Config()))


def test_hover_outside_the_index_is_none(snap):
    assert hover_for(snap, "notes/todo.txt", 1, Config()) is None


def test_code_lenses_only_where_there_is_something_to_say(snap):
    lenses = lenses_for(snap, "file:///x/app/core.py", "app/core.py")
    assert {lens.data["symbol"]: lens.command.title for lens in lenses} == {
        "parse": "1 memory · 3 dependents · 1 test", "Store": "1 memory · 1 dependent",
        "Store.add": "1 dependent"}  # api.handle through a typed receiver; no test runs Store
    # Store.add's one caller is found by name only (store.add on a local): not counted by default
    looser, _ = parse({"codeLens": {"minConfidence": 0.4}})
    lenses = lenses_for(snap, "file:///x/app/core.py", "app/core.py", looser)
    assert {lens.data["symbol"]: lens.command.title for lens in lenses}["Store.add"] == "1 dependent"
    # a lens with only data (an older client's) is filled in the same way
    bare = t.CodeLens(range=lenses[0].range, data={"uri": "file:///x", "path": "app/core.py", "symbol": "parse"})
    assert resolved(snap, bare, Config()).command.title == "1 memory · 3 dependents · 1 test"


QUIET = {
    "src/__init__.py": "",
    "tests/__init__.py": "",
    "src/util.py": "def helper(x):\n    return x\n\n\ndef lonely():\n    return 0\n",
    "src/a.py": "from src.util import helper\n\n\ndef use_a(x):\n    return helper(x)\n",
    "src/b.py": '"""Module b."""\nimport os\n\nfrom src.util import helper\n\n\ndef use_b(x):\n'
                '    os.system("ls")\n    return helper(x)\n',
    "tests/helpers.py": "def make():\n    return 1\n",
    "tests/test_a.py": "from tests.helpers import make\nfrom src.a import use_a\n\n\ndef test_use_a():\n"
                       "    assert use_a(make()) == 1\n\n\ndef test_again():\n    assert make() == 1\n",
}
SCOPED = "Every module under src/ keeps its public names in __all__"
PATTERN = "Never call os.system under src/: use subprocess.run"
CITING = "The helpers of src/ stay pure: no I/O"


@pytest.fixture(scope="module")
def quiet(tmp_path_factory, index_files):
    """Lenses and hovers that leave things out: scoped policies with and without a pattern or a
    citation, a helper used twice, a test helper used by the tests."""
    ws = index_files(tmp_path_factory.mktemp("quiet") / "proj", QUIET)
    lookup = ws.snapshot().lookup()
    ws.book.teach(SCOPED, "policy", scope="src/**", lookup=lookup)
    ws.book.teach(PATTERN, "policy", scope="src/**", match=r"os\.system\(", lookup=lookup)
    ws.book.teach(CITING, "policy", scope="src/**", cite=["src/util.py:1-2"], lookup=lookup)
    ws.sync_memories()
    ws.load_graph()
    yield ws.snapshot()
    ws.close()


def test_lenses_leave_out_zero_parts_and_test_files(quiet):
    titles = {lens.data["symbol"]: lens.command.title for lens in lenses_for(quiet, "file:///u", "src/util.py")}
    assert titles == {"helper": "3 dependents · 1 test"}  # use_a, use_b, test_use_a; lonely: nothing to say
    assert all(" 0 " not in f" {title}" for title in titles.values())
    assert lenses_for(quiet, "file:///h", "tests/helpers.py") == []  # make() has 2 dependents, but a test file
    asked, _ = parse({"codeLens": {"testFiles": True}})
    assert {lens.data["symbol"]: lens.command.title for lens in lenses_for(quiet, "file:///h", "tests/helpers.py", asked)} \
        == {"make": "2 dependents · 1 test"}
    fewer, _ = parse({"codeLens": {"minDependents": 4}})
    assert lenses_for(quiet, "file:///u", "src/util.py", fewer) == []


def test_a_scoped_policy_stays_where_it_applies(quiet):
    def shown(path, line):
        hover = hover_for(quiet, path, line, Config())
        text = hover.contents.value if hover else ""
        return {name for name, memory in (("scoped", SCOPED), ("pattern", PATTERN), ("citing", CITING))
                if memory in text}
    # no pattern, no citation in the file: the file's head only (above its first definition)
    assert shown("src/b.py", 1) == {"scoped", "citing"} and shown("src/b.py", 4) == {"scoped", "citing"}
    assert shown("src/b.py", 7) == set() and shown("src/b.py", 9) == set()
    # a pattern: the lines it matches
    assert shown("src/b.py", 8) == {"pattern"}
    assert hover_for(quiet, "src/b.py", 8, Config(), text='    print("no shell")') is None  # the buffer's line wins
    # a citation: the cited lines (the head of util.py is line 1, which the citation holds too)
    assert shown("src/util.py", 2) == {"citing"}
    assert shown("src/util.py", 5) == set()
    assert shown("src/a.py", 5) == set()


def test_hover_impact_counts_only_confident_dependents(snap):
    text = markdown(hover_for(snap, "app/core.py", 14, Config()))  # inside Store.add
    # its one caller, `store = Store(); store.add(...)`, is a typed receiver (0.9)
    assert "**Impact** of changing `Store.add`: 1 dependent, 0 tests (depth 2)" in text  # test_parse calls parse only
    stricter, _ = parse({"hover": {"minConfidence": 0.95}})
    assert "**Impact**" not in markdown(hover_for(snap, "app/core.py", 14, stricter))


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
