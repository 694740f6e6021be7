"""Test selection through what a module's own code holds: structlog's `_config.py` keeps its default
processors in a module-level list and makes its logger factory at import; they run in every test that
logs through `get_logger`, though no function of the package calls them by name (graph/tests_through.py,
index/aliases.py `held_values`)."""

from __future__ import annotations

import tree_sitter_python
from tree_sitter import Language, Parser

from memory_lsp.index import aliases
from test_protocol_calls import STRUCTURES

CONFIGURED = {
    "pkg/__init__.py": "",
    "pkg/processors.py": "def add_level(event):\n    event['level'] = 'info'\n    return event\n",
    "pkg/render.py": "class Renderer:\n    def __call__(self, event):\n        return str(event)\n",
    "pkg/factory.py": "class Printer:\n    def msg(self, text):\n        print(text)\n"
                      "class PrinterFactory:\n    def __call__(self):\n        return Printer()\n",
    "pkg/config.py": (
        "from pkg.processors import add_level\n"
        "from pkg.render import Renderer\n"
        "from pkg.factory import PrinterFactory\n"
        "DEFAULTS = [add_level, Renderer()]\n"
        "FACTORY = PrinterFactory()\n"
        "\n\n"  # (a call on the line right above a definition would be taken for its decorator)
        "class Config:\n"
        "    processors = DEFAULTS\n"
        "    factory = FACTORY\n"
        "CONFIG = Config()\n"
        "def get_logger():\n"
        "    return BoundLogger(CONFIG.factory(), CONFIG.processors)\n"
        "class BoundLogger:\n"
        "    def __init__(self, out, processors):\n"
        "        self.out, self.processors = out, processors\n"
        "    def info(self, text):\n"
        "        event = {'event': text}\n"
        "        for p in self.processors:\n"
        "            event = p(event)\n"
        "        self.out.msg(event)\n"
    ),
    "pkg/other.py": "def plain():\n    return 1\n",
    "tests/__init__.py": "",
    "tests/test_log.py": "from pkg.config import get_logger\ndef test_info():\n    get_logger().info('hi')\n",
    "tests/test_other.py": "from pkg.other import plain\ndef test_plain():\n    assert plain() == 1\n",
    # each held file has a test of its own: some test runs it, so no file-level rule stands in for the step
    "tests/test_parts.py": (
        "from pkg.processors import add_level\nfrom pkg.render import Renderer\nfrom pkg.factory import PrinterFactory\n"
        "def test_parts():\n    assert Renderer()(add_level({}))\n    PrinterFactory()().msg('x')\n"
    ),
}


def test_what_a_module_level_value_holds_runs_in_the_tests_reaching_the_module(tmp_path, index_files):
    ws = index_files(tmp_path, CONFIGURED)
    try:
        for held in ("pkg/processors.py", "pkg/render.py", "pkg/factory.py"):
            assert ws.impact(held, depth=3)["tests"] == ["tests/test_log.py", "tests/test_parts.py"], held
        assert ws.impact("pkg/other.py", depth=3)["tests"] == ["tests/test_other.py"]
        # the held function is the module's reference: a CALLS edge from the file, resolved through its import
        rows = ws.store.cursor().execute(
            "SELECT src, dst, line FROM edges WHERE kind = 'CALLS' AND src = 'pkg/config.py' ORDER BY line, dst").fetchall()
        assert rows == [("pkg/config.py", "pkg/processors.py::add_level", 4),
                        ("pkg/config.py", "pkg/render.py::Renderer", 4),
                        ("pkg/config.py", "pkg/factory.py::PrinterFactory", 5),
                        ("pkg/config.py", "pkg/config.py::Config", 11)]
        # so impact lists the module as a dependent, and not again as a use without a call
        answer = ws.impact("pkg/processors.py::add_level", depth=3)
        assert [(d["path"], d["symbol"], d["lines"]) for d in answer["dependents"] if d["path"] == "pkg/config.py"] \
            == [("pkg/config.py", None, [4])]
        assert answer["reads"] == [] and answer["reads_total"] == 0
    finally:
        ws.close()


