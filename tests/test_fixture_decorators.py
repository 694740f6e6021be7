"""What a pytest fixture's decorator says (index/fixtures.py). A conftest.py's autouse fixture runs
around every test collected below it: those tests use it (USES_FIXTURE, strategy `autouse`), so a
change to what it calls selects them (structlog's `_reset_config` calls `reset_defaults()` of
_config.py around each of its tests: coverage counts _config.py run by test files that never name
it). `@pytest.fixture(name="cl") def _cl()` is the fixture a parameter `cl` uses (structlog's
conftest names 5 of its fixtures so). What a `parametrize` decorator makes is the test's call.
Edits end where a fresh index does."""

import os

from test_fixture_calls import fresh_snapshot
from test_incremental import snapshot

from memory_lsp.graph.impact import ImpactGraph
from memory_lsp.workspace import Workspace

CONFTEST = (
    "import pytest\n"
    "from pkg.config import reset\n"
    "\n"
    "@pytest.fixture(scope='session', autouse=True)\n"
    "def _reset_config():\n"
    "    reset()\n"
    "\n"
    "@pytest.fixture\n"
    "def value():\n"
    "    return 1\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def reset():\n    return 1\n",
    "pkg/frames.py": "def frame():\n    return 3\n",
    "tests/conftest.py": CONFTEST,
    "tests/test_frames.py": (
        "from pkg.frames import frame\n"
        "\n"
        "def test_frame():\n"
        "    assert frame() == 3\n"
        "\n"
        "class TestMore:\n"
        "    def test_more(self):\n"
        "        assert frame()\n"
    ),
    "tests/unit/test_deep.py": "def test_deep(value):\n    assert value\n",
    "tests/helpers.py": "def test_like_helper():\n    return 0\n",  # no file pytest collects
    "other/test_outside.py": "def test_outside():\n    assert True\n",  # not below the conftest
}


def autouse_edges(ws):
    return sorted(ws.store.cursor().execute(
        "SELECT src, dst, line, confidence FROM edges WHERE kind = 'USES_FIXTURE' AND strategy = 'autouse'").fetchall())


