"""A call on what another file's function returns resolves in the class that function returns
(jinja2's `t = env.from_string(src); t.render()` where environment.py says `-> "Template"`), and
an edit of any file on the way re-resolves it in the other files as a fresh index would."""

from test_fixture_calls import fresh_snapshot
from test_incremental import snapshot

from memory_lsp.index.extract import extract
from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "from .env import Environment\nfrom .tmpl import Template\n",
    "pkg/tmpl.py": (
        "class Template:\n"
        "    def render(self, **kw) -> str:\n"
        "        return ''\n"
        "class Stream:\n"
        "    def render(self, **kw) -> str:\n"
        "        return ''\n"
    ),
    "pkg/env.py": (
        "import typing as t\n"
        "from .tmpl import Template, Stream\n"
        "class Base:\n"
        "    def get_template(self, name) -> 'Template':\n"
        "        return Template()\n"
        "class Environment(Base):\n"
        "    def from_string(self, source) -> t.Optional['Template']:\n"
        "        return Template()\n"
        "    @classmethod\n"
        "    def create(cls):\n"
        "        return cls()\n"
        "def make_env():\n"
        "    return Environment()\n"
    ),
    "pkg/use.py": (
        "from pkg import env as envmod\n"
        "from pkg.env import Environment, make_env\n"
        "def one():\n"
        "    e = Environment()\n"
        "    t = e.from_string('x')\n"
        "    t.render()\n"
        "    e.get_template('y').render()\n"
        "    make_env().from_string('z')\n"
        "    envmod.make_env().get_template('a')\n"
        "    Environment.create().from_string('b')\n"
    ),
    "tests/conftest.py": (
        "import pytest\n"
        "from pkg import Environment\n"
        "@pytest.fixture\n"
        "def env():\n"
        "    yield Environment()\n"
    ),
    "tests/test_a.py": (
        "def test_x(env):\n"
        "    tmpl = env.from_string('x')\n"
        "    assert tmpl.render() == ''\n"
    ),
}


def calls_at(ws, path, line):
    return sorted(ws.store.cursor().execute(
        "SELECT dst, strategy FROM edges WHERE kind = 'CALLS' AND src_path = ? AND line = ?",
        [path, line]).fetchall())


def test_marks_name_the_function_another_file_defines():
    facts = extract("pkg/m.py", (
        "from pkg.env import Environment, make_env\n"
        "import pkg.env as envmod\n"
        "def f(env, param):\n"
        "    e: Environment = param\n"
        "    e.from_string('x').render()\n"  # 5: a method of a class this file names
        "    make_env().render()\n"  # 6: an imported function
        "    envmod.make_env().render()\n"  # 7: a module's function
        "    env.from_string('x').render()\n"  # 8: a parameter's (a fixture's, maybe)
        "    len(param).bit_length()\n"  # 9: Python's own: no mark
        "    param().render()\n"  # 10: a local name: nothing known
        "    def inner():\n"
        "        return Environment()\n"
        "    inner().render()\n"  # 13: a function defined here: no mark
        "    self.x.make().render()\n"  # 14: an attribute's: not here
        "    e.from_string('x').render().strip()\n"  # 15: one hop only
        "    typing.cast(Environment, param).render()\n"  # 16: what a cast says
    ).encode(), "python")
    rtypes = {r.line: r.rtype for r in facts.refs if r.kind == "call" and r.name in ("render", "bit_length", "strip")}
    assert rtypes == {5: "->Environment.from_string", 6: "->make_env", 7: "->envmod.make_env",
                      8: "->env.from_string", 9: None, 10: None, 13: None, 14: None, 15: None, 16: "Environment"}


def test_return_types_are_written_per_function():
    facts = extract("pkg/env.py", FILES["pkg/env.py"].encode(), "python")
    assert sorted((r.src, r.rtype) for r in facts.refs if r.kind == "returntype") == [
        ("Base.get_template", "Template"), ("Environment.create", "Environment"),
        ("Environment.from_string", "Template"), ("make_env", "Environment")]


