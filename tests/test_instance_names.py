"""A method's first parameter is the instance whatever its name (click's `Context.invoke(__self,
callback, ...)`), and a classmethod's is the class: calls on it resolve as calls on `self` / `cls`,
and what they return types the names bound to them. Before, `ctx = __self._make_sub_context(cmd);
ctx.params.update(kwargs)` was guessed by name to `ProgressBar.update` (13 of click's 73 test
selection false positives went through it)."""

from test_return_calls import calls_at

from memory_lsp.index.extract import extract

FILES = {
    "pkg/__init__.py": "",
    "pkg/bar.py": "class Progress:\n    def update(self, n):\n        pass\n",
    "pkg/core.py": (
        "class Context:\n"                                    # 1
        "    def __init__(self):\n"                           # 2
        "        self.params = {}\n"                          # 3
        "    def sub(self, cmd) -> 'Context':\n"              # 4
        "        return Context()\n"                          # 5
        "    def invoke(__self, callback, **kwargs):\n"       # 6
        "        ctx = __self.sub(callback)\n"                # 7
        "        ctx.params.update(kwargs)\n"                 # 8
        "        def later():\n"                              # 9
        "            return __self.forward(callback)\n"       # 10
        "        return later\n"                              # 11
        "    def forward(this, cmd):\n"                       # 12
        "        return this.invoke(cmd)\n"                   # 13
        "    @classmethod\n"                                  # 14
        "    def make(klass):\n"                              # 15
        "        return klass.sub(klass(), None)\n"           # 16
        "    @staticmethod\n"                                 # 17
        "    def plain(p):\n"                                 # 18
        "        p.update(1)\n"                               # 19
    ),
}


def test_calls_on_the_first_parameter_are_calls_on_the_instance(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/core.py", 7) == [("pkg/core.py::Context.sub", "self")]
    # what `__self.sub()` returns types ctx: a Context, whose `params` is a dict: no name guess
    assert calls_at(ws, "pkg/core.py", 8) == []
    assert calls_at(ws, "pkg/core.py", 10) == [("pkg/core.py::Context.forward", "self")]  # in a nested function
    assert calls_at(ws, "pkg/core.py", 13) == [("pkg/core.py::Context.invoke", "self")]
    assert calls_at(ws, "pkg/core.py", 16) == [("pkg/core.py::Context.sub", "self")]  # a classmethod's class
    # a staticmethod's first parameter is not the instance: left to name guesses as before
    assert [dst for dst, _how in calls_at(ws, "pkg/core.py", 19)] == ["pkg/bar.py::Progress.update"]
    ws.close()


def test_the_renamed_parameter_is_no_binding_and_no_fixture():
    facts = extract("tests/test_c.py", FILES["pkg/core.py"].encode(), "python")
    refs = [(r.kind, r.src, r.name, r.receiver) for r in facts.refs if r.src and r.src.startswith("Context.")]
    assert ("call", "Context.invoke", "sub", "self") in refs
    assert ("call", "Context.make", "sub", "cls") in refs
    # in a test file a parameter names a fixture; the instance under another name does not
    assert not [r for r in refs if r[0] == "fixture" and r[2] in ("__self", "this", "klass")]
    assert ("fixture", "Context.invoke", "callback", None) in refs
