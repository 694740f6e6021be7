"""A class statement calls its metaclass: `class Schema(metaclass=SchemaMeta)` makes a CALLS edge
Schema -> SchemaMeta, so a test defining a subclass runs SchemaMeta.__new__ (marshmallow's class
registry: coverage counts class_registry.py run by tests that only define a schema), and what
depends on the metaclass includes the classes it makes."""

FILES = {
    "pkg/__init__.py": "",
    "pkg/registry.py": "REGISTRY = {}\n\n\ndef register(name, cls):\n    REGISTRY[name] = cls\n",
    "pkg/schema.py": (
        "import abc\n"
        "from pkg.registry import register\n"
        "\n"
        "class SchemaMeta(type):\n"
        "    def __new__(mcs, name, bases, ns):\n"
        "        cls = super().__new__(mcs, name, bases, ns)\n"
        "        register(name, cls)\n"
        "        return cls\n"
        "\n"
        "class Schema(object, metaclass=SchemaMeta):\n"
        "    pass\n"
        "\n"
        "class Abstract(metaclass=abc.ABCMeta):\n"
        "    pass\n"
    ),
    "tests/test_schema.py": (
        "from pkg.schema import Schema\n"
        "\n"
        "def test_defines_a_schema():\n"
        "    class Mine(Schema):\n"
        "        pass\n"
        "    assert Mine\n"
    ),
    "tests/test_other.py": "def test_other():\n    assert 1\n",
}


def test_a_class_calls_its_metaclass_and_a_test_defining_a_subclass_runs_it(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        calls = ws.store.cursor().execute(
            "SELECT src, dst, line FROM edges WHERE kind = 'CALLS' AND src_path = 'pkg/schema.py' "
            "AND src NOT LIKE '%.__new__' ORDER BY src").fetchall()
        # abc.ABCMeta is Python's: no edge
        assert calls == [("pkg/schema.py::Schema", "pkg/schema.py::SchemaMeta", 10)]
        assert ws.impact("pkg/registry.py::register", depth=3)["tests"] == ["tests/test_schema.py"]
        dependents = {d["symbol"] for d in ws.impact("pkg/schema.py::SchemaMeta", depth=3)["dependents"]}
        assert {"Schema", "test_defines_a_schema.Mine"} <= dependents
    finally:
        ws.close()
