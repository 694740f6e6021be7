"""A call on an item of a typed mapping or list (`self.tags[key].to_python(value)` with
`self.tags: dict[str, JSONTag]`, flask's tag.py) is a call on that class, as jedi reads it: it was
untyped, a guess at every workspace method of the name (here two namesakes: below the listing
threshold, so "what breaks if JSONTag.to_python changes" missed the caller). A slice of a list is
no element. An item of a mapping or list of Python's values (`names: dict[str, str]`) is Python's:
no workspace method is guessed there, nor on a loop's variable over one (`for s in words`)."""

from test_fixture_calls import fresh_snapshot
from test_guess_families import calls_from
from test_incremental import snapshot

from memory_lsp.index import exprtext

TAGS = ("class JSONTag:\n    def to_python(self, value):\n        return value\n\n\n"
        "class Serializer:\n    def to_python(self, value):\n        return value\n")
FILES = {
    "pkg/__init__.py": "",
    "pkg/tags.py": TAGS,
    "pkg/use.py": (
        "from pkg.tags import JSONTag\n"
        "\n"
        "\n"
        "class TaggedJSON:\n"
        "    order: list[JSONTag]\n"
        "\n"
        "    def __init__(self):\n"
        "        self.tags: dict[str, JSONTag] = {}\n"
        "\n"
        "    def untag(self, key, value):\n"
        "        return self.tags[key].to_python(value)\n"        # 11: a value of the mapping
        "\n"
        "    def first(self, value):\n"
        "        return self.order[0].to_python(value)\n"         # 14: an element of the list
        "\n"
        "    def some(self, value):\n"
        "        return self.order[1:].to_python(value)\n"        # 17: a slice: not an element
        "\n"
        "\n"
        "def by_param(table: dict[str, JSONTag], names: dict[str, str], key):\n"
        "    names[key].to_python(1)\n"                          # 21: a str: Python's
        "    return table[key.lower()].to_python(1)\n"           # 22: a value of the parameter's mapping
        "\n"
        "\n"
        "def loop(words: list[str], pairs: dict[str, bytes]):\n"
        "    for w in words:\n"
        "        w.to_python(2)\n"                               # 27: a str
        "    for k, v in pairs.items():\n"
        "        v.to_python(3)\n"                               # 29: bytes
    ),
}


def test_a_call_on_an_item_of_a_typed_mapping_or_list_is_a_call_on_its_class(tmp_path, index_files):
    ws = index_files(tmp_path / "ws", FILES)
    try:
        typed = {line for line, dst, strategy in calls_from(ws, "pkg/use.py")
                 if dst == "pkg/tags.py::JSONTag.to_python" and strategy == "typed"}
        assert typed == {11, 14, 22}
        assert not {line for line, _, _ in calls_from(ws, "pkg/use.py")} & {21, 27, 29}  # Python's values
        guessed = {line for line, _, strategy in calls_from(ws, "pkg/use.py") if strategy.startswith("name_")}
        assert guessed == {17}  # unknown: a guess by name, as before
        callers = {d["symbol"] for d in ws.impact("pkg/tags.py::JSONTag.to_python", depth=1)["dependents"]}
        assert {"TaggedJSON.untag", "TaggedJSON.first", "by_param"} <= callers
        # an editor's run of the file reads the same as a fresh index
        text = "# typed\n" + FILES["pkg/use.py"].replace("table[key.lower()]", "table[key]")
        (ws.root / "pkg/use.py").write_text(text)
        ws.reindex({"pkg/use.py": text.encode()})
        assert snapshot(ws) == fresh_snapshot(ws.root, tmp_path / "fresh.duckdb")
    finally:
        ws.close()


def test_the_outer_subscript_is_split_off():
    assert exprtext.split_subscript("self.tags[key]") == ("self.tags", "key")
    assert exprtext.split_subscript("d[a[0]][k.lower()]") == ("d[a[0]]", "k.lower()")
    assert exprtext.split_subscript("[a, b]") is None
    assert exprtext.split_subscript("f(x)") is None
