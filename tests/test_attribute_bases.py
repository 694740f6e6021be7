"""A base written as an attribute of a typed value inherits from the class the attribute's annotation
names: itsdangerous' test `class BadUnsign(serializer.signer)` with `serializer: Serializer`, where
serializer.py says `self.signer: type[Signer] = signer`; `super().unsign()` in it is Signer's. Each edit
of the attribute's class, its annotation or the base class leaves the edges a fresh index makes."""

from test_fixture_calls import fresh_snapshot
from test_incremental import snapshot

from memory_lsp.workspace import Workspace

SIGNER = (
    "class Base:\n"
    "    def unsign(self, value):\n"
    "        return value\n"
    "\n"
    "\n"
    "class Signer(Base):\n"
    "    def sign(self, value):\n"
    "        return value\n"
    "\n"
    "    def unsign(self, value):\n"
    "        return value\n"
    "\n"
    "\n"
    "class Other:\n"
    "    def unsign(self, value):\n"
    "        return value\n"
)
SERIALIZER = (
    "from .signer import Other, Signer\n"
    "\n"
    "\n"
    "class Serializer:\n"
    "    def __init__(self, signer: type[Signer] | None = None):\n"
    "        if signer is None:\n"
    "            signer = Signer\n"
    "        self.signer: type[Signer] = signer\n"
)
TEST = (
    "from pkg.serializer import Serializer\n"
    "\n"
    "\n"
    "class TestSerializer:\n"
    "    def test_loads_unsafe(self, serializer: Serializer):\n"
    "        class BadUnsign(serializer.signer):\n"
    "            def unsign(self, value):\n"
    "                return super().unsign(value)\n"
    "\n"
    "        BadUnsign().sign('x')\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/signer.py": SIGNER,
    "pkg/serializer.py": SERIALIZER,
    # a class named like the attribute: a marked base is never guessed by name
    "pkg/names.py": "class signer:\n    def unsign(self, value):\n        return value\n",
    "tests/test_serializer.py": TEST,
}
BAD = "tests/test_serializer.py::TestSerializer.test_loads_unsafe.BadUnsign"


def bases(ws):
    return sorted(ws.store.cursor().execute(
        "SELECT dst, strategy FROM edges WHERE kind = 'INHERITS' AND src = ?", [BAD]).fetchall())


def calls_at(ws, line):
    return sorted(ws.store.cursor().execute(
        "SELECT dst, strategy FROM edges WHERE kind = 'CALLS' AND src_path = 'tests/test_serializer.py' AND line = ?",
        [line]).fetchall())


def test_a_base_read_from_a_typed_attribute_is_the_class_its_annotation_names(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    assert bases(ws) == [("pkg/signer.py::Signer", "returned")]
    assert calls_at(ws, 8) == [("pkg/signer.py::Signer.unsign", "super")]
    # a call on an instance finds the method in the marked base
    assert ("pkg/signer.py::Signer.sign", "typed_inherited") in calls_at(ws, 10)
    ws.close()


def test_edits_of_the_attribute_its_class_and_the_base_re_resolve_as_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    edits = [  # (path, new text, the base then, the super() call's edges then)
        ("pkg/signer.py", SIGNER.replace("    def unsign(self, value):\n        return value\n\n\nclass Other",
                                         "    def verify(self, value):\n        return value\n\n\nclass Other"),
         [("pkg/signer.py::Signer", "returned")], [("pkg/signer.py::Base.unsign", "super")]),
        ("pkg/signer.py", SIGNER, [("pkg/signer.py::Signer", "returned")], [("pkg/signer.py::Signer.unsign", "super")]),
        ("pkg/serializer.py", SERIALIZER.replace("self.signer: type[Signer]", "self.signer: type[Other]"),
         [("pkg/signer.py::Other", "returned")], [("pkg/signer.py::Other.unsign", "super")]),
        ("pkg/serializer.py", SERIALIZER.replace("        self.signer: type[Signer] = signer\n", "        pass\n"), [], []),
        ("pkg/serializer.py", SERIALIZER, [("pkg/signer.py::Signer", "returned")], [("pkg/signer.py::Signer.unsign", "super")]),
        ("pkg/signer.py", SIGNER.replace("class Signer(Base)", "class Signing(Base)"), [], []),
        ("pkg/signer.py", SIGNER, [("pkg/signer.py::Signer", "returned")], [("pkg/signer.py::Signer.unsign", "super")]),
        ("pkg/serializer.py", SERIALIZER.replace("class Serializer", "class Serial"), [], []),
    ]
    seen = []
    for path, text, base, supers in edits:
        (root / path).write_text(text)
        ws.reindex({path: text.encode()})
        assert (bases(ws), calls_at(ws, 8)) == (base, supers), path
        seen.append(({p: (root / p).read_text() for p in FILES}, snapshot(ws)))
    ws.close()
    for i, (texts, incremental) in enumerate(seen):
        for p, text in texts.items():
            (root / p).write_text(text)
        assert fresh_snapshot(root, tmp_path / f"fresh{i}.duckdb") == incremental, edits[i][:1]
