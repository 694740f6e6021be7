"""A method no call names runs where its name is read (graph/tests_read.py, index/reads.py):
pinned on a small workspace indexed for real. Making a Request runs a property only when its
name is read by what the test runs, holding an instance (`self.x` in the class or its family);
a property nothing reads still runs for every maker of its class.
"""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.workspace import Workspace

FILES = {  # one helper per property, so the helper says which tests ran it
    "pkg/__init__.py": "",
    "pkg/helpers.py": "".join(f"def {h}():\n    return 1\n\n\n" for h in
                              ("read_helper", "unread_helper", "self_helper", "handed_helper", "shared_helper",
                               "override_helper")),
    "pkg/req.py": ("from pkg.helpers import handed_helper, override_helper, read_helper, self_helper, shared_helper, unread_helper\n\n\n"
                   "class Request:\n    def __init__(self):\n        self.n = 0\n\n"
                   "    @property\n    def accept(self):\n        return read_helper()\n\n"
                   "    @property\n    def never_read(self):\n        return unread_helper()\n\n"
                   "    @property\n    def via_self(self):\n        return self_helper()\n\n"
                   "    def describe(self):\n        return self.via_self\n\n"
                   "    def on_close(self):\n        return handed_helper()\n\n"
                   "    def hooks(self):\n        return [self.on_close]\n\n"
                   "    @property\n    def shared(self):\n        return shared_helper()\n\n"
                   "    @property\n    def overridden(self):\n        return 0\n\n\n"
                   "class Special(Request):\n    def more(self):\n        return self.accept\n\n"
                   "    @property\n    def overridden(self):\n        return override_helper()\n\n\n"
                   "def peek():\n    return Special().overridden\n\n\n"
                   "class Box:\n    @property\n    def shared(self):\n        return 0\n\n\n"
                   "def sizes(b):\n    return Request().shared\n"),
    # another class's `self.accept`: its own attribute, not Request's property
    "pkg/other.py": "class Other:\n    def __init__(self):\n        self.accept = 1\n\n    def m(self):\n        return self.accept\n",
    "pkg/factory.py": "from pkg.req import Request\n\n\ndef make():\n    return Request()\n",
    "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef thing():\n    return object()\n",
    "tests/test_make.py": "from pkg.req import Request\n\n\ndef test_make():\n    assert Request().n == 0\n",
    "tests/test_read.py": "from pkg.req import Request\n\n\ndef test_read():\n    r = Request()\n    assert r.accept\n",
    "tests/test_describe.py": "from pkg.req import Request\n\n\ndef test_describe():\n    assert Request().describe()\n",
    "tests/test_hooks.py": "from pkg.req import Request\n\n\ndef test_hooks():\n    assert Request().hooks()\n",
    "tests/test_other.py": "from pkg.other import Other\n\n\ndef test_other():\n    assert Other().m()\n",
    "tests/test_special.py": "from pkg.req import Special\n\n\ndef test_special():\n    assert Special().more()\n",
    "tests/test_untyped.py": "def test_untyped(thing):\n    assert thing.accept\n",
    "tests/test_made.py": ("from pkg.factory import make\n\n\n"
                           "def test_made():\n    assert make().accept\n"),
}


def selected_for(ws, helper: str) -> list[str]:
    return ws.impact(f"pkg/helpers.py::{helper}", depth=3)["tests"]


def test_a_property_runs_where_it_is_read_not_for_every_maker(ws):
    # test_make makes a Request and reads no `accept`; test_other's `self.accept` is Other's own;
    # test_untyped holds no Request (a fixture's object()); a subclass's `self.accept` is
    # Request's (test_special), and so is a read of an instance made a call away (test_made)
    assert selected_for(ws, "read_helper") == ["tests/test_made.py", "tests/test_read.py", "tests/test_special.py"]


def test_a_property_read_from_self_runs_with_the_method_reading_it(ws):
    assert selected_for(ws, "self_helper") == ["tests/test_describe.py"]


def test_a_method_handed_on_runs_with_the_code_handing_it(ws):
    assert selected_for(ws, "handed_helper") == ["tests/test_hooks.py"]


