"""`isinstance(x, Foo)` says what x is in the lines it guards, as jedi reads it. tomlkit's parser
writes `if isinstance(value, Table) and value.is_aot_element():` with `value` bound to a Table or an
AoT: the call was typed AoT (which has no such method) and linked nowhere, so "what breaks if
`Table.is_aot_element` changes" missed `Parser.parse` and the 35 tests through it."""

from test_fixture_calls import fresh_snapshot
from test_guess_families import calls_from
from test_incremental import snapshot

from memory_lsp.workspace import Workspace

ITEMS = ("class Item:\n    def render(self):\n        return ''\n\n\n"
         "class Table(Item):\n    def is_aot(self):\n        return False\n\n"
         "    def render(self):\n        return 't'\n\n\n"
         "class AoT(Item):\n    def render(self):\n        return 'a'\n\n"
         "    def extend(self, x):\n        return x\n\n\n"
         "class Holder:\n    item: Table\n")
FILES = {
    "pkg/__init__.py": "",
    "pkg/items.py": ITEMS,
    "pkg/use.py": (
        "from pkg.items import Item, Table, AoT, Holder\n"
        "\n"
        "\n"
        "def parse(value: Item, other):\n"
        "    if isinstance(value, Table) and value.is_aot():\n"   # 5: and's right side
        "        value.render()\n"                               # 6: the if's block
        "    elif isinstance(value, AoT):\n"
        "        value.render()\n"                               # 8: the elif's block
        "    else:\n"
        "        value.render()\n"                               # 10: what the annotation says
        "    value.render()\n"                                   # 11: after the if: the annotation again
        "    assert isinstance(other, AoT)\n"
        "    other.extend(1)\n"                                  # 13: after the assert
        "\n"
        "\n"
        "def guard(x):\n"
        "    if not isinstance(x, Table):\n"
        "        raise TypeError(x)\n"
        "    return x.render()\n"                                # 19: past a guard that raises
        "\n"
        "\n"
        "def mapping(d):\n"
        "    if isinstance(d, dict):\n"
        "        return d.is_aot()\n"                            # 24: Python's dict: no workspace method
        "    return d.extend(2)\n"                              # 25: unknown: a guess by name (a list has extend too)
        "\n"
        "\n"
        "def rebound(md, make):\n"
        "    assert isinstance(md, dict)\n"
        "    md.x = 1\n"
        "    md = AoT()\n"                                       # werkzeug's test: bound again after the check
        "    md.extend(3)\n"                                     # 32: an AoT, not a dict
        "    if isinstance(make, Table):\n"
        "        make.is_aot()\n"                                # 34
        "        for make in []:\n"
        "            make.is_aot()\n"                            # 36: bound by the for: unknown
        "\n"
        "\n"
        "def holder(h):\n"
        "    if isinstance(h, Holder):\n"
        "        h.item.is_aot()\n"                              # 41: an attribute of the checked class
        "\n"
        "\n"
        "def equal(other):\n"                                    # werkzeug's MultiDict.__eq__
        "    if not isinstance(other, Item):\n"
        "        return NotImplemented\n"
        "    if isinstance(other, AoT):\n"                       # starts where the guard's lines do
        "        other.extend(4)\n"                              # 48: the inner check's
        "    return other.render()\n"                            # 49: the guard's
        "\n"
        "\n"
        "def joined(holders: list[Holder], items: list[Item]):\n"
        "    first = [v.item for v in holders]\n"
        "    return [\n"
        "        v.item.is_aot()\n"                               # 55: an Item's (the for below), not a Holder's
        "        for v in items\n"
        "    ]\n"
        "\n"
        "\n"
        "def last(value, flag):\n"
        "    if flag and isinstance(value, AoT):\n"
        "        value.extend(5)\n"                              # 62: the last of an `and` holds in the block
        "    elif flag or isinstance(value, AoT):\n"
        "        value.extend(6)\n"                              # 64: an `or`: no type
        "\n"
        "\n"
        "def stamp(value: AoT, cls):\n"
        "    from datetime import datetime\n"
        "    if isinstance(value, datetime):\n"
        "        value.extend(7)\n"                              # 70: Python's datetime (a class lowercase): no guess
        "    if isinstance(value, cls):\n"
        "        value.extend(8)\n"                              # 72: a class a parameter holds: the annotation's
        "\n"
        "\n"
        "def rebound_here(value):\n"
        "    if isinstance(value, AoT):\n"
        "        value = value.extend(9)\n"                      # 77: the right side reads the checked value first
        "        value.extend(10)\n"),                           # 78: bound again: unknown, a guess
}

