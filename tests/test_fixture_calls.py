"""A test's call on a pytest fixture parameter resolves in the class the fixture gives (jinja2's
`env.from_string(...)` with conftest.py's `def env(): return Environment()`), and an edit of the
conftest re-resolves it in the other files as a fresh index would."""

from test_incremental import snapshot

from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "from .env import Environment, Sandbox\n",
    "pkg/env.py": (
        "class Environment:\n"
        "    def from_string(self, s):\n"
        "        return s\n"
        "class Sandbox:\n"
        "    def from_string(self, s):\n"
        "        return s\n"
    ),
    "tests/conftest.py": (
        "import typing as t\n"
        "import pytest\n"
        "from pkg import Environment\n"
        "@pytest.fixture\n"
        "def env():\n"
        "    return Environment()\n"
        "@pytest.fixture\n"
        "def app():\n"
        "    made = Environment()\n"
        "    yield made\n"
        "@pytest.fixture\n"
        "def served() -> t.Iterator[Environment]:\n"
        "    yield Environment()\n"
        "@pytest.fixture\n"
        "def many() -> t.List[Environment]:\n"
        "    return [Environment()]\n"
    ),
    "tests/test_env.py": (
        "def test_render(env):\n"
        "    env.from_string('x')\n"
        "class TestApp:\n"
        "    def test_app(self, app):\n"
        "        app.from_string('y')\n"
        "def test_not_a_fixture(other):\n"
        "    other.from_string('z')\n"
        "def test_served(served, many):\n"
        "    served.from_string('s')\n"
        "    many.from_string('m')\n"
    ),
}


def fresh_snapshot(root, db):
    """Every row of a full index of `root` made in an empty store."""
    fresh = Workspace.open(root, db=str(db))
    fresh.index(workers=0)
    try:
        return snapshot(fresh)
    finally:
        fresh.close()


def calls_at(ws, line):
    return sorted(ws.store.cursor().execute(
        "SELECT dst, strategy FROM edges WHERE kind = 'CALLS' AND src_path = 'tests/test_env.py' AND line = ?",
        [line]).fetchall())


def test_a_call_on_a_fixture_is_a_call_on_what_it_returns_or_yields(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, 2) == [("pkg/env.py::Environment.from_string", "fixture_var")]
    assert calls_at(ws, 5) == [("pkg/env.py::Environment.from_string", "fixture_var")]
    # a parameter no fixture gives: both methods stay guesses
    assert [s for _, s in calls_at(ws, 7)] == ["name_ambiguous", "name_ambiguous"]
    # a generator annotated `-> Iterator[Environment]` gives an Environment; `-> List[...]` a list
    assert calls_at(ws, 9) == [("pkg/env.py::Environment.from_string", "fixture_var")]
    assert [s for _, s in calls_at(ws, 10)] == ["name_ambiguous", "name_ambiguous"]
    ws.close()


def test_an_edited_conftest_retypes_the_tests_calls_as_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    edited = FILES["tests/conftest.py"].replace("import Environment", "import Sandbox").replace(
        "return Environment()", "return Sandbox()")
    (root / "tests/conftest.py").write_text(edited)
    ws.reindex({"tests/conftest.py": edited.encode()})
    assert calls_at(ws, 2) == [("pkg/env.py::Sandbox.from_string", "fixture_var")]
    # `Environment()` no longer names a class the conftest imports: the fixture's type is unknown
    assert [s for _, s in calls_at(ws, 5)] == ["name_ambiguous", "name_ambiguous"]
    incremental = snapshot(ws)
    # and the fixture renamed away: the test's call is a guess again
    renamed = edited.replace("def env():", "def environment():")
    (root / "tests/conftest.py").write_text(renamed)
    ws.reindex({"tests/conftest.py": renamed.encode()})
    renamed_snapshot = snapshot(ws)
    ws.close()

    for text, want in ((edited, incremental), (renamed, renamed_snapshot)):
        (root / "tests/conftest.py").write_text(text)
        assert fresh_snapshot(root, tmp_path / f"fresh{len(text)}.duckdb") == want


def test_a_fixture_whose_body_changes_retypes_the_tests_calls(tmp_path, write_files):
    # found by bench/bench_fixture_exact.py: same name, same imports, another class returned
    conftest = FILES["tests/conftest.py"].replace("from pkg import Environment", "from pkg import Environment, Sandbox")
    root = write_files(tmp_path / "ws", {**FILES, "tests/conftest.py": conftest})
    ws = Workspace.open(root)
    ws.index(workers=0)
    edited = conftest.replace("    return Environment()", "    return Sandbox()")
    (root / "tests/conftest.py").write_text(edited)
    ws.reindex({"tests/conftest.py": edited.encode()})
    assert calls_at(ws, 2) == [("pkg/env.py::Sandbox.from_string", "fixture_var")]
    incremental = snapshot(ws)
    ws.close()
    assert fresh_snapshot(root, tmp_path / "fresh.duckdb") == incremental


NESTED = {
    "tests/conftest.py": "import pytest\n@pytest.fixture\ndef value():\n    return 1\n",
    # itsdangerous' test_serializer.py: a class defined in a test, its method's parameter named like a fixture
    "tests/test_nested.py": (
        "def test_outer(value):\n"
        "    class Bad:\n"
        "        def unsign(self, value):\n"
        "            return value\n"
        "    def helper(value):\n"
        "        return value\n"
        "    assert Bad().unsign(value) == helper(value)\n"
        "class TestKept:\n"
        "    def test_method(self, value):\n"
        "        assert value\n"
    ),
}


def test_only_what_pytest_collects_takes_fixtures_not_functions_nested_in_a_test(tmp_path, index_files):
    ws = index_files(tmp_path, NESTED)
    uses = ws.store.cursor().execute(
        "SELECT src, dst FROM edges WHERE kind = 'USES_FIXTURE' ORDER BY src").fetchall()
    assert uses == [("tests/test_nested.py::TestKept.test_method", "tests/conftest.py::value"),
                    ("tests/test_nested.py::test_outer", "tests/conftest.py::value")]
    ws.close()


def test_a_base_named_like_a_fixture_method_is_no_guess_at_it(tmp_path, index_files):
    # itsdangerous' `class BadUnsign(serializer.signer)` in a test: the one definition named `signer`
    # was a test class's fixture method, which was guessed as the base (a method is never one)
    ws = index_files(tmp_path, {
        "pkg/signer.py": "class Signer:\n    def unsign(self, v):\n        return v\n",
        "tests/test_signer.py": ("import pytest\n\n\nclass TestSigner:\n    @pytest.fixture()\n"
                                 "    def signer(self):\n        return 1\n"),
        "tests/test_serializer.py": ("def test_loads(serializer):\n    class BadUnsign(serializer.signer):\n"
                                     "        pass\n\n\nclass Plain(object):\n    pass\n")})
    try:
        inherits = ws.store.cursor().execute("SELECT src, dst FROM edges WHERE kind = 'INHERITS'").fetchall()
        assert not [e for e in inherits if e[1].endswith("TestSigner.signer")], inherits
    finally:
        ws.close()
