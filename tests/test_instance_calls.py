"""A call of an instance runs its class's `__call__`, and a function returning a class makes one
when its result is called. Found on webob, a package never developed against: its tests say
`cls = self._getTargetClass()` (a method that returns `SendRequest` under its own import), then
`inst = cls(**kw)` and `inst(environ, start_response)`. With neither followed, test selection
missed test_client.py for six files that coverage says it runs, and what breaks when
`SendRequest.__call__` changes listed no test."""

from test_return_calls import _edit_and_compare, calls_at

from memory_lsp.index.extract import extract

FILES = {
    "pkg/__init__.py": "",
    "pkg/client.py": (
        "class SendRequest:\n"                                   # 1
        "    def __call__(self, environ, start_response):\n"     # 2
        "        return [environ]\n"                             # 3
        "    def close(self):\n"                                 # 4
        "        pass\n"                                         # 5
        "class Other:\n"                                         # 6
        "    def close(self):\n"                                 # 7
        "        pass\n"                                         # 8
    ),
    "pkg/app.py": (
        "from pkg.client import SendRequest, Other\n"            # 1
        "def serve(environ, app: SendRequest, cls: type[SendRequest]):\n"  # 2
        "    app(environ, None)\n"                               # 3: a parameter typed as an instance
        "    made = cls()\n"                                     # 4: a class held: it makes one
        "    handler = SendRequest()\n"                          # 5
        "    handler(environ, None)\n"                           # 6
        "    data = {}\n"                                        # 7
        "    data(environ)\n"                                    # 8: Python's own: nothing
        "def klass():\n"                                         # 9
        "    return Other\n"                                     # 10
        "def make():\n"                                          # 11
        "    c = klass()\n"                                      # 12
        "    return c()\n"                                       # 13
        "def use():\n"                                           # 14
        "    make().close()\n"                                   # 15
    ),
    "pkg/weak.py": "import weakref\ndef f(app):\n    weak = weakref.ref(app)\n    weak()\n",  # 4: outside's: no guess
    "tests/__init__.py": "",
    "tests/test_client.py": (
        "class TestSendRequest:\n"                               # 1
        "    def _getTargetClass(self):\n"                       # 2
        "        from pkg.client import SendRequest\n"           # 3
        "        return SendRequest\n"                           # 4
        "    def _makeOne(self, **kw):\n"                        # 5
        "        cls = self._getTargetClass()\n"                 # 6
        "        return cls(**kw)\n"                             # 7
        "    def _makeTwo(self):\n"                              # 8
        "        return self._getTargetClass()()\n"              # 9
        "    def test_call(self):\n"                             # 10
        "        inst = self._makeOne()\n"                       # 11
        "        assert inst({}, None) == [{}]\n"                # 12
        "    def test_close(self):\n"                            # 13
        "        self._makeTwo().close()\n"                      # 14
    ),
    "tests/test_other.py": "def test_nothing():\n    assert True\n",
}


