"""A call of a parameter calls its default when the caller passes none: cachetools'
`def cachedmethod(cache, key=keys.methodkey)`, then `key(self, *args)` in the wrapper it makes,
and `def __setitem__(self, key, value, cache_setitem=Cache.__setitem__)`, then
`cache_setitem(self, key, value)` (136 such calls in cachetools). Without an edge, what breaks
when keys.methodkey changes listed nothing, and test selection missed the tests running it."""

from test_return_calls import _edit_and_compare, calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/keys.py": "def methodkey(self, *args):\n    return args\n",
    "pkg/cache.py": (
        "from pkg import keys\n"                                        # 1
        "class Cache:\n"                                                # 2
        "    def __setitem__(self, k, v):\n"                            # 3
        "        pass\n"                                                # 4
        "class LRU(Cache):\n"                                           # 5
        "    def __setitem__(self, k, v, cache_setitem=Cache.__setitem__):\n"  # 6
        "        cache_setitem(self, k, v)\n"                           # 7
        "def cachedmethod(cache, key=keys.methodkey, factory=dict, lock=None):\n"  # 8
        "    def decorator(method):\n"                                  # 9
        "        def wrapper(self, *args):\n"                           # 10
        "            k = key(self, *args)\n"                            # 11
        "            d = factory()\n"                                   # 12
        "            return method(self, *args)\n"                      # 13
        "        return wrapper\n"                                      # 14
        "    return decorator\n"                                        # 15
    ),
    "tests/__init__.py": "",
    "tests/test_cached.py": (
        "from pkg.cache import cachedmethod\n\n\n"
        "class Item:\n"
        "    @cachedmethod({})\n"
        "    def get(self, n):\n"
        "        return n\n\n\n"
        "def test_get():\n"
        "    assert Item().get(1) == 1\n"
    ),
    "tests/test_other.py": "def test_nothing():\n    assert True\n",
}


def test_a_call_of_a_parameter_calls_its_default(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert [c[0] for c in calls_at(ws, "pkg/cache.py", 11)] == ["pkg/keys.py::methodkey"]
        assert [c[0] for c in calls_at(ws, "pkg/cache.py", 7)] == ["pkg/cache.py::Cache.__setitem__"]
        assert calls_at(ws, "pkg/cache.py", 12) == []  # Python's dict
        assert ws.impact("pkg/keys.py::methodkey", depth=3)["tests"] == ["tests/test_cached.py"]
    finally:
        ws.close()


def test_a_default_changed_is_followed(tmp_path, write_files):
    # the default renamed to another function of the same module: an editor's run equals a fresh index
    _edit_and_compare(tmp_path, write_files, "pkg/cache.py", "key=keys.methodkey", "key=keys.otherkey",
                      ("pkg/cache.py", 11), [("pkg/keys.py::otherkey", "module_attr")], strategies=("",),
                      files={**FILES, "pkg/keys.py": FILES["pkg/keys.py"] + "def otherkey(self, *args):\n    return ()\n"})


MADE = {
    "pkg/__init__.py": "",
    "pkg/wrappers.py": ("class Request:\n    def __init__(self, environ):\n        self.environ = environ\n\n"
                        "    def copy(self):\n        return self\n\n\nclass Other:\n    def copy(self):\n        return 0\n"),
    "pkg/builder.py": (
        "import typing as t\n"                                                    # 1
        "from pkg.wrappers import Request\n\n\n"                                  # 2
        "class Builder:\n"                                                        # 5
        "    request_class = Request\n\n"                                         # 6
        "    def get_request(self, cls: type[Request] | None = None) -> Request:\n"  # 8
        "        if cls is None:\n"                                               # 9
        "            cls = self.request_class\n"                                  # 10
        "        return cls({})\n\n"                                              # 11
        "    def other(self, cls: t.Optional[t.Type['Request']] = None):\n"      # 13
        "        cls.method()\n"                                                  # 14
        "        return cls()\n\n\n"                                              # 15
        "class Client:\n"                                                         # 18
        "    def __init__(self, wrapper=None, made=None):\n"                      # 19
        "        self.wrapper = t.cast(t.Type['Request'], wrapper)\n"             # 20
        "        self.made: type[Request] = made\n\n"                             # 21
        "    def open(self):\n"                                                   # 23
        "        first = self.wrapper({})\n"                                       # 24
        "        return first, self.made({})\n\n\n"                               # 25
        "R = t.TypeVar('R', bound='Request')\n\n\n"                               # 28
        "def build(cls: type[R]):\n"                                             # 31
        "    return cls({})\n\n\n"                                               # 32
        "def send(cls: type[Request] | None = None):\n"                          # 35
        "    rv = cls({})\n"                                                     # 36
        "    rv = rv.copy()\n"                                                   # 37
        "    return rv\n"                                                        # 38
    ),
    "tests/test_builder.py": "from pkg.builder import Builder\n\n\ndef test_get():\n    assert Builder().get_request()\n",
}


def test_a_call_of_a_name_annotated_type_of_a_class_makes_one(tmp_path, index_files):
    """werkzeug's `EnvironBuilder.get_request(self, cls: type[Request] | None = None)`, then `cls(...)`:
    a bare call of a parameter was the parameter's ('local'), linked to nothing, and the tests making
    requests through it were selected only by accident (bench/BENCHMARKS.md cc). Also: `type[Foo] | None`
    types `cls.m()` as Foo's (it was nothing), as `Optional[Type[Foo]]` did."""
    ws = index_files(tmp_path, MADE)
    try:
        assert [c[0] for c in calls_at(ws, "pkg/builder.py", 11)] == ["pkg/wrappers.py::Request"]
        assert [c[0] for c in calls_at(ws, "pkg/builder.py", 15)] == ["pkg/wrappers.py::Request"]
        # an attribute cast to or annotated `type[Foo]` (werkzeug's `Client.response_wrapper`): a call of it makes a Foo
        assert [c[0] for c in calls_at(ws, "pkg/builder.py", 24)] == ["pkg/wrappers.py::Request"]
        assert [c[0] for c in calls_at(ws, "pkg/builder.py", 25)] == ["pkg/wrappers.py::Request"]
        # `type[R]` of a TypeVar bound to Request (werkzeug's `parse_csp_header(..., cls: type[_TAnyCSP])`)
        assert [c[0] for c in calls_at(ws, "pkg/builder.py", 32)] == ["pkg/wrappers.py::Request"]
        # `rv = cls(...)` makes a Request; `rv = rv.copy()` calls the copy of what rv was above (werkzeug's
        # send_file: the guess at `make_conditional` held Response.make_conditional for every Response made)
        assert calls_at(ws, "pkg/builder.py", 37) == [("pkg/wrappers.py::Request.copy", "typed")]
        assert ws.impact("pkg/wrappers.py::Request.__init__", depth=3)["tests"] == ["tests/test_builder.py"]
    finally:
        ws.close()
