"""A private function's untyped parameter is what its callers in the file pass (index/caller_params.py),
as jedi reads tomlkit's `self._render_simple_item(k, v)` in `for k, v in self._body` with
`_body: list[tuple[Key | None, Item]]`: `item.as_string()` there is Item's. Before, each such call
was a guess at every `as_string` of the workspace (four here: below the listing threshold)."""

from test_fixture_calls import fresh_snapshot
from test_guess_families import calls_from
from test_incremental import snapshot

ITEMS = ("class Key:\n    def as_string(self):\n        return 'k'\n\n\n"
         "class Item:\n    def as_string(self):\n        return 'i'\n\n\n"
         "class Other:\n    def as_string(self):\n        return 'o'\n")
CONTAINER = (
    "from pkg.items import Item, Key, Other\n"
    "\n"
    "\n"
    "class Container:\n"
    "    def __init__(self):\n"
    "        self._body: list[tuple[Key | None, Item]] = []\n"
    "\n"
    "    def as_string(self):\n"
    "        for k, v in self._body:\n"
    "            self._render(k, v)\n"
    "            self._render(k, item=v, prefix=1)\n"
    "        self._render(*self._body[0])\n"             # 12: unpacked: says nothing
    "        return self._render(elsewhere, None)\n"    # 13: an untyped argument says nothing either
    "\n"
    "    def _render(self, key, item, prefix=None):\n"
    "        return key.as_string() + item.as_string()\n"  # 16: typed by the callers
    "\n"
    "\n"
    "def _one(x):\n"
    "    return x.as_string()\n"                        # 20: typed: both callers pass an Item
    "\n"
    "\n"
    "def _two(x):\n"
    "    return x.as_string()\n"                        # 24: callers disagree: a guess
    "\n"
    "\n"
    "def public(x):\n"
    "    return x.as_string()\n"                        # 28: another file may pass anything
    "\n"
    "\n"
    "def _rebound(x):\n"
    "    x = make()\n"
    "    return x.as_string()\n"                        # 33: bound in its function: not the callers'
    "\n"
    "\n"
    "def _annotated(x: Other):\n"
    "    return x.as_string()\n"                        # 37: its annotation wins
    "\n"
    "\n"
    "@decorate\n"
    "def _decorated(x):\n"
    "    return x.as_string()\n"                        # 42: a decorator may change the call
    "\n"
    "\n"
    "def calls(it: Item, other: Other):\n"
    "    _one(it)\n"
    "    _one(x=it)\n"
    "    _two(it)\n"
    "    _two(other)\n"
    "    public(it)\n"
    "    _rebound(it)\n"
    "    _annotated(it)\n"
    "    _decorated(it)\n"
    "\n"
    "\n"
    "def _three(a, b):\n"
    "    return b.as_string()\n"                       # 57: the argument after a comment counts
    "\n"
    "\n"
    "def more(it: Item):\n"
    "    return _three(  # a comment among the arguments\n"
    "        None, it)\n"
)
FILES = {"pkg/__init__.py": "", "pkg/items.py": ITEMS, "pkg/container.py": CONTAINER}


def test_a_private_functions_parameter_is_what_its_callers_in_the_file_pass(tmp_path, index_files):
    ws = index_files(tmp_path / "ws", FILES)
    try:
        found = calls_from(ws, "pkg/container.py")
        typed = {(line, dst.rsplit("::", 1)[1]) for line, dst, strategy in found if strategy == "typed"}
        assert {(16, "Key.as_string"), (16, "Item.as_string"), (20, "Item.as_string")} <= typed
        assert (37, "Other.as_string") in typed  # the annotation, not the caller's Item
        assert (57, "Item.as_string") in typed
        for line in (24, 28, 33, 42):  # guesses by name, as before
            assert {s for ln, _, s in found if ln == line} <= {"name_ambiguous"}, line
            assert not {d for ln, d, s in found if ln == line and s == "typed"}, line
        callers = {d["symbol"] for d in ws.impact("pkg/items.py::Item.as_string", depth=2)["dependents"]}
        assert {"Container._render", "Container.as_string", "_one", "calls"} <= callers
        # an editor's run of the file reads the same as a fresh index
        text = CONTAINER.replace("    _two(other)\n", "")  # now both callers of _two pass an Item
        (ws.root / "pkg/container.py").write_text(text)
        ws.reindex({"pkg/container.py": text.encode()})
        assert (24, "pkg/items.py::Item.as_string", "typed") in calls_from(ws, "pkg/container.py")
        assert snapshot(ws) == fresh_snapshot(ws.root, tmp_path / "fresh.duckdb")
    finally:
        ws.close()


NESTED = (
    "from pkg.items import Item, Other\n"
    "\n"
    "\n"
    "def _render(x):\n"
    "    return x.as_string()\n"                       # 5: its one caller passes an Item
    "\n"
    "\n"
    "def outer(other: Other):\n"
    "    def _render(y):\n"
    "        return y\n"
    "    return _render(other)\n"                      # 11: the nested _render's, not the module's
    "\n"
    "\n"
    "def calls(it: Item):\n"
    "    return _render(it)\n"
)


def test_a_call_of_a_nested_function_types_no_module_function_of_its_name(tmp_path, index_files):
    ws = index_files(tmp_path / "ws", {"pkg/__init__.py": "", "pkg/items.py": ITEMS, "pkg/nested.py": NESTED})
    try:
        found = calls_from(ws, "pkg/nested.py")
        assert (5, "pkg/items.py::Item.as_string", "typed") in found, found
    finally:
        ws.close()
