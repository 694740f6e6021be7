"""A function defined inside another is a local of it: a call on a receiver (`x.strip()`) never
reaches it, so it is never a guess by name for one (werkzeug: `iter_sys_path.strip`, a def inside a
function of testapp.py, was guessed for every `value.strip()` the index could not type; Django: 131
such guesses). A call of it by name where it is bound still resolves."""

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
    ),
    "pkg/use.py": (
        "import pkg.app as app\n"          # 1
        "def go(value, other):\n"          # 2
        "    value.strip()\n"              # 3: only a nested def is named so
        "    other.trim()\n"               # 4: only a def inside a method is named so
        "    app.walk([])\n"               # 5
        "    other.trimmed(1)\n"           # 6: a method: still a guess
    ),
}


def test_a_nested_def_is_no_guess_for_a_call_on_a_receiver(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/use.py", 3) == []
    assert calls_at(ws, "pkg/use.py", 4) == []
    assert [c[0] for c in calls_at(ws, "pkg/use.py", 5)] == ["pkg/app.py::walk"]
    assert calls_at(ws, "pkg/use.py", 6) == [("pkg/app.py::Text.trimmed", "name_unique")]
    # where it is bound, its name calls it
    assert [c[0] for c in calls_at(ws, "pkg/app.py", 4)] == ["pkg/app.py::walk.strip"]
    assert [c[0] for c in calls_at(ws, "pkg/app.py", 9)] == ["pkg/app.py::Text.clean.trim"]
    ws.close()
