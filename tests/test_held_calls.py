"""Calls of what a class attribute holds, through a receiver whose class is known (issue 12 item 1,
"class attributes holding classes"): jinja2's `environment.code_generator_class(...)` in
compiler.py constructs the CodeGenerator environment.py's class body holds; nothing linked it, so
"what breaks if CodeGenerator's constructor changes" missed `generate`, and test selection reached
compiler.py's callers of it only through its dispatch rule (bench/BENCHMARKS.md bd)."""

import test_return_calls as return_calls
from test_return_calls import calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/gen.py": ("class CodeGenerator:\n    def __init__(self, env):\n        self.env = env\n\n\n"
                   "class OtherGen(CodeGenerator):\n    pass\n\n\ndef make_filter(x):\n    return x\n"),
    "pkg/env.py": ("from pkg.gen import CodeGenerator, OtherGen, make_filter\n\n\n"
                   "class Environment:\n"
                   "    code_generator_class = CodeGenerator\n"   # 5
                   "    filter_func = make_filter\n"              # 6
                   "    def code_generator(self):\n        return 1\n\n\n"
                   "class Sub(Environment):\n    pass\n"),
    "pkg/compiler.py": ("from pkg.env import Environment, Sub\n\n\n"
                        "def generate(environment: Environment):\n"
                        "    return environment.code_generator_class(environment)\n"   # 5
                        "\n\n"
                        "def other(env: Sub):\n"
                        "    env.filter_func(1)\n"                                       # 9
                        "    return env.code_generator_class(env)\n"                     # 10
                        "\n\n"
                        "class MyEnv(Environment):\n"
                        "    def make(self):\n"
                        "        return self.code_generator_class(self)\n"               # 15
                        "\n\n"
                        "def untyped(environment):\n"
                        "    return environment.code_generator_class(environment)\n"),  # 19
}


def test_a_held_class_is_called_through_a_typed_receiver(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "pkg/compiler.py", 5) == [("pkg/gen.py::CodeGenerator", "typed")]
        assert calls_at(ws, "pkg/compiler.py", 9) == [("pkg/gen.py::make_filter", "typed")]  # a function held
        assert calls_at(ws, "pkg/compiler.py", 10) == [("pkg/gen.py::CodeGenerator", "typed")]  # through a subclass
        assert calls_at(ws, "pkg/compiler.py", 15) == [("pkg/gen.py::CodeGenerator", "typed")]  # self, a base elsewhere
        assert calls_at(ws, "pkg/compiler.py", 19) == []  # nothing known of the receiver: no guess at a held value
        # what breaks if CodeGenerator changes: its callers through the attribute
        dependents = {d["symbol"] for d in ws.impact("pkg/gen.py::CodeGenerator", depth=1)["dependents"]}
        assert {"generate", "other", "MyEnv.make"} <= dependents
    finally:
        ws.close()


def _edit_and_compare(tmp_path, write_files, path, old, new, site, want):
    return_calls._edit_and_compare(tmp_path, write_files, path, old, new, site, want, strategies=("typed",), files=FILES)


def test_another_held_class_retypes_the_callers_in_other_files(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/env.py", "code_generator_class = CodeGenerator",
                      "code_generator_class = OtherGen", ("pkg/compiler.py", 5), [("pkg/gen.py::OtherGen", "typed")])


def test_a_held_class_renamed_away_leaves_no_edge(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/gen.py", "class CodeGenerator:", "class Generator:",
                      ("pkg/compiler.py", 10), [])


def test_a_held_attribute_removed_leaves_no_edge(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/env.py", "    code_generator_class = CodeGenerator\n", "",
                      ("pkg/compiler.py", 15), [])


WRAPPED = {
    "pkg/__init__.py": "",
    "pkg/parse.py": "def parse(text):\n    return text\n",
    "pkg/enc.py": "class Encoder:\n    def dumps(self, value):\n        return str(value)\n",
    "pkg/builder.py": ("import json\n"
                       "from pkg.enc import Encoder\n"
                       "from pkg.parse import parse\n\n\n"
                       "class Builder:\n"
                       "    json_dumps = staticmethod(json.dumps)\n"
                       "    loads = classmethod(parse)\n"
                       "    size = property(parse)\n"
                       "    def __init__(self, data):\n"
                       "        self.data = self.json_dumps(data)\n"    # 11
                       "        self.back = self.loads(self.data)\n\n\n"  # 12
                       "def encoder():\n"
                       "    return Encoder()\n"),
    "tests/test_builder.py": "from pkg.builder import Builder\n\n\ndef test_build():\n    assert Builder({'a': 1}).data\n",
}


def test_a_class_attribute_wrapping_a_function_calls_that_function(tmp_path, index_files):
    """werkzeug's EnvironBuilder: `json_dumps = staticmethod(json.dumps)`, then `self.json_dumps(data)`
    in `__init__`, was called through an attribute named like nothing defined: test selection's
    dispatch rule then ran every class test.py imports for each test making an EnvironBuilder (113
    false test-file pairs, bench/BENCHMARKS.md cc). What `staticmethod(f)` / `classmethod(f)` holds is f."""
    ws = index_files(tmp_path, WRAPPED)
    try:
        assert calls_at(ws, "pkg/builder.py", 11) == []  # json's: outside, never guessed to Encoder.dumps
        assert calls_at(ws, "pkg/builder.py", 12) == [("pkg/parse.py::parse", "import")]
        cur = ws.store.cursor()
        held = cur.execute("SELECT name, rtype FROM refs WHERE kind = 'heldtype' ORDER BY name").fetchall()
        assert held == [("json_dumps", "json.dumps"), ("loads", "parse")]  # a property's getter is not what it holds
        assert ws.impact("pkg/enc.py::Encoder", depth=3)["tests"] == []  # making a Builder makes no Encoder
        assert ws.impact("pkg/parse.py::parse", depth=3)["tests"] == ["tests/test_builder.py"]
    finally:
        ws.close()
