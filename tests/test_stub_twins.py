"""A stub beside its module (`headers.pyi` by `headers.py`, as werkzeug 3.0 ships them) declares
the module's definitions. Each of its methods counted as a second definition, so a call guessed by
name became ambiguous (0.25, not listed: werkzeug's `headers.to_wsgi_list()`), and `impact` on a
stub's symbol found nothing, calls linking the module's definition (imports prefer the .py)."""

from test_return_calls import calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/headers.py": "class Headers:\n    def to_wsgi_list(self):\n        return []\n",
    "pkg/headers.pyi": "class Headers:\n    def to_wsgi_list(self) -> list: ...\n",
    "pkg/other.py": "class Cache:\n    def clear(self):\n        pass\n",
    "pkg/other2.py": "class Store:\n    def clear(self):\n        pass\n",
    "pkg/use.py": ("def environ(headers):\n"
                   "    return headers.to_wsgi_list()\n\n\n"   # 2: untyped, one definition and its stub
                   "def wipe(thing):\n"
                   "    thing.clear()\n\n\n"                   # 6: two definitions, no stub
                   "def outer(h):\n"
                   "    return environ(h)\n"),
}


def test_a_stub_is_no_second_candidate_and_answers_for_its_module(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "pkg/use.py", 2) == [("pkg/headers.py::Headers.to_wsgi_list", "name_unique")]
        assert [s for _, s in calls_at(ws, "pkg/use.py", 6)] == ["name_ambiguous"] * 2  # real alternatives stay
        listed = ws.impact("pkg/headers.pyi::Headers.to_wsgi_list", depth=2)  # the default threshold
        assert [d["symbol"] for d in listed["dependents"]] == ["environ", "outer"]
        assert [d["symbol"] for d in ws.impact("pkg/headers.py::Headers.to_wsgi_list", depth=2)["dependents"]] \
            == ["environ", "outer"]
        # a lens or hover in the stub counts the same dependents
        assert ws.snapshot().impact_counts("pkg/headers.pyi::Headers.to_wsgi_list", "pkg/headers.pyi", 2,
                                           wait=True) == (2, 0)
    finally:
        ws.close()
