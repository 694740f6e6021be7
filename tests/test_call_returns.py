"""Issue 12 item 1: a call's receiver typed by what a call returns (index/returns.py), as in
Django's QuerySet (`self._chain().filter()`, `clone = self._chain(); clone = clone.annotate()`),
flask's `ctx = self.request_context(environ)` (an annotated return) and `flask.json.dumps()` (a
submodule of an imported package); and incremental == full when a return changes."""

import pytest
from test_incremental import snapshot, touch_later

from memory_lsp.index import extract
from memory_lsp.workspace import Workspace

QUERY = (
    "from .ctx import RequestContext\n"                      # 1
    "class QuerySet:\n"                                      # 2
    "    def _clone(self):\n"                                # 3
    "        c = self.__class__(model=1)\n"                  # 4
    "        return c\n"                                     # 5
    "    def _chain(self):\n"                                # 6
    "        obj = self._clone()\n"                          # 7
    "        return obj\n"                                   # 8
    "    def annotate(self, **kw):\n"                        # 9
    "        clone = self._chain()\n"                        # 10
    "        clone = clone.annotate(**kw) if kw else clone\n"  # 11
    "        return clone\n"                                 # 12
    "    def filter(self, *a):\n"                            # 13
    "        return self._chain()\n"                         # 14
    "    def none(self):\n"                                  # 15
    "        return None\n"                                  # 16
    "    def dates(self):\n"                                 # 17
    "        return (\n"                                     # 18
    "            self.annotate(x=1)\n"                       # 19
    "            .filter(y=2)\n"                             # 20
    "        )\n"                                            # 21
    "    def bulk(self):\n"                                  # 22
    "        queryset = self.annotate()\n"                   # 23
    "        queryset.filter(pk=1)\n"                        # 24
    "    def context(self) -> 'RequestContext':\n"           # 25
    "        return make()\n"                                # 26
    "    def either(self, flag):\n"                          # 27
    "        if flag:\n"                                     # 28
    "            return self\n"                              # 29
    "        return Other()\n"                               # 30
    "class Other:\n"                                         # 31
    "    def filter(self):\n"                                # 32
    "        pass\n"                                         # 33
    "def use(q: QuerySet):\n"                                # 34
    "    ctx = q.context()\n"                                # 35
    "    ctx.push()\n"                                       # 36
    "    q.either(1).filter()\n"                             # 37
    "    q.none().filter()\n"                                # 38
)
FILES = {
    "pkg/__init__.py": "from . import ctx\n",
    "pkg/query.py": QUERY,
    "pkg/ctx.py": "class RequestContext:\n    def push(self):\n        pass\n"
                  "class AppContext:\n    def push(self):\n        pass\n",
    "pkg/helpers.py": "def make_response():\n    return 1\n",
    "tests/test_pkg.py": "import pkg\n\ndef test_it():\n    pkg.ctx.RequestContext().push()\n"
                         "    pkg.helpers.make_response()\n",
}


def _rtypes(source: str) -> dict[tuple[int, str], str | None]:
    facts = extract.extract("pkg/query.py", source.encode(), "python")
    return {(r.line, r.name): r.rtype for r in facts.refs if r.kind == "call"}


def test_returns_type_the_receiver_of_a_chained_call():
    types = _rtypes(QUERY)
    assert types[(11, "annotate")] == "QuerySet"  # a local bound to a call of its own class
    assert types[(20, "filter")] == "QuerySet"  # a chain over several lines (its receiver is stored as "?")
    assert types[(24, "filter")] == "QuerySet"  # a local bound to `self.annotate()`
    assert types[(36, "push")] == "RequestContext"  # an annotated return, as the file writes it
    assert types[(37, "filter")] is None  # two returns that disagree: no type
    assert types[(38, "filter")] is None  # `return None` alone says nothing


@pytest.fixture(scope="module")
def edges(tmp_path_factory, index_files):
    ws = index_files(tmp_path_factory.mktemp("returns"), FILES)
    rows = ws.store.cursor().execute("SELECT src, dst, line, strategy FROM edges WHERE kind = 'CALLS'").fetchall()
    ws.close()
    return rows