def test_every_test_below_a_conftest_uses_its_autouse_fixture(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert autouse_edges(ws) == [
            ("tests/test_frames.py::TestMore", "tests/conftest.py::_reset_config", 6, 0.9),
            ("tests/test_frames.py::test_frame", "tests/conftest.py::_reset_config", 3, 0.9),
            ("tests/unit/test_deep.py::test_deep", "tests/conftest.py::_reset_config", 1, 0.9)]
        # what the fixture calls runs in those tests, named or not; not in a test outside its folder
        assert ws.impact("pkg/config.py", depth=3)["tests"] == ["tests/test_frames.py", "tests/unit/test_deep.py"]
        assert ws.impact("pkg/config.py::reset", depth=3)["tests"] == ["tests/test_frames.py", "tests/unit/test_deep.py"]
        assert ws.impact("pkg/frames.py", depth=3)["tests"] == ["tests/test_frames.py"]
    finally:
        ws.close()


def test_a_fixture_without_autouse_is_used_only_where_named(tmp_path, index_files):
    files = {**FILES, "tests/conftest.py": CONFTEST.replace("autouse=True", "autouse=False")}
    ws = index_files(tmp_path, files)
    try:
        assert autouse_edges(ws) == []
        assert ws.impact("pkg/config.py", depth=3)["tests"] == []
    finally:
        ws.close()


def write_and_reindex(ws, root, path: str, text: str | None) -> None:
    """An editor's run after `path` is written with `text`, or deleted (None)."""
    if text is None:
        os.remove(root / path)
    else:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    ws.reindex({path: None if text is None else text.encode()})


def test_edits_of_the_conftest_and_the_tests_end_where_a_fresh_index_does(tmp_path, index_files):
    root = tmp_path / "ws"
    ws = index_files(root, FILES)
    edits = [
        ("tests/conftest.py", CONFTEST.replace("autouse=True", "autouse=False")),  # no longer autouse
        ("tests/conftest.py", CONFTEST.replace("_reset_config", "_fresh_config")),  # autouse again, renamed
        ("tests/test_frames.py", "\n\n" + FILES["tests/test_frames.py"]),  # lines moved only
        ("tests/test_frames.py", FILES["tests/test_frames.py"].replace("test_frame()", "test_renamed()")),
        ("tests/unit/test_new.py", "def test_new():\n    assert 1\n"),  # a test file added
        ("tests/unit/test_deep.py", None),  # and one deleted
        ("tests/conftest.py", None),  # the conftest deleted
        ("tests/conftest.py", CONFTEST),  # and back
    ]
    try:
        for step, (path, text) in enumerate(edits):
            write_and_reindex(ws, root, path, text)
            fresh_db = tmp_path / f"fresh{step}.duckdb"
            assert snapshot(ws) == fresh_snapshot(root, fresh_db), (step, path)
            # the graph the server follows answers as a load of the same index, and selects the tests a
            # fresh index does
            followed, loaded = ws.load_graph(), ImpactGraph.load(ws.store)
            fresh = Workspace.open(root, db=str(fresh_db))
            try:
                for target in ("pkg/config.py", "pkg/config.py::reset", "tests/conftest.py"):
                    path = target.partition("::")[0]
                    if not (root / path).exists():
                        continue
                    assert followed.walk(target, path, 3) == loaded.walk(target, path, 3), (step, target)
                    assert ws.impact(target, depth=3)["tests"] == fresh.impact(target, depth=3)["tests"], (step, target)
            finally:
                fresh.close()
        assert [e[0] for e in autouse_edges(ws)] == [
            "tests/test_frames.py::TestMore", "tests/test_frames.py::test_renamed", "tests/unit/test_new.py::test_new"]
    finally:
        ws.close()


NAMED = {
    "pkg/__init__.py": "",
    "pkg/logger.py": "class Logger:\n    def msg(self):\n        return 1\n\n\nclass Other:\n    def msg(self):\n        return 2\n",
    "tests/conftest.py": (
        "import pytest\n"
        "from pkg.logger import Logger\n"
        "\n"
        "@pytest.fixture(name='cl')\n"
        "def _cl():\n"
        "    return Logger()\n"
    ),
    "tests/test_log.py": "def test_msg(cl):\n    assert cl.msg() == 1\n\ndef test_plain():\n    assert True\n",
}


def uses(ws):
    return sorted(ws.store.cursor().execute(
        "SELECT src, dst, strategy FROM edges WHERE kind = 'USES_FIXTURE'").fetchall())


def test_a_fixture_named_by_its_decorator_is_used_by_that_name(tmp_path, index_files):
    ws = index_files(tmp_path, NAMED)
    try:
        assert uses(ws) == [("tests/test_log.py::test_msg", "tests/conftest.py::_cl", "fixture")]
        # what it returns types the test's calls on it, and selects the test
        calls = ws.store.cursor().execute(
            "SELECT dst, strategy FROM edges WHERE kind = 'CALLS' AND src = 'tests/test_log.py::test_msg'").fetchall()
        assert calls == [("pkg/logger.py::Logger.msg", "fixture_var")]
        assert ws.impact("pkg/logger.py::Logger.msg", depth=3)["tests"] == ["tests/test_log.py"]
        assert ws.impact("pkg/logger.py::Other.msg", depth=3)["tests"] == []
    finally:
        ws.close()


def test_a_fixture_renamed_in_its_decorator_resolves_as_a_fresh_index(tmp_path, index_files):
    root = tmp_path / "ws"
    ws = index_files(root, NAMED)
    conftest = NAMED["tests/conftest.py"]
    edits = [
        ("tests/conftest.py", conftest.replace("name='cl'", "name='cl2'")),  # the function is the same
        ("tests/test_log.py", NAMED["tests/test_log.py"].replace("(cl)", "(cl2)").replace("cl.msg", "cl2.msg")),
        ("tests/conftest.py", conftest.replace("(name='cl')", "")),  # the name goes: `cl2` names nothing
        ("tests/conftest.py", conftest.replace("name='cl'", "name='cl2'")),  # and comes back
        ("tests/conftest.py", conftest.replace("Logger()", "Other()").replace("import Logger", "import Other")
         .replace("name='cl'", "name='cl2'")),  # another class given
        ("conftest.py", conftest.replace("def _cl", "def _outer").replace("name='cl'", "name='cl2'")),
        ("tests/conftest.py", None),  # the test's parameter is the outer conftest's fixture now
    ]
    try:
        for step, (path, text) in enumerate(edits):
            write_and_reindex(ws, root, path, text)
            assert snapshot(ws) == fresh_snapshot(root, tmp_path / f"fresh{step}.duckdb"), (step, path)
        assert uses(ws) == [("tests/test_log.py::test_msg", "conftest.py::_outer", "fixture")]
        assert ws.impact("pkg/logger.py::Logger.msg", depth=3)["tests"] == ["tests/test_log.py"]
    finally:
        ws.close()


PARAMETRIZED = {
    "pkg/__init__.py": "",
    "pkg/structures.py": (
        "class CaseInsensitiveDict(dict):\n"
        "    def __getitem__(self, key):\n"
        "        return dict.__getitem__(self, key.lower())\n"
    ),
    "pkg/utils.py": "def encoding(headers):\n    return headers['Content-Type']\n",
    "tests/test_utils.py": (
        "import pytest\n"
        "from pkg.structures import CaseInsensitiveDict\n"
        "from pkg.utils import encoding\n"
        "\n"
        "@pytest.mark.parametrize('value', [CaseInsensitiveDict({'content-type': 'x'})])\n"
        "def test_encoding(value):\n"
        "    assert encoding(value) == 'x'\n"
        "\n"
        "class TestMore:\n"
        "    @pytest.mark.parametrize(\n"
        "        'value', [CaseInsensitiveDict()],\n"
        "    )\n"
        "    def test_empty(self, value):\n"
        "        assert not value\n"
        "\n"
        "@pytest.fixture(params=[CaseInsensitiveDict()])\n"
        "def made(request):\n"
        "    return request.param\n"
        "\n"
        "def test_made(made):\n"
        "    assert encoding(made) is None\n"
        "\n"
        "DEFAULT = CaseInsensitiveDict()\n"
    ),
}


def test_what_a_parametrizing_decorator_makes_is_the_functions_call(tmp_path, index_files):
    # requests' test_get_encoding_from_headers: the test hands a CaseInsensitiveDict to code that
    # indexes it (an untyped parameter): coverage counts structures.py run by the test
    ws = index_files(tmp_path, PARAMETRIZED)
    try:
        callers = sorted(ws.store.cursor().execute(
            "SELECT src, line FROM edges WHERE kind = 'CALLS' AND dst = 'pkg/structures.py::CaseInsensitiveDict'").fetchall())
        assert callers == [("tests/test_utils.py", 23), ("tests/test_utils.py::TestMore.test_empty", 11),
                           ("tests/test_utils.py::made", 16), ("tests/test_utils.py::test_encoding", 5)]
        assert ws.impact("pkg/structures.py::CaseInsensitiveDict.__getitem__", depth=3)["tests"] == ["tests/test_utils.py"]
    finally:
        ws.close()
