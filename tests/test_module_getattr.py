"""A module's `__getattr__` runs where code reads a name the module does not define. Found on
marshmallow, whose __init__.py holds one symbol, a `__getattr__` serving the deprecated
`__version__`: no test reached it, so test selection listed for that file the ten test files
asserting on the package (the file-level rule for a file no test reaches), where coverage says one,
test_version_attributes.py (`marshmallow.__version__`), runs it."""

from test_return_calls import _edit_and_compare, calls_at

from memory_lsp.index.extract import extract

INIT = (
    "from pkg.core import Schema\n"
    "def __getattr__(name):\n"
    "    if name == '__version__':\n"
    "        return '1.0'\n"
    "    raise AttributeError(name)\n"
)
FILES = {
    "pkg/__init__.py": INIT,
    "pkg/core.py": "__title__ = 'core'\nclass Schema:\n    def load(self):\n        return 1\n",
    "pkg/plain.py": "def f():\n    return 1\n",
    "tests/__init__.py": "",
    "tests/test_version.py": (
        "import pkg\n"                                  # 1
        "from pkg import core, plain\n"                 # 2
        "def test_version():\n"                         # 3
        "    assert pkg.__version__ == '1.0'\n"         # 4: served by __getattr__
        "def test_defined():\n"                         # 5
        "    assert core.__title__ == 'core'\n"         # 6: defined: no __getattr__ (it has none either)
        "    assert plain.__name__ == 'pkg.plain'\n"    # 7: a module without __getattr__
    ),
    "tests/test_core.py": "import pkg\nfrom pkg.core import Schema\ndef test_load():\n    assert pkg.Schema().load() == 1\n",
}


def test_a_dunder_read_from_a_name_is_a_read_row():
    facts = extract("t.py", (
        "import pkg\n"
        "class A:\n"
        "    def f(self, cls):\n"
        "        self.__class__\n"         # 4: self's: never a module's
        "        cls.__name__\n"           # 5
        "        pkg.__version__\n"        # 6
        "        pkg.__getattr__('x')\n"   # 7: a call reads the attribute first
        "        pkg.version\n"            # 8: not a dunder: not kept
    ).encode(), "python")
    rows = sorted((r.line, r.kind, r.name, r.receiver) for r in facts.refs if r.kind in ("read", "call"))
    assert rows == [(6, "read", "__version__", "pkg"), (7, "call", "__getattr__", "pkg"), (7, "read", "__getattr__", "pkg")]


def test_a_name_a_module_does_not_define_runs_its_getattr(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "tests/test_version.py", 4) == [("pkg/__init__.py::__getattr__", "module_attr")]
        assert calls_at(ws, "tests/test_version.py", 6) == calls_at(ws, "tests/test_version.py", 7) == []
        # the file's one symbol is reached: the tests that run it, not every test asserting on the package
        assert ws.impact("pkg/__init__.py", depth=3)["tests"] == ["tests/test_version.py"]
    finally:
        ws.close()


def test_a_getattr_added_is_followed(tmp_path, write_files):
    files = {**FILES, "pkg/__init__.py": "from pkg.core import Schema\n"}
    _edit_and_compare(tmp_path, write_files, "pkg/__init__.py", "from pkg.core import Schema\n", INIT,
                      ("tests/test_version.py", 4), [("pkg/__init__.py::__getattr__", "module_attr")],
                      strategies=("module_attr",), files=files)


def test_a_getattr_removed_is_followed(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/__init__.py", "def __getattr__(name):", "def _getattr(name):",
                      ("tests/test_version.py", 4), [], strategies=("module_attr",), files=FILES)


def test_the_name_defined_is_followed(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/__init__.py", "from pkg.core import Schema\n",
                      "from pkg.core import Schema\n__version__ = '2.0'\n",
                      ("tests/test_version.py", 4), [], strategies=("module_attr",), files=FILES)