def _at(edges, path, line):
    return {(dst, strategy) for src, dst, ln, strategy in edges if src.startswith(path) and ln == line}


def test_a_typed_chain_resolves_to_its_class_only(edges):
    assert _at(edges, "pkg/query.py", 20) == {("pkg/query.py::QuerySet.filter", "typed")}
    assert _at(edges, "pkg/query.py", 24) == {("pkg/query.py::QuerySet.filter", "typed")}
    # an imported class: its method there, not AppContext.push by name
    assert _at(edges, "pkg/query.py", 36) == {("pkg/ctx.py::RequestContext.push", "typed")}


def test_a_submodule_of_an_imported_package_is_followed(edges):
    # `from . import ctx` in the package's __init__, and a module file beside it
    assert ("pkg/ctx.py::RequestContext", "module_attr") in _at(edges, "tests/test_pkg.py", 4)
    assert _at(edges, "tests/test_pkg.py", 5) == {("pkg/helpers.py::make_response", "module_attr")}


def _edited_equals_fresh(tmp_path, root, rel: str, text: str) -> dict:
    """Index `root`, rewrite `rel` and index again: the graph equals a fresh index of the result
    (returned)."""
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(root)
    ws.index(workers=0)
    (root / rel).write_text(text)
    touch_later(root / rel)
    ws.index(workers=0)
    incremental = snapshot(ws)
    ws.close()
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    assert snapshot(fresh) == incremental
    fresh.close()
    return incremental


def test_a_changed_return_equals_a_fresh_index(tmp_path, write_files):
    # `_clone` now returns something else: every chain through it loses its type
    incremental = _edited_equals_fresh(tmp_path, write_files(tmp_path / "ws", FILES), "pkg/query.py",
                                       QUERY.replace("        return c\n", "        return Other()\n"))
    assert not any(dst == "pkg/query.py::QuerySet.filter" and line == 24
                   for _src, dst, _k, _sp, _dp, line, *_ in incremental["edges"])


def test_splat_parameters_dunder_dict_and_bare_builtins_are_python_s():
    """flask: `kwargs.setdefault()`, `options.pop()`, `self.__dict__.pop()` and a bare `set()` were
    linked by name to workspace methods and test-local functions named alike (jedi: external)."""
    source = ("def f(a, *args, **kwargs):\n"
              "    kwargs.setdefault('x', 1)\n"
              "    args.index(1)\n"
              "    set()\n"
              "def g(self, **options: int):\n"
              "    options.pop('y')\n"
              "    self.__dict__.pop('z')\n"
              "    open('p')\n"
              "def open(path):\n"
              "    return path\n")
    facts = extract.extract("m.py", source.encode(), "python")
    types = {(r.line, r.name): r.rtype for r in facts.refs if r.kind == "call"}
    assert types[(2, "setdefault")] == types[(3, "index")] == "builtin"
    assert types[(4, "set")] == "builtin"
    assert types[(6, "pop")] == types[(7, "pop")] == "builtin"
    assert types[(8, "open")] is None  # the file defines its own open


def test_no_workspace_method_for_a_builtin_receiver(tmp_path, index_files):
    files = {"pkg/a.py": "class Config:\n    def setdefault(self, k):\n        return k\n"
                         "    def pop(self, k):\n        return k\n",
             "pkg/b.py": "def make(**kwargs):\n    kwargs.setdefault('x')\n    return set()\n",
             "tests/test_b.py": "def test_it():\n    def set():\n        return 1\n    return set()\n"}
    ws = index_files(tmp_path, files)
    rows = ws.store.cursor().execute("SELECT src, dst FROM edges WHERE kind = 'CALLS'").fetchall()
    ws.close()
    assert not [r for r in rows if r[0].startswith("pkg/b.py")]
    assert rows == [("tests/test_b.py::test_it", "tests/test_b.py::test_it.set")]


