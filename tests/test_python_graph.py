"""The Python graph on a small package: imports, calls, inheritance, promotions, docs."""


FILES = {
    "app/__init__.py": "",
    "app/core.py": (
        "import requests\n"
        "class Base:\n"
        "    def save(self):\n"
        "        self.saved = True\n"
        "def helper():\n"
        "    return 1\n"
    ),
    "app/models.py": (
        "from .core import Base, helper\n"
        "from . import util\n"
        "class User(Base):\n"
        "    def save(self):\n"
        "        helper()\n"
        "        self.audit()\n"
        "        util.log('x')\n"
        "    def audit(self):\n"
        "        pass\n"
    ),
    "app/util.py": "def log(msg):\n    print(msg)\n",
    "app/sub/__init__.py": "",
    "app/sub/deep.py": "from ..core import helper\nfrom ...outside import nothing\nimport app.util\n",
    "app/views.py": "from app.models import User\nfrom app import core\n\ndef show():\n    User().save()\n",
    "tests/test_models.py": "from app.models import User\n\ndef test_user():\n    User().save()\n",
    "docs/guide.md": "# Guide\nThe `User` model lives in `app/models.py`.\n\n## Helpers\nSee `helper()`.\n",
}


def test_symbols_have_lines(ws):
    # names, kinds, imports and inheritance: tests/contracts/languages/python/expected.json
    row = ws.store.cursor().execute(
        "SELECT start_line, end_line FROM symbols WHERE id = 'app/models.py::User.save'").fetchone()
    assert row == (4, 7)


def test_unresolvable_relative_import_is_counted(ws):
    assert ws.doctor()["unresolved_imports"] == 1  # from ...outside: above the top package


def test_calls_resolve_with_strategy_and_line(ws):
    rows = ws.store.cursor().execute(
        "SELECT src, dst, strategy, line, confidence FROM edges WHERE kind = 'CALLS'").fetchall()
    by = {(r[0], r[1]): r for r in rows}
    assert by[("app/models.py::User.save", "app/core.py::helper")][2:4] == ("import", 5)
    assert by[("app/models.py::User.save", "app/models.py::User.audit")][2] == "self"
    assert by[("app/models.py::User.save", "app/util.py::log")][2] == "module_attr"
    assert ("app/views.py::show", "app/models.py::User") in by
    # print() is a builtin: no edge, and counted as unresolved
    assert not any(dst.endswith("::print") for _, dst in by)


def test_promotions_and_side_effects(ws, file_edges):
    asserts = file_edges(ws, "ASSERTS_ON")
    assert asserts == {("tests/test_models.py", "app/models.py")}
    drives = ws.store.cursor().execute(
        "SELECT src_path, dst_path, strategy FROM edges WHERE kind = 'DRIVES'").fetchall()
    # core.py writes self.saved (mutation) and is imported by 3 files (fan-in)
    assert ("app/core.py", "app/models.py", "fan_in+mutation") in drives
    effects = ws.store.cursor().execute("SELECT side_effects, is_test FROM files WHERE path = 'app/core.py'").fetchone()
    assert effects == ("network", False)


def test_documents_edges_from_markdown(ws, symbol_edges):
    docs = symbol_edges(ws, "DOCUMENTS")
    assert ("docs/guide.md", "app/models.py") in docs
    assert ("docs/guide.md", "app/models.py::User") in docs
    assert ("docs/guide.md", "app/core.py::helper") in docs
    chunks = ws.store.cursor().execute(
        "SELECT name FROM chunks WHERE path = 'docs/guide.md' ORDER BY start_line").fetchall()
    assert chunks == [("Guide",), ("Helpers",)]


def test_chunks_keep_whole_functions_with_context_prefix(ws):
    prefix, text = ws.store.cursor().execute(
        "SELECT prefix, text FROM chunks WHERE id LIKE 'app/models.py::User.save:%'").fetchone()
    assert prefix == "app/models.py | method User.save | lines 4-7"
    assert text.startswith("def save(self):") and text.endswith("util.log('x')")


def test_impact_of_a_file_lists_dependents_paths_and_tests(ws):
    result = ws.impact("app/core.py", depth=3)
    by_path = {d["path"]: d for d in result["dependents"]}
    assert by_path["app/models.py"]["depth"] == 1
    assert by_path["app/views.py"]["depth"] in (1, 2)
    assert by_path["tests/test_models.py"]["via"][0] == "app/core.py"
    assert "tests/test_models.py" in result["tests"]


def test_impact_of_a_symbol_follows_callers(ws):
    result = ws.impact("app/core.py::helper", depth=2)
    nodes = {(d["path"], d["symbol"]) for d in result["dependents"]}
    assert ("app/models.py", "User.save") in nodes
    assert result["tests"] == ["tests/test_models.py"]


def test_scores_rank_the_most_depended_on_file_first(ws):
    central = ws.summary()["central"]
    assert central[0]["path"] == "app/core.py"
    assert central[0]["dependents"] >= 4