def test_an_instance_called_runs_its_classs_call(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        call = [("pkg/client.py::SendRequest.__call__", "typed")]
        assert calls_at(ws, "pkg/app.py", 3) == call
        assert calls_at(ws, "pkg/app.py", 6) == call
        assert calls_at(ws, "pkg/app.py", 4) == [("pkg/client.py::SendRequest", "import")]  # no __call__: a class made
        assert calls_at(ws, "pkg/app.py", 8) == []
        assert calls_at(ws, "pkg/weak.py", 4) == []  # weakref.ref's `__call__`, not SendRequest's by its name
        assert calls_at(ws, "tests/test_client.py", 12) == call
        assert ws.impact("pkg/client.py::SendRequest.__call__", depth=3)["tests"] == ["tests/test_client.py"]
    finally:
        ws.close()


def test_a_function_returning_a_class_makes_one_when_its_result_is_called(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        # `c = klass()`, `return c()`: make() returns an Other, whose close() use() calls
        assert [c[0] for c in calls_at(ws, "pkg/app.py", 13)] == ["pkg/client.py::Other"]
        assert calls_at(ws, "pkg/app.py", 15) == [("pkg/app.py::make", "same_file"), ("pkg/client.py::Other.close", "typed")]
        # the class under the getter's own import, read from the test that calls the getter's caller
        assert [c[0] for c in calls_at(ws, "tests/test_client.py", 7)] == ["pkg/client.py::SendRequest"]
        assert ("pkg/client.py::SendRequest.close", "typed") in calls_at(ws, "tests/test_client.py", 14)
        assert ws.impact("pkg/client.py::SendRequest.close", depth=3)["tests"] == ["tests/test_client.py"]
    finally:
        ws.close()


def test_a_getter_returning_another_class_is_followed(tmp_path, write_files):
    # the getter edited to return another class: an editor's run equals a fresh index
    _edit_and_compare(tmp_path, write_files, "pkg/app.py", "    return Other\n", "    return SendRequest\n",
                      ("pkg/app.py", 15), [("pkg/client.py::SendRequest.close", "typed")], strategies=("typed",), files=FILES)


def test_a_class_held_or_made_by_a_factory_is_made_not_called():
    # werkzeug's `cls: type[ds.MultiDict[str, str]] | None`: `cls()` makes a MultiDict, no `__call__` runs;
    # nor for a TypeVar's or a Callable's value, nor a class namedtuple made (242 such `__call__` rows in the stdlib)
    facts = extract("pkg/h.py", (
        "import typing as t\n"
        "from pkg import ds\n"
        "F = t.TypeVar('F')\n"
        "def parse(cls: type[ds.MultiDict[str, str]] | None, op: F, f: t.Callable, d: ds.MultiDict):\n"
        "    cls()\n"     # 5
        "    op()\n"      # 6
        "    f()\n"       # 7
        "    d()\n"       # 8
        "    Point = namedtuple('Point', 'x y')\n"  # 9
        "    Point(1, 2)\n"  # 10: a class a factory made: no `__call__`
    ).encode(), "python")
    calls = sorted((r.line, r.name, r.receiver, r.rtype) for r in facts.refs if r.kind == "call" and r.line >= 5)
    assert calls == [(5, "MultiDict", "ds", None), (5, "cls", None, "local"), (6, "op", None, "local"),
                     (7, "f", None, "local"), (8, "__call__", "d", "ds.MultiDict"), (8, "d", None, "local"),
                     (9, "namedtuple", None, None), (10, "Point", None, "local")]


MADE = {
    "pkg/__init__.py": "",
    "pkg/form.py": "class Form:\n    def validate(self):\n        return True\n",
    "tests/__init__.py": "",
    "tests/test_decimal.py": (
        "from pkg.form import Form\n"                            # 1
        "def make_form(name='F', **fields):\n"                   # 2
        "    return type(str(name), (Form,), fields)\n"          # 3
        "def test_decimal_field():\n"                            # 4
        "    F = make_form(a=1)\n"                               # 5
        "    form = F()\n"                                       # 6
        "    assert form.validate()\n"                           # 7
    ),
}


def test_a_class_a_function_makes_with_type_is_its_base_where_called(tmp_path, index_files):
    # wtforms' tests: `F = make_form(a=DecimalField())`, `form = F(...)`, `form.validate()`: a Form made and
    # validated (coverage: test_decimal.py runs form.py; the selection missed it)
    ws = index_files(tmp_path, MADE)
    try:
        assert calls_at(ws, "tests/test_decimal.py", 6) == [("pkg/form.py::Form", "import")]
        assert calls_at(ws, "tests/test_decimal.py", 7) == [("pkg/form.py::Form.validate", "typed")]  # not a class `F`
        assert ws.impact("pkg/form.py::Form.validate", depth=3)["tests"] == ["tests/test_decimal.py"]
    finally:
        ws.close()


ALIASED = {
    "pkg/__init__.py": "",
    "pkg/validators.py": (
        "class DataRequired:\n"
        "    def __call__(self, form, field):\n"
        "        return field\n"
        "class Optional:\n"
        "    def __call__(self, form, field):\n"
        "        return None\n"
        "data_required = DataRequired\n"
    ),
    "tests/__init__.py": "",
    "tests/test_data_required.py": (
        "from pkg.validators import data_required\n"           # 1
        "def test_data_required():\n"                          # 2
        "    validator = data_required()\n"                    # 3
        "    validator(None, 'x')\n"                           # 4
    ),
}


def test_a_class_imported_under_an_alias_makes_an_instance(tmp_path, index_files):
    # wtforms' `data_required = DataRequired`, imported: `validator = data_required()` is a DataRequired
    ws = index_files(tmp_path, ALIASED)
    try:
        assert calls_at(ws, "tests/test_data_required.py", 4) == [("pkg/validators.py::DataRequired.__call__", "returned")]
    finally:
        ws.close()


def test_an_alias_bound_to_another_class_is_followed(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/validators.py", "data_required = DataRequired", "data_required = Optional",
                      ("tests/test_data_required.py", 4), [("pkg/validators.py::Optional.__call__", "returned")],
                      files=ALIASED)


SELF_CALLED = {
    "pkg/__init__.py": "",
    "pkg/fields.py": (
        "class Field:\n"                          # 1
        "    def __call__(self, **kwargs):\n"     # 2
        "        return '<input>'\n"              # 3
        "    def __str__(self):\n"                # 4
        "        return self()\n"                 # 5: its own class's
        "class Label(Field):\n"                   # 6
        "    def __html__(self):\n"               # 7
        "        return self(x=1)\n"              # 8: a base's
        "    @classmethod\n"                      # 9
        "    def make(cls):\n"                    # 10
        "        return cls()\n"                  # 11: makes one, runs no __call__
        "def render(self):\n"                     # 12
        "    return self()\n"                     # 13: a function's parameter: not known
    ),
}


def test_self_called_in_a_method_runs_its_classs_call(tmp_path, index_files):
    # wtforms' `def __str__(self): return self()`: jedi says Field.__call__; no edge named it
    ws = index_files(tmp_path, SELF_CALLED)
    try:
        assert calls_at(ws, "pkg/fields.py", 5) == [("pkg/fields.py::Field.__call__", "self")]
        assert calls_at(ws, "pkg/fields.py", 8) == [("pkg/fields.py::Field.__call__", "self_inherited")]
        assert not [c for c in calls_at(ws, "pkg/fields.py", 11) if c[0].endswith("__call__")]
        assert calls_at(ws, "pkg/fields.py", 13) == []
    finally:
        ws.close()


HELD_CLASS = {
    "pkg/__init__.py": "",
    "pkg/request.py": (
        "class BaseRequest:\n"
        "    @classmethod\n"
        "    def blank(cls, path):\n"
        "        return cls()\n"
        "    def as_bytes(self):\n"
        "        return b''\n"
        "class Request(BaseRequest):\n"
        "    pass\n"
    ),
    "tests/__init__.py": "",
    "tests/test_request.py": (
        "class TestRequest:\n"                       # 1
        "    def _getTargetClass(self):\n"           # 2
        "        from pkg.request import Request\n"  # 3
        "        return Request\n"                   # 4
        "    def test_blank(self):\n"                # 5
        "        cls = self._getTargetClass()\n"     # 6
        "        req = cls.blank('/')\n"             # 7: the class's classmethod, not TestRequest's
        "        assert req.as_bytes() == b''\n"     # 8: what the classmethod returns
    ),
}


def test_a_method_called_on_a_class_a_getter_returns(tmp_path, index_files):
    # webob's tests: `cls = self._getTargetClass()`, `cls.blank(...)` (78 of its impact misses on `blank`)
    ws = index_files(tmp_path, HELD_CLASS)
    try:
        assert calls_at(ws, "tests/test_request.py", 7) == [("pkg/request.py::BaseRequest.blank", "typed_inherited")]
        assert calls_at(ws, "tests/test_request.py", 8) == [("pkg/request.py::BaseRequest.as_bytes", "returned")]
        assert ws.impact("pkg/request.py::BaseRequest.blank", depth=3)["tests"] == ["tests/test_request.py"]
    finally:
        ws.close()
