"""Calls on what `super().m()` returns, and on what a function returns when that is a type from
outside the workspace: typed, never a workspace method guessed by name (issue 12 class B: click's
`info_dict = super().to_info_dict(ctx); info_dict.update(...)` was linked to `ProgressBar.update`,
`binary_file = _find_binary_writer(file); binary_file.write(...)` to `HelpFormatter.write`)."""

import test_return_calls as return_calls
from test_return_calls import calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/bar.py": "class Progress:\n    def update(self, n):\n        pass\n    def write(self, b):\n        pass\n",
    "pkg/base.py": (
        "import typing as t\n"
        "from pkg.bar import Progress\n"
        "class Outer:\n"
        "    def info(self) -> t.Dict[str, int]:\n"
        "        return {}\n"
        "    def make(self) -> 'Progress':\n"
        "        return Progress()\n"
    ),
    "pkg/core.py": (
        "import typing as t\n"            # 1
        "from pkg.base import Outer\n"    # 2
        "class Base:\n"                   # 3
        "    def info(self) -> t.Dict[str, int]:\n"
        "        return {}\n"             # 5
        "class Cmd(Base):\n"              # 6
        "    def info(self):\n"           # 7
        "        d = super().info()\n"    # 8
        "        d.update(a=1)\n"         # 9
        "        return d\n"              # 10
        "class Sub(Outer):\n"             # 11
        "    def info(self):\n"           # 12
        "        d = super().info()\n"    # 13
        "        d.update(b=2)\n"         # 14
        "        m = super(Sub, self).make()\n"  # 15
        "        m.update(3)\n"           # 16
    ),
    "pkg/comp.py": (
        "import typing as t\n"
        "from io import BytesIO\n"
        "def find_writer(x) -> t.Optional[t.BinaryIO]:\n"
        "    return None\n"
        "def buf() -> BytesIO:\n"
        "    return BytesIO()\n"
    ),
    "pkg/use.py": (
        "from pkg.comp import find_writer, buf\n"
        "def echo(x):\n"
        "    w = find_writer(x)\n"
        "    w.write(b'')\n"              # 4
        "    b = buf()\n"
        "    b.write(b'')\n"              # 6
    ),
}


def test_what_super_returns_types_the_receiver(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    # a base in the same file returning a dict: Python's own, no workspace `update`
    assert calls_at(ws, "pkg/core.py", 9) == []
    # a base in another file: its method's return type, through the mark `->Outer.info`
    assert calls_at(ws, "pkg/core.py", 14) == []
    assert calls_at(ws, "pkg/core.py", 16) == [("pkg/bar.py::Progress.update", "returned")]
    ws.close()


def test_a_function_returning_an_outside_type_is_never_guessed_on(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/use.py", 4) == []  # `-> t.Optional[t.BinaryIO]`, typing imported as t
    assert calls_at(ws, "pkg/use.py", 6) == []  # `-> BytesIO`, from io
    ws.close()


def _edit_and_compare(tmp_path, write_files, path, old, new, site, want):
    return_calls._edit_and_compare(tmp_path, write_files, path, old, new, site, want, strategies=("",), files=FILES)


def test_an_outside_type_imported_from_the_workspace_instead_retypes_the_callers(tmp_path, write_files):
    # only comp.py's import changed: use.py's call is resolved again
    _edit_and_compare(tmp_path, write_files, "pkg/comp.py", "from io import BytesIO", "from pkg.bar import Progress as BytesIO",
                      ("pkg/use.py", 6), [("pkg/bar.py::Progress.write", "returned")])


def test_a_base_method_returning_another_type_retypes_what_super_gave(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/base.py", "def info(self) -> t.Dict[str, int]:",
                      "def info(self) -> 'Progress':", ("pkg/core.py", 14), [("pkg/bar.py::Progress.update", "returned")])


def test_what_a_standard_library_factory_makes_is_never_guessed_on(tmp_path, index_files):
    # werkzeug's `_parameter_key_re = re.compile(...)`, then `_parameter_key_re.match(rest)`: 14 guesses
    # at its routing's `MapAdapter.match`; `log = logging.getLogger(...)`, then `log.info(...)`; what a
    # method of such a class returns, bound by a walrus too
    ws = index_files(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/routing.py": ("class Map:\n    def match(self, path):\n        pass\n    def info(self):\n        pass\n"
                           "    def start(self):\n        pass\n"),
        "pkg/http.py": (
            "import logging\n"
            "import re\n"
            "_key_re = re.compile(r'[a-z]+')\n"
            "log = logging.getLogger(__name__)\n"
            "def parse(rest):\n"
            "    found = _key_re.match(rest)\n"   # 6
            "    log.info('parsed')\n"            # 7
            "    pattern = re.compile(rest)\n"
            "    if (m := pattern.match('x')) is not None:\n"  # 9: a walrus binds as an assignment does
            "        m.start()\n"  # 10: what Pattern.match returns, Python's
            "    return found\n"
        ),
        "pkg/other.py": "def route(m):\n    return m.match('/')\n",  # untyped: still a guess
    })
    try:
        assert calls_at(ws, "pkg/http.py", 6) == []
        assert calls_at(ws, "pkg/http.py", 7) == []
        assert calls_at(ws, "pkg/http.py", 9) == []
        assert calls_at(ws, "pkg/http.py", 10) == []
        assert calls_at(ws, "pkg/other.py", 2) == [("pkg/routing.py::Map.match", "name_unique")]
    finally:
        ws.close()
