"""What Python's strings and `defaultdict`s give is typed, so a call on it is never a workspace
method guessed by name (issue 12 class B). werkzeug's `parse_options_header(value: str | None)`
did `value, _, rest = value.partition(";")`, then `rest.find(";")`: a guess at `Accept.find` that
made 19 of its test selection's false pairs; its `combined_headers = defaultdict(list)`, then
`combined_headers[key].append(value)`: a guess at `ImmutableListMixin.append` (11 more)."""

from test_return_calls import _edit_and_compare, calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/box.py": (
        "class Box:\n"
        "    def find(self, x):\n"
        "        return 0\n"
        "    def append(self, x):\n"
        "        pass\n"
        "    def strip(self):\n"
        "        return self\n"
    ),
    "pkg/use.py": (
        "from collections import defaultdict\n"      # 1
        "import collections\n"                       # 2
        "from pkg.box import Box\n"                  # 3
        "def parse(value: str, items):\n"            # 4
        "    value, _, rest = value.partition(';')\n"  # 5
        "    rest = rest.strip()\n"                  # 6
        "    rest.find(';')\n"                       # 7
        "    for part in value.split(','):\n"        # 8
        "        part.find('=')\n"                   # 9
        "    joined = ', '.join(items)\n"            # 10
        "    joined.find('x')\n"                     # 11
        "    head, tail = value.split('=', 1)\n"     # 12
        "    tail.find('y')\n"                       # 13
        "    rest = rest[1:].lstrip()\n"             # 14: a slice of a string
        "    rest.find(';')\n"                       # 15
        "class Table:\n"                             # 16
        "    def __init__(self):\n"                  # 17
        "        self.rows = defaultdict(list)\n"    # 18
        "        self.boxes = collections.defaultdict(Box)\n"  # 19
        "    def add(self, k, v):\n"                 # 20
        "        self.rows[k].append(v)\n"           # 21
        "        self.boxes[k].append(v)\n"          # 22
        "        groups = defaultdict(list)\n"       # 23
        "        groups[k].append(v)\n"              # 24
        "        made = defaultdict(Box)\n"          # 25
        "        made[k].find(v)\n"                  # 26
        "        kept = made[k].strip()\n"           # 27: what Box.strip returns
        "        kept.find(v)\n"                     # 28
        "class Engine:\n"                            # 29
        "    def lookup(self, name):\n"              # 30
        "        return None, name\n"                # 31
        "    def get(self, name):\n"                 # 32
        "        made, origin = self.lookup(name)\n"  # 33: a tuple's slots, no elements alike
        "        if origin:\n"                       # 34
        "            made = Box()\n"                 # 35
        "        return made\n"                      # 36
        "def render(engine: Engine):\n"              # 37
        "    engine.get('x').find(1)\n"              # 38
    ),
}


def test_a_strings_parts_are_strings(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    for line in (6, 7, 9, 11, 13, 14, 15):  # `rest.strip()`, a split's part, a joined string, a tuple target's, a slice
        assert calls_at(ws, "pkg/use.py", line) == [], line
    ws.close()


def test_a_defaultdicts_values_are_what_its_factory_makes(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert calls_at(ws, "pkg/use.py", 21) == []  # a list's append
    assert calls_at(ws, "pkg/use.py", 24) == []
    assert calls_at(ws, "pkg/use.py", 22) == [("pkg/box.py::Box.append", "typed")]
    assert calls_at(ws, "pkg/use.py", 26) == [("pkg/box.py::Box.find", "typed")]
    assert calls_at(ws, "pkg/use.py", 27) == [("pkg/box.py::Box.strip", "typed")]
    assert calls_at(ws, "pkg/use.py", 28) == [("pkg/box.py::Box.find", "returned")]  # a value's method's return
    ws.close()


def test_a_factory_changed_retypes_the_values(tmp_path, write_files):
    # list -> Box: the call is the workspace's now, and every row equals a fresh index's
    _edit_and_compare(tmp_path, write_files, "pkg/use.py", "groups = defaultdict(list)", "groups = defaultdict(Box)",
                      ("pkg/use.py", 24), [("pkg/box.py::Box.append", "typed")], strategies=("",), files=FILES)


def test_a_tuple_a_method_returns_leaves_its_names_as_they_were(tmp_path, index_files):
    # `made, origin = self.lookup(name)` says nothing of made: the Box bound below still types get()
    ws = index_files(tmp_path, FILES)
    assert [c for c in calls_at(ws, "pkg/use.py", 38) if c[0].endswith(".find")] == [("pkg/box.py::Box.find", "typed")]
    ws.close()
