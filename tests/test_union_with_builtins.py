"""A union of one class with Python's own types is that class for a method call: werkzeug's
`container: t.IO[bytes] | list[bytes]`, then `container.seek(0)`, was guessed at `HTMLStringO.seek`
(15 of its test selection's false pairs); an IO's seek, from outside, is no workspace method."""

from test_return_calls import calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/box.py": (
        "class Box:\n"
        "    def seek(self, n):\n"
        "        pass\n"
        "    def find(self, x):\n"
        "        return 0\n"
        "class Other:\n"
        "    def find(self, x):\n"
        "        return 1\n"
    ),
    "pkg/use.py": (
        "import typing as t\n"                                  # 1
        "from pkg.box import Box\n"                             # 2
        "def parse(container: t.IO[bytes] | list[bytes]):\n"    # 3
        "    container.seek(0)\n"                               # 4
        "def pick(b: Box | list[int], s: str | bytes, o: 'Box | None'):\n"  # 5
        "    b.find(1)\n"                                       # 6
        "    s.find('x')\n"                                     # 7
        "    o.find(2)\n"                                       # 8
        "def both(x: Box | t.IO[bytes]):\n"                     # 9
        "    x.find(3)\n"                                       # 10: two classes: no type, a guess as before
    ),
}


def test_a_class_with_pythons_types_is_the_class(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/use.py", 4) == []  # typing's IO: from outside
    assert calls_at(ws, "pkg/use.py", 6) == [("pkg/box.py::Box.find", "typed")]
    assert calls_at(ws, "pkg/use.py", 7) == []  # Python's own alone, as before
    assert calls_at(ws, "pkg/use.py", 8) == [("pkg/box.py::Box.find", "typed")]
    assert {c[1] for c in calls_at(ws, "pkg/use.py", 10)} == {"name_ambiguous"}
    ws.close()
