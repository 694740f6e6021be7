"""Issue 12 item 1: a name bound to one of several values (`cls = template_class or
self.template_class`, `x = Foo() if flag else Bar()`) is typed when the values agree, as in
jinja2's `Environment.from_string`, whose `cls.from_code(...)` made no edge: impact of
`Template.from_code` listed 5 of jedi's 162 dependents. Values that disagree, or a name that is
also what it was (`x = x or Foo()`), leave the call as untyped as before."""

from test_call_returns import _edited_equals_fresh

from memory_lsp.index import extract
from memory_lsp.index.exprtext import either_values

ENV = (
    "import typing as t\n"                                                                  # 1
    "class Environment:\n"                                                                  # 2
    "    template_class: t.Type['Template']\n"                                              # 3
    "    def from_string(self, source, template_class: t.Optional[t.Type['Template']] = None):\n"  # 4
    "        cls = template_class or self.template_class\n"                                 # 5
    "        return cls.from_code(self, source)\n"                                          # 6
    "    def pick(self, flag):\n"                                                           # 7
    "        made = Template() if flag else None\n"                                         # 8
    "        made.render()\n"                                                               # 9
    "    def mixed(self, flag):\n"                                                          # 10
    "        made = Template() if flag else Other()\n"                                      # 11
    "        made.render()\n"                                                               # 12
    "    def again(self, made):\n"                                                          # 13
    "        made = made or Template()\n"                                                   # 14
    "        made.render()\n"                                                               # 15
    "class Template:\n"                                                                     # 16
    "    @classmethod\n"                                                                    # 17
    "    def from_code(cls, environment, code):\n"                                          # 18
    "        return cls()\n"                                                                # 19
    "    def render(self):\n"                                                               # 20
    "        pass\n"                                                                        # 21
    "class Other:\n"                                                                        # 22
    "    def from_code(self):\n"                                                            # 23
    "        pass\n"                                                                        # 24
    "    def render(self):\n"                                                               # 25
    "        pass\n"                                                                        # 26
    "class Loader:\n"                                                                       # 27
    "    def __init__(self, env: Environment, backup=None):\n"                              # 28
    "        self.env = env or Environment()\n"                                             # 29
    "        self.backup = backup or Environment()\n"                                       # 30
    "    def load(self, name):\n"                                                           # 31
    "        return self.env.from_string(name)\n"                                           # 32
    "    def other(self, name):\n"                                                          # 33
    "        return self.backup.from_string(name)\n"                                        # 34
)
FILES = {"pkg/__init__.py": "", "pkg/env.py": ENV,
         "pkg/use.py": "class Thing:\n    def from_string(self):\n        pass\n"}


def test_the_values_are_read_outside_brackets_strings_and_conditions():
    assert either_values("template_class or self.template_class") == ["template_class", "self.template_class"]
    assert either_values("Foo() if x or y else Bar(a if b else c)") == ["Foo()", "Bar(a if b else c)"]
    assert either_values("f('or', 1) or g") == ["f('or', 1)", "g"]
    assert either_values("lambda: a or b") == []


def test_values_that_agree_type_the_name():
    facts = extract.extract("pkg/env.py", ENV.encode(), "python")
    types = {(r.line, r.name): r.rtype for r in facts.refs if r.kind == "call"}
    assert types[(6, "from_code")] == "Template"  # the parameter's Type['Template'] and the class attribute's
    assert types[(9, "render")] == "Template"  # `None` says nothing
    assert types[(12, "render")] is None  # Template or Other: unknown, as before
    assert types[(15, "render")] is None  # also the parameter it was: unknown, as before
    assert types[(32, "from_string")] == "Environment"  # `self.env = env or Environment()` in __init__
    assert types[(34, "from_string")] is None  # an untyped parameter or an Environment


def test_a_typed_call_through_or_is_an_edge_and_an_edit_equals_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    incremental = _edited_equals_fresh(tmp_path, root, "pkg/env.py",
                                       ENV.replace("template_class or self.template_class",
                                                   "template_class or self.template_class or Other"))
    edges = {(src, dst, line) for src, dst, _k, _sp, _dp, line, *_ in incremental["edges"]}
    # after the edit the values disagree (Template or Other): no typed edge from line 6
    assert ("pkg/env.py::Environment.from_string", "pkg/env.py::Template.from_code", 6) not in edges


def test_the_edge_before_the_edit(index_files, tmp_path):
    ws = index_files(tmp_path / "ws", FILES)
    rows = ws.store.cursor().execute(
        "SELECT src, dst, strategy FROM edges WHERE kind = 'CALLS' AND line IN (6, 32)").fetchall()
    ws.close()
    assert ("pkg/env.py::Environment.from_string", "pkg/env.py::Template.from_code", "typed") in rows
    assert not any(dst == "pkg/env.py::Other.from_code" for _s, dst, _k in rows)
    assert ("pkg/env.py::Loader.load", "pkg/env.py::Environment.from_string", "typed") in rows
    assert not any(dst == "pkg/use.py::Thing.from_string" for _s, dst, _k in rows if _s == "pkg/env.py::Loader.load")