def test_a_call_on_what_another_files_function_returns(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/use.py", 6) == [("pkg/tmpl.py::Template.render", "returned")]
    # the method found in a base of the owner's class
    assert calls_at(ws, "pkg/use.py", 7) == [("pkg/env.py::Base.get_template", "typed_inherited"),
                                             ("pkg/tmpl.py::Template.render", "returned")]
    assert ("pkg/env.py::Environment.from_string", "returned") in calls_at(ws, "pkg/use.py", 8)
    assert ("pkg/env.py::Base.get_template", "returned_inherited") in calls_at(ws, "pkg/use.py", 9)
    # a classmethod returning `cls()`
    assert ("pkg/env.py::Environment.from_string", "returned") in calls_at(ws, "pkg/use.py", 10)
    # through a pytest fixture's class
    assert calls_at(ws, "tests/test_a.py", 3) == [("pkg/tmpl.py::Template.render", "returned")]
    ws.close()


def test_an_outside_function_imported_by_name_is_never_guessed(tmp_path, index_files):
    ws = index_files(tmp_path, {
        "pkg/jobs.py": "class Jobs:\n    def extend(self, more):\n        pass\n    def close(self):\n        pass\n",
        "pkg/walk.py": "from collections import deque\nimport shelve\ndef walk(x):\n    todo = deque([x])\n"
                       "    todo.extend([x])\n    db = shelve.open(x)\n    db.close()\n",
    })
    assert calls_at(ws, "pkg/walk.py", 5) == []
    # a module's function may return the workspace's objects (`typing.cast`, `copy.copy`): guessed as before
    assert calls_at(ws, "pkg/walk.py", 7) == [("pkg/jobs.py::Jobs.close", "name_ambiguous")]
    ws.close()


def _edit_and_compare(tmp_path, write_files, path, old, new, site, want, extra=None, strategies=("returned",),
                      files=FILES):
    """One file edited and re-indexed as an editor does: the calls at `site` (of `strategies`; ""
    for all) are `want`, and every row equals a fresh full index's."""
    files = {**files, **(extra or {})}
    root = write_files(tmp_path / "ws", files)
    ws = Workspace.open(root)
    ws.index(workers=0)
    text = files[path].replace(old, new)
    assert text != files[path]
    (root / path).write_text(text)
    ws.reindex({path: text.encode()})
    assert [c for c in calls_at(ws, *site) if c[1].startswith(strategies)] == want
    incremental = snapshot(ws)
    ws.close()
    assert fresh_snapshot(root, tmp_path / "fresh.duckdb") == incremental


def test_a_function_returning_another_class_retypes_its_callers(tmp_path, write_files):
    # same symbols, same imports: only the return annotation changed
    _edit_and_compare(tmp_path, write_files, "pkg/env.py", "-> t.Optional['Template']", "-> 'Stream'",
                      ("pkg/use.py", 6), [("pkg/tmpl.py::Stream.render", "returned")])


def test_a_returned_class_renamed_away_leaves_its_callers_untyped(tmp_path, write_files):
    # `render` defined too often to be re-resolved everywhere by its name (graph/resolution.py)
    common = "".join(f"class R{i}:\n    def render(self):\n        pass\n" for i in range(30))
    _edit_and_compare(tmp_path, write_files, "pkg/tmpl.py", "class Template:", "class Page:",
                      ("pkg/use.py", 6), [], {"pkg/many.py": common})


def test_a_method_moved_from_a_base_retypes_its_callers(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/env.py", "    def get_template(self, name) -> 'Template':",
                      "    def get_page(self, name) -> 'Template':", ("pkg/use.py", 9), [])


def test_a_fixture_giving_another_class_retypes_the_tests_calls(tmp_path, write_files):
    # a generator: what it returns (nothing) stays, what it yields changes (store/fixture_calls.py)
    _edit_and_compare(tmp_path, write_files, "tests/conftest.py", "    yield Environment()", "    yield 1",
                      ("tests/test_a.py", 3), [])


def test_a_typed_receivers_class_renamed_away_makes_its_calls_guesses_again(tmp_path, write_files):
    # `x = Alpha(); x.get()`: Alpha has no `get`, so no guess; renamed away, `get` is guessed as
    # a fresh index guesses it (the call is named neither like the class nor its methods), Python's
    # `dict.get` one candidate more, as for the fixture's and the module variable's below
    _edit_and_compare(tmp_path, write_files, "pkg/tmpl.py", "class Template:", "class Page:",
                      ("pkg/typed.py", 4), [("pkg/other.py::Other.get", "name_ambiguous")], {
                          "pkg/typed.py": "from pkg.tmpl import Template\ndef f():\n    x = Template()\n    x.get()\n",
                          "pkg/other.py": "class Other:\n    def get(self):\n        return 1\n"}, ("name",))


def test_a_fixtures_class_renamed_away_makes_the_tests_calls_guesses_again(tmp_path, write_files):
    conftest = "import pytest\nfrom pkg.tmpl import Template\n@pytest.fixture\ndef page():\n    return Template()\n"
    _edit_and_compare(tmp_path, write_files, "pkg/tmpl.py", "class Template:", "class Page:",
                      ("tests/sub/test_page.py", 2), [("pkg/other.py::Other.get", "name_ambiguous")], {
                          "tests/sub/conftest.py": conftest,
                          "tests/sub/test_page.py": "def test_p(page):\n    page.get()\n",
                          "pkg/other.py": "class Other:\n    def get(self):\n        return 1\n"}, ("name",))


def test_a_module_variables_class_renamed_away_makes_its_calls_guesses_again(tmp_path, write_files):
    # `current: Template` in another file (store/var_calls.py), Template renamed away
    _edit_and_compare(tmp_path, write_files, "pkg/tmpl.py", "class Template:", "class Page:",
                      ("pkg/var_use.py", 3), [("pkg/other.py::Other.get", "name_ambiguous")], {
                          "pkg/globals.py": "from pkg.tmpl import Template\ncurrent: Template = object()\n",
                          "pkg/var_use.py": "from pkg.globals import current\ndef f():\n    current.get()\n",
                          "pkg/other.py": "class Other:\n    def get(self):\n        return 1\n"}, ("name",))


def test_a_method_added_to_a_base_the_caller_does_not_import(tmp_path, write_files):
    # `C().go()` in u.py, which imports c.py only; `go` added to C's base in b.py, a name defined
    # too often to be re-resolved everywhere by name
    common = "".join(f"class R{i}:\n    def go(self):\n        pass\n" for i in range(30))
    _edit_and_compare(tmp_path, write_files, "pkg/b.py", "    def ping(self):", "    def go(self):",
                      ("pkg/u.py", 3), [("pkg/b.py::B.go", "typed_inherited")], {
                          "pkg/many.py": common,
                          "pkg/b.py": "class B:\n    def ping(self):\n        pass\n",
                          "pkg/c.py": "from pkg.b import B\nclass C(B):\n    pass\n",
                          "pkg/u.py": "from pkg.c import C\ndef f():\n    C().go()\n"}, ("typed",))


def test_a_module_variable_typed_by_another_class_retypes_what_its_methods_return(tmp_path, write_files):
    # `x = current.build(); x.render()` with `current: Env` in globals.py; globals.py retypes it
    env = "from pkg.tmpl import Template, Stream\nclass Env:\n    def build(self) -> Template:\n        return Template()\n" \
          "class Other:\n    def build(self) -> Stream:\n        return Stream()\n"
    _edit_and_compare(tmp_path, write_files, "pkg/globals.py", "current: Env", "current: Other",
                      ("pkg/var_use.py", 4), [("pkg/tmpl.py::Stream.render", "returned")], {
                          "pkg/envs.py": env,
                          "pkg/globals.py": "from pkg.envs import Env, Other\ncurrent: Env = object()\n",
                          "pkg/var_use.py": "from pkg.globals import current\ndef f():\n    x = current.build()\n    x.render()\n"})


def _one_edit(tmp_path, write_files, files, path, text, site):
    """The calls at `site` before and after an editor's re-index of `path` as `text`; the index
    then equals a fresh one."""
    root = write_files(tmp_path / "ws", files)
    ws = Workspace.open(root)
    ws.index(workers=0)
    before = calls_at(ws, *site)
    (root / path).write_text(text)
    ws.reindex({path: text.encode()})
    after = calls_at(ws, *site)
    incremental = snapshot(ws)
    ws.close()
    assert fresh_snapshot(root, tmp_path / "fresh.duckdb") == incremental
    return before, after


def test_a_function_reached_through_an_alias_types_what_it_returns(tmp_path, write_files):
    """ssl.py: `_create_stdlib_context = _create_unverified_context`, then `context =
    _create_stdlib_context(...); context.wrap_socket(...)`. The mark names the alias, the return
    type row the function: a run re-resolving the call (an edit of another file defining
    `wrap`) found it only when some other call named the function itself."""
    files = {
        "mod.py": ("class Ctx:\n    def wrap(self):\n        pass\n\n"
                   "def _real() -> Ctx:\n    return Ctx()\n\n_alias = _real\n\n"
                   "def use():\n    c = _alias()\n    c.wrap()\n"),
        "other.py": "def wrap():\n    pass\n",
    }
    before, after = _one_edit(tmp_path, write_files, files, "other.py", "def wrap():\n    return 1\n", ("mod.py", 12))
    assert before == after == [("mod.py::Ctx.wrap", "returned")]


def test_a_decorator_factory_returning_another_class_retypes_the_names_it_binds(tmp_path, write_files):
    """`@clk.group() def cli(): ...; cli.run()`: cli is what calling group()'s Callable gives; the
    factory's annotation changed (Group -> Other) re-resolves the call as a fresh index would."""
    files = {
        "clk/__init__.py": "from .deco import group\n",
        "clk/core.py": "class Group:\n    def run(self):\n        pass\nclass Other:\n    def run(self):\n        pass\n",
        "clk/deco.py": ("import typing as t\nfrom .core import Group, Other\n"
                        "def group(name=None) -> t.Callable[[t.Callable], Group]:\n    return lambda f: Group()\n"),
        "tests/test_x.py": "import clk\ndef test_x():\n    @clk.group()\n    def cli():\n        pass\n    cli.run()\n",
    }
    text = files["clk/deco.py"].replace("Callable], Group]", "Callable], Other]")
    before, after = _one_edit(tmp_path, write_files, files, "clk/deco.py", text, ("tests/test_x.py", 6))
    assert before == [("clk/core.py::Group.run", "returned")]
    assert after == [("clk/core.py::Other.run", "returned")]


STARRED = {
    "pkg/__init__.py": "from pkg.fields import *\n",
    "pkg/fields/__init__.py": "from pkg.fields.numeric import *\n",
    "pkg/fields/numeric.py": (
        "class Field:\n    def _value(self):\n        return ''\n"
        "class IntegerField(Field):\n    def _value(self):\n        return '1'\n"
        "class FloatField(Field):\n    def _value(self):\n        return '1.0'\n"
    ),
    "tests/__init__.py": "",
    "tests/test_integer.py": (
        "from pkg.fields import IntegerField\n"   # 1: the package re-exports it by `import *`
        "class F:\n"                              # 2
        "    a = IntegerField()\n"                # 3
        "def test_integer_field():\n"             # 4
        "    form = F()\n"                        # 5
        "    assert form.a._value() == '1'\n"     # 6
        "    assert F().a._value() == '1'\n"      # 7: an attribute of what a call gives
    ),
    "tests/test_float.py": (
        "from pkg import FloatField\n"            # 1: two packages deep, each by `import *`
        "class G:\n"                              # 2
        "    b = FloatField()\n"                  # 3
        "def test_float_field():\n"               # 4
        "    assert G().b._value() == '1.0'\n"    # 5
    ),
}


def test_a_class_a_package_reexports_by_import_star_types_an_attribute(tmp_path, index_files):
    # wtforms' tests: `class F(Form): a = IntegerField()`, `form.a._value()`, IntegerField imported from
    # wtforms.fields, whose __init__ says `from wtforms.fields.numeric import *`: a guess at every `_value`
    ws = index_files(tmp_path, STARRED)
    try:
        assert calls_at(ws, "tests/test_integer.py", 6) == [("pkg/fields/numeric.py::IntegerField._value", "returned")]
        assert ("pkg/fields/numeric.py::IntegerField._value", "returned") in calls_at(ws, "tests/test_integer.py", 7)
        assert ("pkg/fields/numeric.py::FloatField._value", "returned") in calls_at(ws, "tests/test_float.py", 5)
    finally:
        ws.close()


def test_a_starred_class_edited_to_another_retypes_the_attribute(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "tests/test_integer.py", "IntegerField", "FloatField",
                      ("tests/test_integer.py", 6), [("pkg/fields/numeric.py::FloatField._value", "returned")],
                      files=STARRED)


def test_a_package_no_longer_reexporting_by_import_star_untypes_the_attribute(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/fields/__init__.py", "from pkg.fields.numeric import *", "",
                      ("tests/test_integer.py", 6), [], files=STARRED)


def test_a_package_no_longer_reexporting_a_package_untypes_the_attribute(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/__init__.py", "from pkg.fields import *", "",
                      ("tests/test_float.py", 5), [], files=STARRED)


ANY_FILES = {
    "log/__init__.py": "from log.config import get_logger\n",
    "log/config.py": (
        "import typing\n"
        "from typing import Any\n"
        "class Proxy:\n"
        "    def bind(self, **kw):\n"
        "        return self\n"
        "class Other:\n"
        "    def bind(self, **kw):\n"
        "        return self\n"
        "def wrap_logger(logger) -> Any:\n"
        "    return Proxy()\n"
        "def get_logger(*args) -> Any:\n"
        "    return wrap_logger(None)\n"
        "def either(flag) -> typing.Any:\n"
        "    return Proxy() if flag else Other()\n"
        "def local():\n"
        "    get_logger().bind(x=1)\n"
    ),
    "use.py": "import log\nfrom log.config import either\ndef run():\n    log.get_logger().bind(y=2)\n    either(1).bind()\n",
}


def test_a_function_annotated_any_returns_what_its_body_returns(tmp_path, index_files):
    # structlog's `get_logger(...) -> Any` returns `wrap_logger(...)`, a `BoundLoggerLazyProxy`: `Any` says nothing
    ws = index_files(tmp_path, ANY_FILES)
    try:
        def binds(path, line):
            return [(dst, how) for dst, how in calls_at(ws, path, line) if dst.endswith(".bind")]
        assert binds("log/config.py", 16) == [("log/config.py::Proxy.bind", "typed")]  # in its own file
        assert binds("use.py", 4) == [("log/config.py::Proxy.bind", "returned")]  # through the package's re-export
        # returns that disagree: no type, as for a function with no annotation (a name guess at most)
        assert all(how in ("name_unique", "name_ambiguous") for _, how in binds("use.py", 5))
    finally:
        ws.close()