def test_an_attribute_of_self_set_in_a_base_class_of_the_file():
    """flask json/tag.py: `self.serializer` is set (from a typed parameter) in JSONTag.__init__ and
    called in its subclasses' methods."""
    source = ("class Serializer:\n"
              "    def tag(self, v):\n"
              "        return v\n"
              "class Tag:\n"
              "    def __init__(self, serializer: Serializer):\n"
              "        self.serializer = serializer\n"
              "    def tag(self, v):\n"
              "        return v\n"
              "class PassDict(Tag):\n"
              "    def to_json(self, v):\n"
              "        return self.serializer.tag(v)\n"
              "class Unrelated:\n"
              "    def to_json(self, v):\n"
              "        return self.serializer.tag(v)\n"
              "class BinExpr:\n"  # jinja2's nodes.py: `right: Expr` annotated in the base's body
              "    right: Serializer\n"
              "class And(BinExpr):\n"
              "    def as_const(self):\n"
              "        return self.right.tag(1)\n")
    facts = extract.extract("m.py", source.encode(), "python")
    types = {r.line: r.rtype for r in facts.refs if r.kind == "call" and r.name == "tag"}
    assert types == {11: "Serializer", 14: None, 19: "Serializer"}


PROXIES = {
    "app/__init__.py": "from .globals import g as g\nfrom .globals import current_app as current_app\n",
    "app/globals.py": "from .core import App\nfrom .ctx import _Globals\n"
                      "current_app: App = make_proxy()\ng: '_Globals' = make_proxy()\n",
    "app/core.py": "class App:\n    def url_for(self, e):\n        return e\n",
    "app/ctx.py": "class _Globals:\n    def get(self, k):\n        return k\n",
    "app/other.py": "class Other:\n    def url_for(self, e):\n        return e\n    def get(self, k):\n        return k\n",
    "app/helpers.py": "from .globals import current_app\n\ndef url_for(e):\n    return current_app.url_for(e)\n",
    "tests/test_g.py": "import app\nfrom app import g\n\ndef test_g():\n    app.g.get('a')\n    g.get('b')\n",
}


def _calls(ws):
    return sorted(ws.store.cursor().execute(
        "SELECT src, dst, line, strategy FROM edges WHERE kind = 'CALLS' AND strategy LIKE 'module_var%'").fetchall())


def test_a_module_level_variable_of_another_file_types_its_calls(tmp_path, index_files):
    """flask's `current_app: Flask = LocalProxy(...)` in globals.py, used in helpers.py and, through
    the package's re-export, as `flask.g` / `from flask import g` in the tests."""
    ws = index_files(tmp_path, PROXIES)
    assert _calls(ws) == [("app/helpers.py::url_for", "app/core.py::App.url_for", 4, "module_var"),
                          ("tests/test_g.py::test_g", "app/ctx.py::_Globals.get", 5, "module_var"),
                          ("tests/test_g.py::test_g", "app/ctx.py::_Globals.get", 6, "module_var")]
    ws.close()


@pytest.mark.parametrize("globals_py", [
    "from .other import Other as App\nfrom .ctx import _Globals\ncurrent_app: App = make_proxy()\n",  # retyped; g gone
    "from .core import App\nfrom .ctx import _Globals\ncurrent_app = make_proxy()\ng: _Globals = make_proxy()\n"])
def test_a_changed_variable_equals_a_fresh_index(tmp_path, write_files, globals_py):
    _edited_equals_fresh(tmp_path, write_files(tmp_path / "ws", PROXIES), "app/globals.py", globals_py)


ATTRIBUTES = {
    "app/__init__.py": "",
    "app/provider.py": "class JSONProvider:\n    def dumps(self, x):\n        return x\n",
    "app/other.py": "class Other:\n    def dumps(self, x):\n        return x\n",
    "app/core.py": ("from .provider import JSONProvider\nfrom .other import Other\n"
                    "class Flask:\n    def __init__(self):\n        self.json = JSONProvider()\n"),
    "app/globals.py": "from .core import Flask\ncurrent_app: Flask = make()\n",
    "app/use.py": ("from .core import Flask\nfrom .globals import current_app\n"
                   "def go(app: Flask):\n    app.json.dumps(1)\n    current_app.json.dumps(2)\n"),
}