def test_a_name_another_class_has_too_runs_for_every_maker(ws):
    # `Request().shared` may read Box's `shared` as well as Request's: nothing types a read, so
    # Request's makers keep it
    assert "tests/test_make.py" in selected_for(ws, "shared_helper")


def test_an_override_runs_for_its_class_makers(ws):
    # Special.overridden overrides Request's: it runs for an instance of Special, whose makers keep
    # it (`peek`, which no test runs, reads it)
    assert selected_for(ws, "override_helper") == ["tests/test_special.py"]


def test_a_property_nothing_reads_runs_for_every_maker(ws):
    # a read the text does not show (getattr, a template) may run it: its class's makers keep it
    assert selected_for(ws, "unread_helper") == ["tests/test_describe.py", "tests/test_hooks.py", "tests/test_made.py",
                                                 "tests/test_make.py", "tests/test_read.py", "tests/test_special.py"]


def test_reads_are_found_in_functions_and_classes_not_at_module_level():
    facts = extract("t.py", (
        "import os.path\n"
        "top = os.sep\n"                          # 2: module level: runs at import, no reader
        "class A:\n"
        "    size = other.width\n"                # 4: the class body reads
        "    def f(self):\n"
        "        a = self.prop + obj.thing\n"     # 6
        "        b = obj.called()\n"              # 7: a call, no read
        "        c = self.__dict__, x.Name\n"     # 8: no dunder, no capitalised name
        "        return myself.q, cls.t, f().r\n"  # 9: `myself` is no self
        "        self.prop\n"                     # 10: the same read again: one row
    ).encode(), "python")
    rows = sorted((r.line, r.src, r.src_class, r.name, r.receiver) for r in facts.refs if r.kind == "attr")
    assert rows == [(4, "A", "A", "width", None), (6, "A.f", "A", "prop", "self"), (6, "A.f", "A", "thing", None),
                    (9, "A.f", "A", "q", None), (9, "A.f", "A", "r", None), (9, "A.f", "A", "t", "cls")]


def test_prose_comments_imports_and_quoted_names_are_no_reads():
    facts = extract("t.py", (
        '"""The module: werkzeug.wrappers."""\n'
        "class A:\n"
        '    """A class using os.sep."""\n'
        "    def f(self):\n"
        '        """Reads x.doc_name."""\n'
        "        from pkg.sub import thing\n"      # 6: an import's line
        "        a = x.real  # and y.commented\n"  # 7: after the comment: none
        "        b = 'pkg.quoted' + f'{y.fmt}'\n"  # 8: a quoted dotted name; an f-string's read is one
        "        c = p.one + q.two  # r.three\n"  # 9: two reads, then a comment
        "        return from_.four\n"             # 10: `from_` starts no import
    ).encode(), "python")
    rows = sorted((r.line, r.name) for r in facts.refs if r.kind == "attr")
    assert rows == [(7, "real"), (8, "fmt"), (9, "one"), (9, "two"), (10, "four")]


def test_a_read_typed_where_only_lines_move_is_followed(tmp_path, index_files):
    """An editor's run where the edit adds a read and no call (the file's edges only move:
    store/moved_lines.py restores them): the graph that follows reads the file's rows again,
    and its selection equals a fresh index's."""
    ws = index_files(tmp_path / "ws", FILES)
    try:
        ws.load_graph(prepare=True)
        assert "tests/test_make.py" not in selected_for(ws, "read_helper")
        # a read, no call more: `Request.accept` in a test that makes a Request
        text = FILES["tests/test_make.py"].replace("assert Request().n == 0", "assert Request().n == 0, Request.accept")
        (tmp_path / "ws/tests/test_make.py").write_text(text)
        ws.reindex({str(tmp_path / "ws/tests/test_make.py"): text.encode()})
        graph = ws.load_graph(prepare=True)
        assert graph.followed
        got = selected_for(ws, "read_helper")
        assert "tests/test_make.py" in got
    finally:
        ws.close()
    fresh = Workspace.open(tmp_path / "ws", db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    try:
        assert selected_for(fresh, "read_helper") == got
    finally:
        fresh.close()
