"""A function defined inside another is a local of it, so it is never a guess by name: a call on
a receiver (`x.strip()`) never reaches it (werkzeug: `iter_sys_path.strip`, a def inside a function
of testapp.py, was guessed for every `value.strip()` the index could not type; Django: 131 such
guesses), and a plain call of its name elsewhere calls another binding (webob: `t(k)` after
`t = self._trans_name` in request.py was guessed at a test's nested `t`, and test selection
walked from webob's code into that test file). A call of it by name where it is bound still resolves."""

from test_return_calls import calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/app.py": (
        "def walk(paths):\n"               # 1
        "    def strip(p):\n"              # 2
        "        return p\n"               # 3
        "    return [strip(p) for p in paths]\n"  # 4
        "class Text:\n"                    # 5
        "    def clean(self):\n"           # 6
        "        def trim(s):\n"           # 7
        "            return s\n"           # 8
        "        return trim(self)\n"      # 9
        "    def trimmed(self, s):\n"      # 10
        "        return s\n"               # 11
        "def roots(paths):\n"              # 12
        "    def walk(node):\n"            # 13
        "        return [walk(n) for n in node]\n"  # 14: itself, by its name (werkzeug's `_walk`)
        "    return walk(paths)\n"         # 15
    ),
    "pkg/use.py": (
        "import pkg.app as app\n"          # 1
        "def go(value, other):\n"          # 2
        "    value.strip()\n"              # 3: only a nested def is named so
        "    other.trim()\n"               # 4: only a def inside a method is named so
        "    app.walk([])\n"               # 5
        "    other.trimmed(1)\n"           # 6: a method: still a guess
        "    trim(1)\n"                    # 7: only defs inside other functions are named so
        "    strip(2)\n"                   # 8: the same
    ),
}


def test_a_nested_def_is_no_guess_for_a_call_elsewhere(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/use.py", 3) == []
    assert calls_at(ws, "pkg/use.py", 4) == []
    assert [c[0] for c in calls_at(ws, "pkg/use.py", 5)] == ["pkg/app.py::walk"]
    assert calls_at(ws, "pkg/use.py", 6) == [("pkg/app.py::Text.trimmed", "name_unique")]
    assert calls_at(ws, "pkg/use.py", 7) == calls_at(ws, "pkg/use.py", 8) == []
    # where it is bound, its name calls it
    assert [c[0] for c in calls_at(ws, "pkg/app.py", 4)] == ["pkg/app.py::walk.strip"]
    assert [c[0] for c in calls_at(ws, "pkg/app.py", 9)] == ["pkg/app.py::Text.clean.trim"]
    assert calls_at(ws, "pkg/app.py", 14) == [("pkg/app.py::roots.walk", "same_file")]
    ws.close()
