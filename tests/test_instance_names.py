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


BOUND = {
    "pkg/__init__.py": "",
    "pkg/cache.py": (
        "from collections import deque\n"
        "import typing as t\n"
        "class LRU:\n"
        "    def __init__(self, on_evict):\n"
        "        self._queue: 't.Deque[int]' = deque()\n"
        "        self._remove = self._queue.remove\n"    # a deque's method: Python's
        "        self._evict = on_evict.fire\n"          # a parameter's: not known
        "    def __delitem__(self, key):\n"
        "        self._remove(key)\n"                    # 9
        "    def evict(self, key):\n"
        "        self._evict(key)\n"                     # 11: handed in (a parameter's method)
        "    def hooked(self, key):\n"
        "        self._hook(key)\n"                      # 13: nothing in the class assigns it
    ),
}


def test_an_attribute_bound_to_a_method_of_pythons_value_is_pythons(tmp_path, index_files):
    """jinja2's LRUCache: `self._remove(key)` was a call through an attribute named like nothing
    defined, so test selection took it for a held class or function that may run any file
    cache.py imports (its dispatch rule: 0.668 -> 0.695 precision on jinja2 without these)."""
    from memory_lsp.store import test_reads

    facts = extract("pkg/cache.py", BOUND["pkg/cache.py"].encode(), "python")
    rtypes = {(r.name, r.line): r.rtype for r in facts.refs if r.kind == "call"}
    assert rtypes[("_remove", 9)] == "builtin"
    assert rtypes[("_evict", 11)] is None
    ws = index_files(tmp_path, BOUND)
    try:
        dispatch = test_reads.unresolved_calls(ws.store.cursor())["dispatch"]
        # `self._hook` only: `self._evict` is assigned by the class (tests/test_tests_handed.py)
        assert dispatch["src"].tolist() == ["pkg/cache.py::LRU.hooked"]
        rows = ws.store.cursor().execute("SELECT name FROM refs WHERE path = 'pkg/cache.py' AND line = 9").fetchall()
        assert rows == [("_remove",)]
    finally:
        ws.close()
