"""Issue 12 item 1: a local bound to another name or to an attribute (`use = serializer`, `use =
self.serializer`) is what that name or attribute is. itsdangerous's `Serializer.load_payload` picks
`use_serializer = self.serializer` or `use_serializer = serializer` (both annotated
`_PDataSerializer[...]`) and calls `use_serializer.loads(...)`: the receiver had no type, so the
call had no edge and `_PDataSerializer.loads` none of its 13 dependents (by jedi)."""

from test_call_returns import _edited_equals_fresh

from memory_lsp.index import extract

SERIALIZER = (
    "from pkg.protocols import Loader, Other\n"                               # 1
    "class Serializer:\n"                                                     # 2
    "    default = Other\n"                                                   # 3
    "    def __init__(self, loader: Loader):\n"                               # 4
    "        self.loader: Loader = loader\n"                                  # 5
    "    def load(self, payload, loader: Loader | None = None):\n"            # 6
    "        if loader is None:\n"                                            # 7
    "            use = self.loader\n"                                         # 8
    "        else:\n"                                                         # 9
    "            use = loader\n"                                              # 10
    "        return use.loads(payload)\n"                                     # 11
    "    def plain(self, payload):\n"                                         # 12
    "        use = self.loader\n"                                             # 13
    "        return use.loads(payload)\n"                                     # 14
    "    def unknown(self, payload, loader):\n"                               # 15
    "        use = loader\n"                                                  # 16
    "        return use.loads(payload)\n"                                     # 17
)
PROTOCOLS = (
    "class Loader:\n    def loads(self, payload):\n        return payload\n"
    "class Other:\n    def loads(self, payload):\n        return None\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/protocols.py": PROTOCOLS,
    "pkg/serializer.py": SERIALIZER,
    "tests/test_serializer.py": (
        "from pkg.protocols import Loader\nfrom pkg.serializer import Serializer\n"
        "def test_load():\n    assert Serializer(Loader()).load(b'x') == b'x'\n"
    ),
}


def test_a_local_bound_to_a_name_or_attribute_is_what_that_is():
    rtypes = {(r.line, r.name): r.rtype for r in extract.extract("pkg/serializer.py", SERIALIZER.encode(),
                                                                 "python").refs if r.kind == "call"}
    assert rtypes[(11, "loads")] == rtypes[(14, "loads")] == "Loader"  # a parameter's annotation, an attribute's
    assert rtypes[(17, "loads")] is None  # a plain parameter: nothing known


def test_a_class_body_s_name_stays_held():
    facts = extract.extract("pkg/serializer.py", SERIALIZER.encode(), "python")
    assert ("heldtype", "Serializer.default") in {(r.kind, r.src) for r in facts.refs}


def test_the_call_has_its_edge_and_test(index_files, tmp_path):
    ws = index_files(tmp_path / "ws", FILES)
    answer = ws.impact("pkg/protocols.py::Loader.loads", depth=3)  # at the default confidence
    assert {"Serializer.load", "Serializer.plain"} <= {d["symbol"] for d in answer["dependents"]}
    assert answer["tests"] == ["tests/test_serializer.py"]
    assert "Serializer.load" not in {d["symbol"] for d in ws.impact("pkg/protocols.py::Other.loads")["dependents"]}
    ws.close()


def test_an_edit_of_the_alias_equals_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    _edited_equals_fresh(tmp_path, root, "pkg/serializer.py", SERIALIZER.replace("use = self.loader\n", "use = self\n"))
