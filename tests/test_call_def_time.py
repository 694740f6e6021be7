"""Issue 12 items 1 and 5: a call in a def's header (a parameter's annotation or default, the return
annotation) runs where the def statement runs, in the scope around it, not when the function is
called. typer's tutorials declare `def main(name: Annotated[str, typer.Argument()])`: a test that
imports the tutorial module runs `Argument`, though it never calls `main` itself (typer's own
dispatch does). Before, the call was `main`'s only, and typer's tests missed `params.py` (69 pairs)."""

from test_call_returns import _edited_equals_fresh

from memory_lsp.index import extract

TUTORIAL = (
    "from typing import Annotated\n"                                          # 1
    "from pkg.params import Argument, Option, describe\n"                     # 2
    "def main(name: Annotated[str, Argument()], size=Option()) -> describe():\n"  # 3
    "    print(name)\n"                                                       # 4
    "class App:\n"                                                            # 5
    "    def run(self, flag=Option()):\n"                                     # 6
    "        return flag\n"                                                   # 7
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/params.py": (
        "def Argument():\n    return 'argument'\n"
        "def Option():\n    return 'option'\n"
        "def describe():\n    return str\n"
    ),
    "docs/__init__.py": "",
    "docs/tutorial.py": TUTORIAL,
    "tests/test_tutorial.py": (
        "import importlib\n"
        "def test_load():\n"
        "    assert importlib.import_module('docs.tutorial').main\n"
    ),
    "tests/test_other.py": "def test_nothing():\n    assert True\n",
}


def _calls(facts):
    return {(r.src, r.name, r.line) for r in facts.refs if r.kind == "call"}


def test_a_header_call_is_also_the_scope_around_it():
    calls = _calls(extract.extract("docs/tutorial.py", TUTORIAL.encode(), "python"))
    for name in ("Argument", "Option", "describe"):  # an annotation, a default, the return annotation
        assert (None, name, 3) in calls  # run at import, by the module
        assert ("main", name, 3) in calls  # and still main's: what breaks when it changes
    assert ("App", "Option", 6) in calls and ("App.run", "Option", 6) in calls  # a method's: the class body
    assert not any(src is None and name == "print" for src, name, _ in calls)  # the body's calls stay main's


def test_a_test_importing_the_module_runs_the_header_calls(index_files, tmp_path):
    ws = index_files(tmp_path / "ws", FILES)
    rows = set(ws.store.cursor().execute(
        "SELECT src, dst FROM edges WHERE kind = 'CALLS' AND src_path = 'docs/tutorial.py'").fetchall())
    assert ("docs/tutorial.py", "pkg/params.py::Argument") in rows
    assert ("docs/tutorial.py::main", "pkg/params.py::Argument") in rows
    assert ws.impact("pkg/params.py", depth=3)["tests"] == ["tests/test_tutorial.py"]
    callers = {d["symbol"] for d in ws.impact("pkg/params.py::Argument", depth=1)["dependents"]}
    assert "main" in callers
    ws.close()


def test_an_edit_of_the_header_equals_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    incremental = _edited_equals_fresh(tmp_path, root, "docs/tutorial.py",
                                       TUTORIAL.replace("Annotated[str, Argument()]", "str"))
    assert ("docs/tutorial.py", "pkg/params.py::Argument") not in {tuple(e[:2]) for e in incremental["edges"]}