EXPECTED = [
    (5, "pkg/items.py::Table.is_aot", "typed"),
    (6, "pkg/items.py::Table.render", "typed"),
    (8, "pkg/items.py::AoT.render", "typed"),
    (10, "pkg/items.py::Item.render", "typed"),
    (11, "pkg/items.py::Item.render", "typed"),
    (13, "pkg/items.py::AoT.extend", "typed"),
    (19, "pkg/items.py::Table.render", "typed"),
    (25, "pkg/items.py::AoT.extend", "name_ambiguous"),
    (31, "pkg/items.py::AoT", "import"),
    (32, "pkg/items.py::AoT.extend", "typed"),
    (34, "pkg/items.py::Table.is_aot", "typed"),
    (36, "pkg/items.py::Table.is_aot", "name_unique"),
    (41, "pkg/items.py::Table.is_aot", "returned"),
    (48, "pkg/items.py::AoT.extend", "typed"),
    (49, "pkg/items.py::Item.render", "typed"),
    (55, "pkg/items.py::Table.is_aot", "name_unique"),
    (62, "pkg/items.py::AoT.extend", "typed"),
    (64, "pkg/items.py::AoT.extend", "name_ambiguous"),
    (72, "pkg/items.py::AoT.extend", "typed"),
    (77, "pkg/items.py::AoT.extend", "typed"),
    (78, "pkg/items.py::AoT.extend", "name_ambiguous"),
]


def test_an_isinstance_check_types_the_lines_it_guards(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_from(ws, "pkg/use.py") == EXPECTED
        dependents = ws.impact("pkg/items.py::Table.is_aot", depth=1)["dependents"]
        assert sorted(d["symbol"] for d in dependents) == ["holder", "joined", "parse", "rebound"]
    finally:
        ws.close()


def test_an_edited_check_retypes_as_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    try:
        use = root / "pkg/use.py"
        use.write_text(FILES["pkg/use.py"].replace("isinstance(value, Table) and", "isinstance(value, AoT) and"))
        ws.index(workers=0)
        assert (5, "pkg/items.py::Table.is_aot", "typed") not in calls_from(ws, "pkg/use.py")
        assert snapshot(ws) == fresh_snapshot(root, tmp_path / "fresh.duckdb")
        (root / "pkg/items.py").write_text(ITEMS.replace("class AoT(Item)", "class AoT(Table)"))  # AoT gains is_aot
        ws.index(workers=0)
        assert (5, "pkg/items.py::Table.is_aot", "typed_inherited") in calls_from(ws, "pkg/use.py")
        assert snapshot(ws) == fresh_snapshot(root, tmp_path / "fresh2.duckdb")
    finally:
        ws.close()


TUPLES = {
    "pkg/__init__.py": "",
    "pkg/items.py": ITEMS,
    "pkg/tuples.py": (
        "from typing import Optional, Union\n"
        "from pkg.items import Table, AoT\n"
        "\n"
        "\n"
        "def read(raw, t, either):\n"
        "    if isinstance(raw, (str, bytes)):\n"
        "        raw.extend(1)\n"                                # 7: Python's: never AoT's by name
        "    if isinstance(t, (Table,)):\n"
        "        t.is_aot()\n"                                   # 9: a Table
        "    if isinstance(either, (Table, AoT)):\n"
        "        either.extend(2)\n"                             # 11: one of two classes: a guess, as before
        "\n"
        "\n"
        "def annotated(data: str | bytes, seq: 'Union[list, tuple]', opt: Optional[Union[str, bytes]]):\n"
        "    data.extend(3)\n"                                   # 15: each member Python's: Python's
        "    seq.render()\n"                                     # 16
        "    return opt.is_aot()\n"),                            # 17
    "pkg/keep.py": (                                             # werkzeug's Response.__init__
        "from pkg.items import Table\n"
        "\n"
        "\n"
        "class Keep:\n"
        "    table: Table\n"
        "\n"
        "    def __init__(self, table: dict | list | None = None):\n"
        "        if isinstance(table, Table):\n"
        "            self.table = table\n"                       # the check's Table, not the annotation's dict
        "        else:\n"
        "            self.table = Table()\n"
        "\n"
        "    def use(self):\n"
        "        return self.table.is_aot()\n"),                 # 14
}


def test_a_tuple_of_types_and_a_union_say_what_their_members_agree_on(tmp_path, index_files):
    ws = index_files(tmp_path, TUPLES)
    try:
        # (`extend` is also a list's: a guess of it counts one candidate more)
        assert calls_from(ws, "pkg/tuples.py") == [(9, "pkg/items.py::Table.is_aot", "typed"),
                                                   (11, "pkg/items.py::AoT.extend", "name_ambiguous")]
        assert (14, "pkg/items.py::Table.is_aot", "typed") in calls_from(ws, "pkg/keep.py")
    finally:
        ws.close()
