"""Issue 12 items 1 and 5: a name bound to one of several values, one of them a class named outright
(`cls = command_info.cls or TyperCommand`, typer's `get_command_from_info`), is called: the call makes
that class. Before, `cls(...)` was a local's call with no edge, so a test reaching it never reached
what the class's makers run: typer's tutorial tests missed `_click/parser.py` (151 pairs)."""

from test_call_returns import _edited_equals_fresh

from memory_lsp.index import extract
from memory_lsp.index.exprtext import either_class

CORE = (
    "from abc import ABC, abstractmethod\n"                           # 1
    "from pkg.parser import parse\n"                                  # 2
    "class Command(ABC):\n"                                           # 3
    "    @abstractmethod\n"                                           # 4
    "    def main(self, args):\n"                                     # 5
    "        pass\n"                                                  # 6
    "    def __call__(self, args):\n"                                 # 7
    "        return self.main(args)\n"                                # 8
    "class TyperCommand(Command):\n"                                  # 9
    "    def main(self, args):\n"                                     # 10
    "        return parse(args)\n"                                    # 11
)
MAIN = (
    "from pkg.core import Command, TyperCommand\n"                    # 1
    "class CommandInfo:\n"                                            # 2
    "    def __init__(self, cls=None):\n"                             # 3
    "        self.cls = cls\n"                                        # 4
    "def get_command(command_info: CommandInfo) -> Command:\n"        # 5
    "    cls = command_info.cls or TyperCommand\n"                    # 6
    "    return cls()\n"                                              # 7
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "pkg/main.py": MAIN,
    "pkg/parser.py": "def parse(args):\n    return list(args)\n",
    "tests/test_app.py": (
        "from pkg.main import CommandInfo, get_command\n"
        "def test_run():\n"
        "    assert get_command(CommandInfo()).main(['x']) == ['x']\n"
    ),
    "tests/test_parser.py": "from pkg.parser import parse\ndef test_parse():\n    assert parse('a') == ['a']\n",
}


def test_the_one_class_named_among_the_values():
    assert either_class("command_info.cls or TyperCommand") == "TyperCommand"
    assert either_class("cls or core.TyperGroup") == "core.TyperGroup"
    assert either_class("template_class or self.template_class") is None  # no class named outright
    assert either_class("Foo if flag else Bar") is None  # two: which one is unknown
    assert either_class("x or DEFAULT") is None  # a constant, not a class
    assert either_class("cls or None") is None


def test_a_call_of_the_name_makes_the_class():
    facts = extract.extract("pkg/main.py", MAIN.encode(), "python")
    calls = {(r.line, r.name, r.receiver) for r in facts.refs if r.kind == "call"}
    assert (7, "TyperCommand", None) in calls  # beside the call of the local `cls` itself


def test_the_tests_reaching_the_maker_reach_what_the_class_runs(index_files, tmp_path):
    ws = index_files(tmp_path / "ws", FILES)
    rows = ws.store.cursor().execute(
        "SELECT src, dst FROM edges WHERE kind = 'CALLS' AND src_path = 'pkg/main.py'").fetchall()
    assert ("pkg/main.py::get_command", "pkg/core.py::TyperCommand") in rows
    # get_command makes a TyperCommand, whose `main` (the override of the abstract one) calls parse
    assert ws.impact("pkg/parser.py", depth=3)["tests"] == ["tests/test_app.py", "tests/test_parser.py"]
    ws.close()


def test_an_edit_of_the_values_equals_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    incremental = _edited_equals_fresh(tmp_path, root, "pkg/main.py",
                                       MAIN.replace("command_info.cls or TyperCommand", "command_info.cls"))
    assert not any(dst == "pkg/core.py::TyperCommand" and src == "pkg/main.py::get_command"
                   for src, dst, *_ in incremental["edges"])
