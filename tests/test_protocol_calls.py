"""Python's builtins that run a method of their argument: `bool(missing)` runs `_Missing.__bool__`,
`str(field)` runs `Field.__str__`. Found on marshmallow, whose test_error_store.py runs utils.py
only through `bool(missing)` (`missing = _Missing()` there): test selection missed the pair."""

from test_instance_calls import calls_at
from test_return_calls import _edit_and_compare

from memory_lsp.index.extract import extract
from memory_lsp.store import test_reads

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": (
        "class _Missing:\n"
        "    def __bool__(self):\n"
        "        return False\n"
        "class _Present:\n"
        "    def __bool__(self):\n"
        "        return True\n"
        "missing = _Missing()\n"
        "def helper():\n"
        "    return 1\n"
    ),
    "pkg/fields.py": (
        "class Field:\n"
        "    def __str__(self):\n"
        "        return 'field'\n"
        "class Other:\n"
        "    def __str__(self):\n"
        "        return 'other'\n"
    ),
    "tests/__init__.py": "",
    "tests/test_missing.py": (
        "from pkg.utils import missing, helper\n"   # 1
        "def test_missing_is_falsy():\n"            # 2
        "    assert bool(missing) is False\n"       # 3: the class of another file's variable
        "def test_helper():\n"                      # 4
        "    assert str(helper)\n"                  # 5: a function's: no guess at Field's or Other's __str__
    ),
    "tests/test_fields.py": (
        "from pkg.fields import Field\n"            # 1
        "def test_field(x):\n"                      # 2
        "    f = Field()\n"                         # 3
        "    assert str(f) == 'field'\n"            # 4: typed here
        "    assert str(x) != ''\n"                 # 5: unknown: no guess at Field's or Other's
        "    assert str(Field) != ''\n"             # 6: a class: what its metaclass says, not Field.__str__
        "    assert str(f, 'utf-8')\n"              # 7: not its one argument
    ),
}


def test_a_builtin_runs_its_arguments_protocol_method(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "tests/test_missing.py", 3) == [("pkg/utils.py::_Missing.__bool__", "module_var")]
        assert calls_at(ws, "tests/test_fields.py", 4) == [("pkg/fields.py::Field.__str__", "typed")]
        for line in (5, 6, 7):
            assert calls_at(ws, "tests/test_fields.py", line) == []
        assert calls_at(ws, "tests/test_missing.py", 5) == []
        # unresolved, it is no call through the import of utils.py that would select the test for all it reaches
        assert "tests/test_missing.py::test_helper" not in list(test_reads.unresolved_test_calls(ws.store.cursor())["src"])
        assert ws.impact("pkg/utils.py", depth=3)["tests"] == ["tests/test_missing.py"]
    finally:
        ws.close()


def test_a_module_variable_made_another_class_is_followed(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/utils.py", "missing = _Missing()", "missing = _Present()",
                      ("tests/test_missing.py", 3), [("pkg/utils.py::_Present.__bool__", "module_var")],
                      strategies=("module_var",), files=FILES)


def test_only_a_typed_or_imported_argument_makes_the_call():
    facts = extract("m.py", (
        "from pkg.utils import missing\n"
        "def f(x, f: 'Field'):\n"
        "    bool(missing)\n"        # 3: imported: the graph finds its class
        "    str(f)\n"               # 4
        "    len(x)\n"               # 5: a parameter the file does not type
        "    len([1])\n"             # 6: Python's own
        "    repr(f.name)\n"         # 7: an attribute of a typed value
    ).encode(), "python")
    got = sorted((r.line, r.name, r.receiver, r.rtype) for r in facts.refs if r.name.startswith("__"))
    assert got == [(3, "__bool__", "missing", None), (4, "__str__", "f", "Field"), (7, "__repr__", "f.name", "->Field.name")]


STRUCTURES = {
    "pkg/__init__.py": "",
    "pkg/structures.py": (
        "class InfinityType:\n"
        "    def __repr__(self):\n"
        "        return 'Infinity'\n"
        "    def __lt__(self, other):\n"
        "        return False\n"
        "Infinity = InfinityType()\n"
    ),
    "pkg/version.py": (
        "from pkg.structures import Infinity\n"
        "class Version:\n"
        "    def __init__(self, v):\n"
        "        self._key = (v, Infinity)\n"
        "    def __lt__(self, other):\n"
        "        return self._key < other._key\n"
    ),
    "tests/__init__.py": "",
    "tests/test_version.py": "from pkg.version import Version\ndef test_sort():\n    assert sorted([Version(2), Version(1)])\n",
    "tests/test_structures.py": "from pkg.structures import Infinity\ndef test_repr():\n    assert repr(Infinity) == 'Infinity'\n",
}


def test_a_file_whose_tests_reach_only_protocol_methods_keeps_the_file_level_rule(tmp_path, index_files):
    # packaging: tests reach _structures.py's `__repr__` and `__hash__` through `repr(Infinity)`, but
    # test_version.py runs its `__lt__` through the comparisons of a sort key, which the graph does not see
    ws = index_files(tmp_path, STRUCTURES)
    try:
        assert calls_at(ws, "tests/test_structures.py", 3) == [("pkg/structures.py::InfinityType.__repr__", "module_var")]
        assert ws.impact("pkg/structures.py", depth=3)["tests"] == ["tests/test_structures.py", "tests/test_version.py"]
    finally:
        ws.close()