def _held(source: str, known: set[str]) -> list[tuple]:
    root = Parser(Language(tree_sitter_python.language())).parse(source.encode()).root_node
    assignments = [n.named_children[0] for n in root.named_children
                   if n.type == "expression_statement" and n.named_children[0].type == "assignment"]
    return [(name, receiver, line) for _, _, name, receiver, line, _ in sorted(aliases.held_values(assignments, known))]


def test_held_values_are_the_known_names_inside_containers_and_arguments():
    source = (
        "s = attrs\n"                                    # an alias: an import row, no reference
        "PROCS = [merge, mod.render, 1, 'add', local]\n"   # `local` is no import nor definition here
        "HANDLERS: dict = {'a': on_a, on_b: 'key'}\n"      # a dict's values, not its keys
        "wrapped = partial(run, key=on_a)\n"             # an alias of run (aliases.py): its calls are run's
        "hooks = register(run, key=on_a)\n"             # a call's arguments (the call is a reference already)
        "pair = first = (merge, Helper.__init__, CONST)\n"  # no dunder, no constant
        "doubled = [f(x) for x in merge]\n"              # a comprehension runs now: nothing held
    )
    known = {"attrs", "merge", "mod", "on_a", "on_b", "partial", "register", "run", "Helper", "CONST", "f"}
    assert _held(source, known) == [
        ("merge", None, 2), ("render", "mod", 2),
        ("on_a", None, 3),
        ("run", None, 5), ("on_a", None, 5),
        ("merge", None, 6),
    ]


# packaging's shape (tests/test_protocol_calls.py), its class given a method another module holds
PROTOCOL_ONLY = {
    **STRUCTURES,
    "pkg/structures.py": STRUCTURES["pkg/structures.py"].replace(
        "Infinity = InfinityType()", "    def describe(self):\n        return 'the largest'\nInfinity = InfinityType()"),
    "pkg/names.py": "from pkg.structures import InfinityType\n\nDESCRIBERS = [InfinityType.describe]\n\n"
                    "def describers():\n    return DESCRIBERS\n",
    "tests/test_names.py": "from pkg.names import describers\ndef test_describers():\n    assert describers()\n",
}


def test_a_held_value_only_adds_tests(tmp_path, index_files):
    # test_version.py runs structures.py's `__lt__` unseen (a sort key's comparison), so the file keeps the
    # file-level rule while its tests reach only protocol methods (tests/test_protocol_calls.py); names.py's
    # held `InfinityType.describe` makes a test reach another method of it: that adds test_names.py and
    # drops nothing
    ws = index_files(tmp_path, PROTOCOL_ONLY)
    try:
        assert ws.impact("pkg/structures.py", depth=3)["tests"] == \
            ["tests/test_names.py", "tests/test_structures.py", "tests/test_version.py"]
    finally:
        ws.close()


def test_a_function_making_no_call_runs_nothing_its_module_holds(tmp_path, index_files):
    """structlog's `reset_defaults` assigns the defaults and calls nothing; a conftest's autouse fixture
    calls it before every test, which listed every test file for every default processor's file."""
    files = dict(CONFIGURED)
    files["pkg/config.py"] += "def reset():\n    Config.processors = DEFAULTS\n"
    files["tests/test_reset.py"] = "from pkg.config import reset\ndef test_reset():\n    reset()\n"
    ws = index_files(tmp_path, files)
    try:
        for held in ("pkg/processors.py", "pkg/render.py", "pkg/factory.py"):
            assert ws.impact(held, depth=3)["tests"] == ["tests/test_log.py", "tests/test_parts.py"], held
        assert ws.impact("pkg/config.py", depth=3)["tests"] == ["tests/test_log.py", "tests/test_reset.py"]
    finally:
        ws.close()


