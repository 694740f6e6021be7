"""Test selection's dispatch rule (graph/tests_reach.py): a call through an attribute of self named
like nothing defined may run any file the caller's file imports (`self.config_class()`, a class held
in an attribute), unless a method of the class assigns that attribute (`self.converter = converter`,
attrs' Converter; click's callbacks): then the call runs what was handed in, and the files the
class's file imports are not selected through it (index/instance.py `attributes_set`); nor through
`self.__class__(...)`, which makes the class itself, nor through an attribute the class body sets to None
(`csrf_class = None`: what a subclass puts there runs)."""

from __future__ import annotations

FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def set_flag(on):\n    return on\n",  # imported by both, called by neither
    "pkg/conv.py": ("from pkg import config\n\n\nclass Converter:\n    def __init__(self, converter):\n"
                    "        self.converter = converter\n\n    def __call__(self, value):\n"
                    "        return self.converter(value)\n"),
    "pkg/hooks.py": ("from pkg import config\n\n\nclass Hooked:\n    def run(self, value):\n"
                     "        return self.hook(value)\n"),  # set from outside: may be what config.py offers
    "tests/test_conv.py": "from pkg.conv import Converter\n\n\ndef test_int():\n    assert Converter(int)('1') == 1\n",
    "pkg/copying.py": ("from pkg import config\n\n\nclass Copyable:\n    def copy(self):\n"
                       "        return self.__class__()\n"),  # the class itself: nothing config.py offers
    "tests/test_copy.py": "from pkg.copying import Copyable\n\n\ndef test_copy():\n    assert Copyable().copy()\n",
    "tests/test_hooks.py": ("from pkg.hooks import Hooked\n\n\ndef test_hook():\n    h = Hooked()\n    h.hook = str\n"
                            "    assert h.run(1) == '1'\n"),
}
UNASSIGNED = FILES["pkg/conv.py"].replace("self.converter = converter", "self._given = converter")


def _selected(ws, target: str) -> list[str]:
    ws.load_graph(prepare=True)
    return ws.impact(target, depth=3)["tests"]


def test_an_attribute_the_class_assigns_runs_what_was_handed_in(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert _selected(ws, "pkg/config.py") == ["tests/test_hooks.py"]
        assert _selected(ws, "pkg/conv.py") == ["tests/test_conv.py"]
        rows = ws.store.cursor().execute("SELECT path, src_class, name FROM refs WHERE kind = 'selfset'").fetchall()
        assert rows == [("pkg/conv.py", "Converter", "converter")]
    finally:
        ws.close()


def test_an_edit_that_stops_assigning_it_selects_as_a_fresh_index_does(tmp_path, index_files):
    ws = index_files(tmp_path / "edited", FILES)
    fresh = index_files(tmp_path / "fresh", {**FILES, "pkg/conv.py": UNASSIGNED})
    try:
        assert _selected(ws, "pkg/config.py") == ["tests/test_hooks.py"]
        ws.reindex({str(tmp_path / "edited/pkg/conv.py"): UNASSIGNED.encode()})
        assert _selected(ws, "pkg/config.py") == _selected(fresh, "pkg/config.py") == \
            ["tests/test_conv.py", "tests/test_hooks.py"]
        ws.reindex({str(tmp_path / "edited/pkg/conv.py"): FILES["pkg/conv.py"].encode()})
        assert _selected(ws, "pkg/config.py") == ["tests/test_hooks.py"]
    finally:
        ws.close()
        fresh.close()


META = {
    "pkg/__init__.py": "",
    "pkg/config.py": "def set_flag(on):\n    return on\n",
    "pkg/meta.py": ("from pkg import config\n\n\nclass Meta:\n    csrf_class = None\n\n    def build(self):\n"
                    "        if self.csrf_class is not None:\n            return self.csrf_class()\n"),
    "tests/test_meta.py": ("from pkg.meta import Meta\n\n\nclass Token:\n    pass\n\n\nclass MyMeta(Meta):\n"
                           "    csrf_class = Token\n\n\ndef test_build():\n    assert MyMeta().build()\n"),
    "tests/test_config.py": "from pkg.config import set_flag\n\n\ndef test_flag():\n    assert set_flag(True)\n",
}


def test_an_attribute_the_class_body_sets_to_none_runs_what_a_subclass_puts_there(tmp_path, index_files):
    # wtforms' `DefaultMeta.csrf_class = None`, `self.csrf_class()` in build_csrf: a test's Meta sets it; the dispatch
    # rule had listed the tests for every file meta.py imports (wtforms 199 -> 166 false pairs without it)
    ws = index_files(tmp_path, META)
    try:
        assert _selected(ws, "pkg/meta.py") == ["tests/test_meta.py"]
        assert _selected(ws, "pkg/config.py") == ["tests/test_config.py"]
        held = ws.store.cursor().execute("SELECT src, rtype FROM refs WHERE kind = 'heldtype' AND path = 'pkg/meta.py'")
        assert held.fetchall() == [("pkg/meta.py::Meta.csrf_class", "None")]
        calls = ws.store.cursor().execute("SELECT name, receiver FROM refs WHERE kind = 'call' AND path = 'pkg/meta.py'")
        assert calls.fetchall() == [("csrf_class", "self")]  # not rewritten into a call of `None`
    finally:
        ws.close()
