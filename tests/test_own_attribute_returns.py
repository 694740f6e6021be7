"""A method called on an attribute of the instance types what it returns: werkzeug's
`self.form.setlistdefault(key).append(value)`, where `form` is a property `-> MultiDict[str, str]`
and MultiDict's stub says `setlistdefault(...) -> list[V]`: a list's append, no longer a guess by
name at `ImmutableListMixin.append`; jinja2: 12 guesses gone, 6 calls typed (issue 12 item 1)."""

from test_return_calls import _edit_and_compare, calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/shelf.py": (
        "class Box:\n"
        "    def find(self, x):\n"
        "        return 0\n"
        "    def append(self, x):\n"
        "        pass\n"
        "class Shelf:\n"
        "    def pick(self) -> 'Box':\n"
        "        return Box()\n"
        "    def slots(self, key) -> list[int]:\n"
        "        return []\n"
    ),
    "pkg/use.py": (
        "from pkg.shelf import Shelf\n"          # 1
        "class User:\n"                          # 2
        "    def __init__(self):\n"              # 3
        "        self.shelf = Shelf()\n"         # 4
        "    @property\n"                        # 5
        "    def spare(self) -> Shelf:\n"        # 6
        "        return Shelf()\n"               # 7
        "    def run(self, k):\n"                # 8
        "        self.shelf.pick().find(k)\n"    # 9
        "        self.spare.pick().find(k)\n"    # 10
        "        self.shelf.slots(k).append(k)\n"  # 11
        "        got = self.spare.pick()\n"      # 12
        "        got.find(k)\n"                  # 13
    ),
}


def _finds(ws, line, name):
    return [c for c in calls_at(ws, "pkg/use.py", line) if c[0].endswith("." + name)]


def test_what_a_method_of_an_attribute_returns_is_typed(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    for line in (9, 10, 13):  # an attribute assigned a Shelf, a property returning one, a local bound to the call
        assert _finds(ws, line, "find") == [("pkg/shelf.py::Box.find", "returned")], line
    assert _finds(ws, 11, "append") == []  # `-> list[int]`: a list's append, not Box.append
    ws.close()


def test_the_returned_class_changed_retypes_the_call(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/shelf.py", "def slots(self, key) -> list[int]:",
                      "def slots(self, key) -> 'Box':", ("pkg/use.py", 11), [("pkg/shelf.py::Box.append", "returned")],
                      strategies=("returned",), files=FILES)