def test_a_stub_holds_nothing_and_each_value_steps_once(tmp_path, index_files):
    """A stub's module-level code never runs (numpy's `__init__.pyi` made 23,016 steps at 11,282 files); a
    value held on two lines of a file steps once from each of its symbols."""
    import numpy as np

    from memory_lsp.graph import tests_reach, tests_through

    files = dict(CONFIGURED)
    files["pkg/config.py"] += "AGAIN = [add_level]\n"
    # (and its line right above a definition takes add_level for no decorator's)
    files["pkg/typed.pyi"] = "from pkg.processors import add_level\nHELD = [add_level]\ndef f() -> None: ...\n"
    ws = index_files(tmp_path, files)
    try:
        g = ws.load_graph()
        rows = np.repeat(np.arange(g.n, dtype=np.int32), np.diff(g.step_ptr).astype(np.int64))
        kind = g.e["kind"][g.step_edge]
        guessed = np.isin(g.e["strategy"][g.step_edge], [g.strategies.index(s) for s in tests_reach.GUESSES
                                                          if s in g.strategies])
        callee, caller = tests_through.module_held(g, rows, kind, guessed, (g.unresolved_calls or {}).get("silent"))
        steps = sorted((g.names[c], g.names[s]) for c, s in zip(callee.tolist(), caller.tolist()))
    finally:
        ws.close()
    assert not [s for s in steps if s[1].startswith("pkg/typed.pyi")]
    assert len(steps) == len(set(steps))
    assert ("pkg/processors.py::add_level", "pkg/config.py::get_logger") in steps


CONSTANTS = {
    "pkg/__init__.py": "from pkg.utils import lorem, plain\n",
    "pkg/constants.py": "WORDS = 'a b c'\n",  # no def or class: its lines run where it is first imported
    "pkg/settings.py": "DEBUG = False\n",
    "pkg/utils.py": (
        "from pkg.settings import DEBUG\n"
        "def lorem():\n"
        "    from pkg.constants import WORDS\n"  # imported only when called: in the test that calls it first
        "    return WORDS.split()\n"
        "def plain():\n"
        "    return DEBUG\n"
    ),
    "tests/__init__.py": "",
    "tests/test_utils.py": "from pkg.utils import lorem\ndef test_lorem():\n    assert lorem()\n",
    "tests/test_plain.py": "import pkg\nfrom pkg import settings\ndef test_plain():\n    assert pkg.plain() is settings.DEBUG\n",
}


def test_a_file_of_constants_runs_where_a_function_imports_it(tmp_path, index_files):
    # jinja2's constants.py, imported inside `generate_lorem_ipsum`: coverage says only test_utils.py runs it; the
    # file-level rule for a file no test reaches had listed every test walked to or asserting on it (21 test files)
    ws = index_files(tmp_path, CONSTANTS)
    try:
        assert ws.impact("pkg/constants.py", depth=3)["tests"] == ["tests/test_utils.py"]
        # imported at module level only: its lines run at collection, in no test
        assert ws.impact("pkg/settings.py", depth=3)["tests"] == []
    finally:
        ws.close()


DECLARED = {
    **CONFIGURED,
    "pkg/config.py": CONFIGURED["pkg/config.py"].replace("    factory = FACTORY\n",
                                                         "    factory = FACTORY\n    context_class = dict\n"),
    "pkg/run.py": "def run_all(processors, event):\n    for p in processors:\n        event = p(event)\n    return event\n",
    # reads the module variable's attribute that holds the default processors, and runs them
    "tests/test_direct.py": "from pkg.config import CONFIG\nfrom pkg.run import run_all\n"
                            "def test_direct():\n    assert run_all(CONFIG.processors, {})\n",
    # calls the attribute holding `dict`: no code of config.py, nor what config.py's code holds
    "tests/test_context.py": "from pkg.config import CONFIG\ndef test_context():\n    assert CONFIG.context_class() == {}\n",
}


def test_an_attribute_a_module_variables_class_declares_holds_what_the_module_put_there(tmp_path, index_files):
    """`_CONFIG.default_processors` read in a test (structlog) holds what config.py's code made (a
    held row, store/test_reads.py `_HELD_ATTR`); `_CONFIG.default_context_class()` runs what the
    attribute holds, no code of config.py: it was a blind call through config.py, which selected the
    test for every file whose dependents reach config.py."""
    ws = index_files(tmp_path, DECLARED)
    try:
        for held in ("pkg/processors.py", "pkg/render.py"):
            assert ws.impact(held, depth=3)["tests"] == ["tests/test_direct.py", "tests/test_log.py",
                                                         "tests/test_parts.py"], held
        for source in ("pkg/processors.py", "pkg/factory.py"):  # (config.py keeps it: an importer making no call)
            assert "tests/test_context.py" not in ws.impact(source, depth=3)["tests"], source
    finally:
        ws.close()
