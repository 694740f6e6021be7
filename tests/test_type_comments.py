"""Issue 12 item 1: a PEP 484 type comment types its assignment as an annotation would. marshmallow's
`self.dump_fields = {}  # type: typing.Dict[str, ma_fields.Field]`, then `for attr_name, field_obj in
self.dump_fields.items(): field_obj.serialize(...)`: the call was a name guess under the listed
confidence, and `impact` on `Field.serialize` found 59 of its 196 dependents (by jedi)."""

from test_call_returns import _edited_equals_fresh

from memory_lsp.index import extract

SCHEMA = (
    "import typing\n"                                                              # 1
    "from pkg import fields as ma_fields\n"                                        # 2
    "class Schema:\n"                                                              # 3
    "    def __init__(self):\n"                                                    # 4
    "        self.dump_fields = {}  # type: typing.Dict[str, ma_fields.Field]\n"   # 5
    "        self.other = make()  # type: ignore[attr-defined]\n"                  # 6
    "    def dump(self, obj):\n"                                                   # 7
    "        for name, field_obj in self.dump_fields.items():\n"                   # 8
    "            field_obj.serialize(name, obj)\n"                                 # 9
    "        self.other.serialize(obj)\n"                                          # 10
    "        nested = load()  # type: ma_fields.Nested  # noqa: E501\n"            # 11
    "        return nested.serialize('x', obj)\n"                                  # 12
    "def convert(a, b):  # type: (int, str) -> ma_fields.Field\n"                  # 13
    "    return a.serialize(b)\n"                                                  # 14
)
FIELDS = (
    "class Field:\n    def serialize(self, name, obj):\n        return obj\n"
    "class Nested(Field):\n    pass\n"
    "class Other:\n    def serialize(self, name, obj):\n        return None\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/fields.py": FIELDS,
    "pkg/schema.py": SCHEMA,
    "tests/test_schema.py": "from pkg.schema import Schema\ndef test_dump():\n    assert Schema().dump(1) is None\n",
}


def test_a_type_comment_types_its_assignment():
    rtypes = {(r.line, r.name): r.rtype for r in extract.extract("pkg/schema.py", SCHEMA.encode(), "python").refs
              if r.kind == "call"}
    assert rtypes[(9, "serialize")] == "ma_fields.Field"  # the mapping's values
    assert rtypes[(10, "serialize")] == "->make"  # `# type: ignore[...]` types nothing: what make() returns
    assert rtypes[(12, "serialize")] == "ma_fields.Nested"  # a comment after it is not part of the type
    assert rtypes[(14, "serialize")] is None  # a signature's comment is not read


def test_the_typed_call_is_listed_by_impact(index_files, tmp_path):
    ws = index_files(tmp_path / "ws", FILES)
    answer = ws.impact("pkg/fields.py::Field.serialize", depth=3)  # at the default confidence
    assert "Schema.dump" in {d["symbol"] for d in answer["dependents"]}
    assert answer["tests"] == ["tests/test_schema.py"]
    ws.close()


def test_an_edit_dropping_the_comment_equals_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    incremental = _edited_equals_fresh(tmp_path, root, "pkg/schema.py",
                                       SCHEMA.replace("  # type: typing.Dict[str, ma_fields.Field]", ""))
    # the call at line 9 is a guess again, under the listed confidence
    assert {(strategy, confidence) for src, dst, _kind, _sp, _dp, line, confidence, strategy, *_ in incremental["edges"]
            if src == "pkg/schema.py::Schema.dump" and line == 9} <= {("name_ambiguous", 0.25), ("name_unique", 0.5)}
