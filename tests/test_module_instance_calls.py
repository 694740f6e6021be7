"""A module variable holding an instance, called from another file, runs its class's `__call__`; and
`self.fmt = fmt` with a default `fmt=_format` makes `self.fmt(...)` call `_format`. Found on structlog:
`format_exc_info = ExceptionRenderer()` in processors.py, `format_exc_info(None, None, event)` in the
tests. Unresolved, the call fell to test selection's file-level rule: every file whose dependents
reached processors.py listed those tests (structlog: 124 false pairs, 101 with the call followed);
and ExceptionRenderer's `self.format_exception(exc_info)` runs `_frames._format_exception`, its
`__init__`'s default, which the tests reached only through that rule."""

from test_return_calls import _edit_and_compare, calls_at

from memory_lsp.index.extract import extract

FILES = {
    "pkg/__init__.py": "from pkg.proc import plain\n",
    "pkg/frames.py": "def format_exception(e):\n    return str(e)\n",
    "pkg/base.py": (
        "from pkg.frames import format_exception\n"              # 1
        "class Base:\n"                                          # 2
        "    def __call__(self, a):\n"                           # 3
        "        return self.fmt(a)\n"                           # 4: the default handed to __init__
        "    def __init__(self, fmt=format_exception):\n"        # 5
        "        self.fmt = fmt\n"                               # 6
        "class Renderer(Base):\n"                                # 7
        "    def render(self):\n"                                # 8
        "        return 1\n"                                     # 9
        "class Plain:\n"                                         # 10
        "    def go(self):\n"                                    # 11
        "        return 2\n"                                     # 12
    ),
    "pkg/proc.py": (
        "from pkg.base import Renderer, Plain\n"
        "format_exc = Renderer()\n"
        "plain = Plain()\n"
        "def make():\n"  # calling nothing, it runs nothing proc.py holds (graph/tests_through.py module_held)
        "    return 2\n"
    ),
    "tests/__init__.py": "",
    "tests/test_p.py": (
        "from pkg.proc import format_exc\n"                      # 1
        "from pkg import proc\n"                                 # 2
        "def test_called():\n"                                   # 3
        "    format_exc(1)\n"                                    # 4
        "def test_called_through_the_module():\n"                # 5
        "    proc.format_exc(2)\n"                               # 6
    ),
    # no `__call__`: what the call runs is not known (an unresolved call through pkg: the file-level rule)
    "tests/test_plain.py": "from pkg import plain\ndef test_plain():\n    plain(3)\n",
    "tests/test_other.py": "from pkg import proc\ndef test_go():\n    assert proc.make() == 2\n",
}


def test_a_module_variable_called_runs_its_classs_call(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        inherited = [("pkg/base.py::Base.__call__", "module_var_inherited")]
        assert calls_at(ws, "tests/test_p.py", 4) == inherited
        assert calls_at(ws, "tests/test_p.py", 6) == inherited
        assert calls_at(ws, "tests/test_plain.py", 3) == []
        assert ws.impact("pkg/base.py::Base.__call__", depth=3)["tests"] == ["tests/test_p.py"]
        # the default `__init__` stores runs where the stored attribute is called: the tests reach frames.py
        assert calls_at(ws, "pkg/base.py", 4) == [("pkg/frames.py::format_exception", "import")]
        # (test_plain.py by the file-level rule: frames.py's importers' importers reach pkg/__init__.py)
        assert ws.impact("pkg/frames.py", depth=3)["tests"] == ["tests/test_p.py", "tests/test_plain.py"]
        # no longer an unresolved call through proc.py (the file-level rule): what else proc.py holds lists no test_p.py
        assert ws.impact("pkg/proc.py::make", depth=3)["tests"] == ["tests/test_other.py", "tests/test_plain.py"]
    finally:
        ws.close()


def test_a_default_stored_on_self_is_what_the_attributes_call_calls():
    facts = extract("pkg/base.py", FILES["pkg/base.py"].encode(), "python")
    calls = sorted((r.line, r.name, r.receiver) for r in facts.refs if r.kind == "call" and r.line == 4)
    assert calls == [(4, "fmt", "self"), (4, "format_exception", None)]


def test_a_call_the_class_gains_is_followed(tmp_path, write_files):
    # Renderer given its own `__call__`: the tests' calls of the variable move to it, as a fresh index has them
    _edit_and_compare(tmp_path, write_files, "pkg/base.py", "    def render(self):\n",
                      "    def __call__(self, a):\n        return 0\n    def render(self):\n",
                      ("tests/test_p.py", 4), [("pkg/base.py::Renderer.__call__", "module_var")],
                      strategies=("module_var",), files=FILES)


def test_a_call_the_class_loses_is_followed(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/base.py", "    def __call__(self, a):\n",
                      "    def call(self, a):\n", ("tests/test_p.py", 4), [], strategies=("module_var",), files=FILES)


def test_a_variable_made_another_class_is_followed(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/proc.py", "plain = Plain()\n", "plain = Renderer()\n",
                      ("tests/test_plain.py", 3), [("pkg/base.py::Base.__call__", "module_var_inherited")],
                      strategies=("module_var",), files=FILES)


MADE = {
    "pkg/__init__.py": (
        "from pkg.md import Markdown\n"
        "from pkg.plugin import setup\n"
        "def create():\n"
        "    m = Markdown()\n"
        "    setup(m)\n"
        "    return m\n"
        "html = create()\n"
    ),
    "pkg/md.py": "class Markdown:\n    def __call__(self, s):\n        return s\n",
    "pkg/plugin.py": "def setup(m):\n    return m\n",
    "tests/__init__.py": "",
    "tests/test_html.py": "import pkg\ndef test_html():\n    assert pkg.html('x') == 'x'\n",
    "tests/test_plugin.py": "from pkg.plugin import setup\ndef test_setup():\n    assert setup(1) == 1\n",
}


def test_a_module_variable_called_runs_what_its_modules_code_gave_it(tmp_path, index_files):
    # mistune's `html = create_markdown(plugins=[...])` in its __init__, `mistune.html(text)` in the tests: the
    # instance runs with the plugins its module's code gave it (an unresolved call, the tests had reached them by
    # the file-level rule through __init__.py; resolved without this, recall fell 1.0 -> 0.865)
    ws = index_files(tmp_path, MADE)
    try:
        assert calls_at(ws, "tests/test_html.py", 3) == [("pkg/md.py::Markdown.__call__", "module_var")]
        assert ws.impact("pkg/md.py::Markdown.__call__", depth=3)["tests"] == ["tests/test_html.py"]
        # `create` (the module's own function) made `html`: what it calls runs for test_html.py too
        assert ws.impact("pkg/plugin.py::setup", depth=3)["tests"] == ["tests/test_html.py", "tests/test_plugin.py"]
    finally:
        ws.close()
