"""A `for` with a tuple target reads each name's slot of what it iterates (index/elements.py):
`for k, v in self._body` with `self._body: list[tuple[Key | None, Item]]`, `for name, item in
table.items()` with `table: dict[str, Item]`, `.values()`, a mapping's keys, a comprehension's
tuple target. tomlkit renders its containers so; each such call was a guess among every class
defining `as_string`."""

import pytest
import test_return_calls as return_calls
from test_return_calls import calls_at

from memory_lsp.index import elements, receivers
from memory_lsp.index.extract import extract

ITEMS = (
    "from __future__ import annotations\n\n\n"
    "class Key:\n    def as_string(self):\n        return 'k'\n\n\n"
    "class Item:\n    def as_string(self):\n        return 'i'\n\n\n"
    "class Other:\n    def as_string(self):\n        return 'o'\n\n\n"
    "class Container:\n"
    "    def __init__(self) -> None:\n"
    "        self._body: list[tuple[Key | None, Item]] = []\n"
    "        self._map: dict[str, Item] = {}\n\n"
    "    def render(self):\n"
    "        for k, v in self._body:\n"
    "            k.as_string()\n"                                                        # 26
    "            v.as_string()\n"                                                        # 27
    "        for name, item in self._map.items():\n"
    "            item.as_string()\n"                                                     # 29
    "        for item in self._map.values():\n"
    "            item.as_string()\n"                                                     # 31
    "        return [v.as_string() for _, v in self._body]\n\n\n"                        # 32
    "def pairs(rows: list[tuple[Key, Other]], table: dict[Key, Item]):\n"
    "    for a, b in rows:\n"
    "        a.as_string()\n"                                                            # 37
    "        b.as_string()\n"                                                            # 38
    "    for (key, value) in table.items():\n"
    "        key.as_string()\n"                                                          # 40
    "        value.as_string()\n"                                                        # 41
    "    for key in table:\n"
    "        key.as_string()\n"                                                          # 43
    "    for pair in table.items():\n"
    "        pair.as_string()\n"                                                         # 45
    "    for a, b in table.values():\n"
    "        b.as_string()\n"                                                            # 47
    "    for i, (a, b) in enumerate(rows):\n"
    "        i.as_string()\n"                                                            # 49
    "    for i, r in enumerate(rows):\n"
    "        r.as_string()\n"                                                            # 51
    "    for x, y in zip(things(), rows):\n"
    "        x.as_string()\n"                                                            # 53
    "    for x, y in zip(rows, [Other()]):\n"
    "        y.as_string()\n"                                                            # 55
    "    for i, b in enumerate(rows, start=1):\n"
    "        i.as_string()\n"                                                            # 57
    "    for i, t in enumerate(things()):\n"
    "        t.as_string()\n"                                                            # 59
    "\n\ndef things() -> list[Item]:\n    return []\n"
    "\n\ndef nested(rows: list[tuple[Key, Other]], table: dict[Key, Item]):\n"
    "    for i, (a, b) in enumerate(rows, start=1):\n"
    "        a.as_string()\n"                                                            # 68
    "        b.as_string()\n"                                                            # 69
    "    for n, (k, v) in enumerate(table.items()):\n"
    "        k.as_string()\n"                                                            # 71
    "        v.as_string()\n"                                                            # 72
    "    for i, t in enumerate(things(), 1):\n"
    "        t.as_string()\n"                                                            # 74
    "    for x, (p, q) in zip(rows, rows):\n"
    "        q.as_string()\n"                                                            # 76
    "    for x, (p, q) in rows:\n"
    "        p.as_string()\n"                                                            # 78
)
FILES = {"pkg/__init__.py": "", "pkg/items.py": ITEMS}
KEY, ITEM, OTHER = (f"pkg/items.py::{c}.as_string" for c in ("Key", "Item", "Other"))


def test_each_name_of_a_tuple_target_is_its_slot_of_the_elements(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        want = {26: KEY, 27: ITEM, 29: ITEM, 31: ITEM, 32: ITEM, 37: KEY, 38: OTHER, 40: KEY, 41: ITEM, 43: KEY}
        for line, target in want.items():
            assert calls_at(ws, "pkg/items.py", line) == [(target, "typed")], line
        # enumerate's and zip's items pair their arguments' elements
        assert calls_at(ws, "pkg/items.py", 53) == [(ITEM, "typed")]
        assert calls_at(ws, "pkg/items.py", 59) == [(ITEM, "typed")]
        for line in (45, 47, 49, 51, 55, 57):  # a pair itself, no tuples, an index, a list literal's element
            assert all(strategy != "typed" for _, strategy in calls_at(ws, "pkg/items.py", line)), line
    finally:
        ws.close()


def test_a_tuple_in_the_second_place_reads_the_slots_of_that_slot(tmp_path, index_files):
    # tomlkit's Container: `for i, (k, v) in enumerate(self._body)`; enumerate's `start` given or not
    ws = index_files(tmp_path, FILES)
    try:
        for line, target in {68: KEY, 69: OTHER, 71: KEY, 72: ITEM, 74: ITEM, 76: OTHER}.items():
            assert calls_at(ws, "pkg/items.py", line) == [(target, "typed")], line
        # rows' elements' second slot is Other, a class: no tuple whose slots could be read
        assert all(strategy != "typed" for _, strategy in calls_at(ws, "pkg/items.py", 78))
    finally:
        ws.close()


def test_an_annotation_edited_retypes_the_slots_as_a_fresh_index(tmp_path, write_files):
    return_calls._edit_and_compare(tmp_path, write_files, "pkg/items.py", "list[tuple[Key, Other]]",
                                   "list[tuple[Other, Key]]", ("pkg/items.py", 37), [(OTHER, "typed")],
                                   strategies=("typed",), files=FILES)


def test_an_attribute_annotated_a_mapping_is_python_s_mapping():
    text = ITEMS + "\n\nclass Holder:\n    def __init__(self) -> None:\n        self.funcs: dict[\n" \
                   "            Key, list[Item]\n        ] = {}\n\n    def add(self):\n        self.funcs.setdefault(1, [])\n"
    refs = extract("pkg/items.py", text.encode(), "python").refs
    assert [r.rtype for r in refs if r.name == "setdefault"] == ["builtin"]  # not Key: the keys' type


@pytest.mark.parametrize("annotation, want", [
    ("list[tuple[Key | None, Item]]", {"[]0": "Key", "[]1": "Item"}),
    ("Sequence[Tuple['Key', Item]]", {"[]0": "Key", "[]1": "Item"}),
    ("dict[str, Item]", {"{}0": "builtin", "{}1": "Item"}),  # Python's values kept as Python's
    ("Mapping[Key, list[Item]]", {"{}0": "Key", "{}1": "builtin"}),
    ("dict[tuple[Key, Item], Other]", {"{}0": "builtin", "{}1": "Other"}),
    ("list[Item]", {}),
    ("tuple[Key, Item]", {}),  # a tuple itself iterates its items: no slots
])
def test_slots_read_from_an_annotation(annotation, want):
    got = elements.slots(annotation, elements.element_text(annotation), receivers.ELEMENT, receivers.annotation_type)
    assert got == want