def test_an_attribute_of_another_files_class_types_the_call_and_follows_its_edit(tmp_path, write_files):
    """flask: `self.app.json.dumps()` where Flask.__init__ says `self.json = ...Provider(...)`;
    the attribute's type changed, an editor's run ends where a fresh index does. (`current_app.json`,
    a module variable's attribute, is not typed: one hop, the variable's.)"""
    root = write_files(tmp_path / "ws", ATTRIBUTES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert {(line, dst) for line, dst in _dumps(ws) if line == 4} == {(4, "app/provider.py::JSONProvider.dumps")}
    ws.close()
    edited = ATTRIBUTES["app/core.py"].replace("self.json = JSONProvider()", "self.json = Other()")
    incremental = _edited_equals_fresh(tmp_path, root, "app/core.py", edited)
    assert {(line, dst) for _s, dst, k, sp, _d, line, *_ in incremental["edges"]
            if sp == "app/use.py" and k == "CALLS" and line == 4} == {(4, "app/other.py::Other.dumps")}


def _dumps(ws):
    return set(ws.store.cursor().execute(
        "SELECT line, dst FROM edges WHERE kind = 'CALLS' AND src_path = 'app/use.py'").fetchall())


def test_a_name_bound_again_is_what_its_last_binding_above_made():
    """jinja2's tests: `t = env.get_template(...)`, `t.render()`, then `t = env.from_string(...)`,
    `t.render()`; a module-level name rebound stays untyped in a function (the function runs later)."""
    source = ("x = Alpha()\n"
              "x = Beta()\n"
              "def test_a(env):\n"
              "    t = env.get_template('a')\n"
              "    t.render(1)\n"
              "    t = env.from_string('b')\n"
              "    t.render(2)\n"
              "    y = Alpha()\n"
              "    y.m()\n"
              "    y = Beta()\n"
              "    y.m()\n"
              "    x.m()\n")
    facts = extract.extract("tests/test_x.py", source.encode(), "python")
    types = {r.line: r.rtype for r in facts.refs if r.kind == "call" and r.name in ("render", "m")}
    assert types == {5: "->env.get_template", 7: "->env.from_string", 9: "Alpha", 11: "Beta", 12: None}


PYTHONS_OWN = {
    "app/__init__.py": "",
    "app/store.py": "class Store:\n    def update(self, x):\n        return x\n",
    "app/core.py": ("import typing as t\nfrom .store import Store\ndef make() -> t.Dict[str, int]:\n    return {}\n"
                    "class Context:\n    def __init__(self):\n        self.prefixes: t.Set[str] = set()\n"),
    "app/use.py": ("from .core import make, Context\ndef go(ctx: Context):\n    x = make()\n    x.update(1)\n"
                   "    ctx.prefixes.update(2)\n    y = other()\n    y.update(3)\n"),
}


def test_what_another_files_function_or_attribute_gives_of_pythons_own_is_never_guessed(tmp_path, write_files):
    """click: `ctx._opt_prefixes.update(...)` (a set Context.__init__ annotates) was guessed to be
    ProgressBar.update; a function annotated `-> Dict[...]` the same. Its return made a Store: typed."""
    root = write_files(tmp_path / "ws", PYTHONS_OWN)
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert {(line, dst) for line, dst in _updates(ws)} == {(7, "app/store.py::Store.update")}  # `other()`: unknown
    ws.close()
    edited = PYTHONS_OWN["app/core.py"].replace("-> t.Dict[str, int]", "-> Store")
    incremental = _edited_equals_fresh(tmp_path, root, "app/core.py", edited)
    assert {(line, dst, strategy) for _s, dst, k, sp, _d, line, _c, strategy, *_ in incremental["edges"]
            if sp == "app/use.py" and k == "CALLS" and line == 4} == {(4, "app/store.py::Store.update", "returned")}


def _updates(ws):
    return set(ws.store.cursor().execute(
        "SELECT line, dst FROM edges WHERE kind = 'CALLS' AND src_path = 'app/use.py' AND name = 'update'").fetchall())


TRANSPORT = {
    "app/__init__.py": "",
    "app/tr.py": ("import ssl\n\n\nclass Transport:\n    def __init__(self, ctx: ssl.SSLContext, helper: 'Helper'):\n"
                  "        self.obj = ctx.wrap_bio()\n        self.helper = helper.make()\n\n"
                  "    def peer(self):\n        return self.obj.getpeercert()\n\n"
                  "    def version(self):\n        return self.helper.version()\n\n\n"
                  "class Helper:\n    def make(self) -> 'Made':\n        return Made()\n\n\n"
                  "class Made:\n    def version(self):\n        return 1\n"),
    "app/other.py": ("class Other:\n    def getpeercert(self):\n        return 2\n\n"
                     "    def version(self):\n        return 3\n"),
}


def test_an_attribute_bound_in_a_method_reads_its_parameters(tmp_path, index_files):
    """urllib3: `self.sslobj = ssl_context.wrap_bio(...)` in `__init__(self, ssl_context: ssl.SSLContext)`;
    `self.sslobj.getpeercert()` in another method was guessed to be a workspace getpeercert (the
    parameter was looked up where the attribute was used). Now: an outside class's method's result,
    never guessed; and `self.helper = helper.make()` with `helper: Helper` is a Made."""
    facts = extract.extract("app/tr.py", TRANSPORT["app/tr.py"].encode(), "python")
    types = {(r.line, r.name): r.rtype for r in facts.refs if r.kind == "call"}
    assert types[(10, "getpeercert")] == "->ssl.SSLContext.wrap_bio"
    assert types[(13, "version")] == "Made"
    ws = index_files(tmp_path, TRANSPORT)
    calls = set(ws.store.cursor().execute(
        "SELECT src, dst, strategy FROM edges WHERE kind = 'CALLS' AND src_path = 'app/tr.py'").fetchall())
    assert ("app/tr.py::Transport.version", "app/tr.py::Made.version", "typed") in calls
    assert not {c for c in calls if c[1].startswith("app/other.py")}  # neither guessed
    ws.close()


SCHEMES = {
    "app/__init__.py": "",
    "app/conn.py": 'port_by_scheme = {"http": 80, "https": 443}\nNAME = "conn"\n',
    "app/pool.py": ("from .conn import port_by_scheme, NAME\n\n\ndef port(scheme):\n"
                    "    return port_by_scheme.get(scheme) or NAME.split('/')\n"),
    "app/buffer.py": ("class Buffer:\n    def get(self, n):\n        return n\n\n"
                      "    def split(self, s):\n        return s\n"),
}


def _guessed(edges) -> set:
    return {(line, dst) for _s, dst, k, sp, _d, line, *_ in edges if sp == "app/pool.py" and k == "CALLS"}


def test_a_module_variable_of_pythons_own_type_is_never_guessed_and_follows_its_edit(tmp_path, write_files):
    """urllib3: `port_by_scheme.get(...)` (a dict literal connection.py defines) was guessed to be
    `BytesQueueBuffer.get`. A variable bound to a literal is Python's: its calls, where it is
    imported too, are not guessed. Edited to something unknown it is guessed again, and back."""
    root = write_files(tmp_path / "ws", SCHEMES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert not _guessed(snapshot(ws)["edges"])
    ws.close()
    unknown = SCHEMES["app/conn.py"].replace('{"http": 80, "https": 443}', "make()")
    incremental = _edited_equals_fresh(tmp_path, root, "app/conn.py", unknown)
    assert _guessed(incremental["edges"]) == {(5, "app/buffer.py::Buffer.get")}  # `make()`: nothing known
    (tmp_path / "fresh.duckdb").unlink()
    incremental = _edited_equals_fresh(tmp_path, root, "app/conn.py", SCHEMES["app/conn.py"])
    assert not _guessed(incremental["edges"])
