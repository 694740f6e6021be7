"""A symbol loaded by a string: mistune keeps its plugins as dotted paths in a dict, and
`import_plugin` splits one and calls `import_module`. No edge named them, so test selection missed
every test that asks for a plugin (coverage: 15 pairs, recall 0.831), and what breaks when a plugin
changes listed no caller."""

from test_instance_calls import calls_at
from test_return_calls import _edit_and_compare

from memory_lsp.index.extract import extract
from memory_lsp.store import reports, test_reads

FILES = {
    "pkg/__init__.py": "",
    "pkg/plugins/__init__.py": (
        "from importlib import import_module\n"                      # 1
        "_plugins = {\n"                                             # 2
        "    'speedup': 'pkg.plugins.speedup.speedup',\n"            # 3
        "    'table': 'pkg.plugins.table.table',\n"                  # 4
        "    'gone': 'pkg.plugins.table.missing',\n"                 # 5: no such function
        "    'outside': 'json.decoder.JSONDecoder',\n"               # 6: not the workspace's
        "}\n"                                                        # 7
        "def import_plugin(name):\n"                                 # 8
        "    module_path, func_name = _plugins[name].rsplit('.', 1)\n"  # 9
        "    return getattr(import_module(module_path), func_name)\n"  # 10
        "def describe():\n"                                          # 11
        "    return 'pkg.plugins.speedup.speedup'\n"                 # 12: names it, loads nothing
        "def load_default():\n"                                      # 13
        "    return import_module('pkg.plugins.table').table\n"      # 14: a module, no symbol
        "def load_fast():\n"                                         # 15
        "    import importlib\n"                                     # 16
        "    path = 'pkg.plugins.speedup.speedup'\n"                 # 17
        "    return importlib.import_module(path)\n"                 # 18
    ),
    "pkg/plugins/speedup.py": "def speedup(md):\n    return md\n",
    "pkg/plugins/table.py": "def table(md):\n    return md\n",
    "pkg/markdown.py": (
        "from pkg.plugins import import_plugin\n"
        "def create_markdown(plugins=None):\n"
        "    return [import_plugin(n) for n in plugins or []]\n"
    ),
    "tests/__init__.py": "",
    "tests/test_plugins.py": (
        "from pkg.markdown import create_markdown\n"
        "def test_speedup():\n"
        "    assert create_markdown(['speedup'])\n"
    ),
    "tests/test_loading.py": (
        "import pkg\n"
        "from importlib import import_module\n"
        "def test_load():\n"
        "    assert import_module('pkg.plugins.speedup')\n"  # a module: no function, and no call through `pkg`
    ),
}


def test_a_dotted_string_beside_import_module_is_the_loaders_call(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "pkg/plugins/__init__.py", 3) == [("pkg/plugins/speedup.py::speedup", "import")]
        assert calls_at(ws, "pkg/plugins/__init__.py", 4) == [("pkg/plugins/table.py::table", "import")]
        for line in (5, 6, 12, 14):  # a missing function, an outside module, a function not loading, a module
            assert calls_at(ws, "pkg/plugins/__init__.py", line) == []
        assert calls_at(ws, "pkg/plugins/__init__.py", 17) == [("pkg/plugins/speedup.py::speedup", "import")]
        cur = ws.store.cursor()
        srcs = cur.execute("SELECT DISTINCT src FROM edges WHERE kind = 'CALLS' AND dst = 'pkg/plugins/speedup.py::speedup'"
                           " ORDER BY src").fetchall()
        assert srcs == [("pkg/plugins/__init__.py::import_plugin",), ("pkg/plugins/__init__.py::load_fast",)]
        # a string may name a module the program never loads: no file depends on another by it
        assert cur.execute("SELECT count(*) FROM edges WHERE kind = 'IMPORTS' AND src_path = 'pkg/plugins/__init__.py'"
                           ).fetchone()[0] == 0
        assert cur.execute("SELECT count(*) FROM imports WHERE strategy = 'unresolved'").fetchone()[0] == 0
        # test_loading.py imports the module by its string in a test (its top-level code runs there)
        assert ws.impact("pkg/plugins/speedup.py::speedup", depth=3)["tests"] == ["tests/test_loading.py",
                                                                                  "tests/test_plugins.py"]
        # the strings naming no function are no call sites: not counted unresolved, no test's blind call
        dotted = cur.execute("SELECT count(*) FROM refs WHERE kind = 'call' AND contains(name, '.')").fetchone()[0]
        assert dotted == 7 and reports.unresolved_calls(cur) == cur.execute(
            "SELECT count(*) FROM refs r WHERE kind = 'call' AND NOT contains(name, '.') AND NOT EXISTS (SELECT 1 FROM "
            "edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path AND e.line = r.line AND e.name = r.name)").fetchone()[0]
        assert "tests/test_loading.py::test_load" not in list(test_reads.unresolved_test_calls(cur)["src"])
    finally:
        ws.close()


def test_only_plain_dotted_strings_in_a_loading_file_are_read():
    facts = extract("pkg/m.py", (
        "import importlib\n"
        "NAME = 'pkg.a.f'\n"                 # 2
        "SPLIT = 'pkg.a' '.g'\n"             # 3: pieces of one string
        "FILE = 'setup py'\n"                # 4: not a dotted name
        "OTHER = 'pkg.b.g'\n"                # 5: a name no loader reads
        "def load(x):\n"
        "    importlib.import_module(f'pkg.{x}.h')\n"  # 7: an f-string
        "    return importlib.import_module(NAME or SPLIT or FILE)\n"
    ).encode(), "python")
    assert [(i.module, i.name, i.alias) for i in facts.imports if i.module.startswith('"')] == [('"pkg.a"', "f", "pkg.a.f")]
    assert [(r.src, r.name, r.line) for r in facts.refs if r.name == "pkg.a.f"] == [("load", "pkg.a.f", 2)]
    # no loader in the file: its strings are only strings
    assert not [i for i in extract("pkg/n.py", b"NAME = 'pkg.a.f'\n", "python").imports]


def test_a_plugin_renamed_in_its_dict_is_followed(tmp_path, write_files):
    # the dict edited to name another plugin: an editor's run equals a fresh index
    _edit_and_compare(tmp_path, write_files, "pkg/plugins/__init__.py", "'pkg.plugins.speedup.speedup'",
                      "'pkg.plugins.table.table'", ("pkg/plugins/__init__.py", 3),
                      [("pkg/plugins/table.py::table", "import")], strategies=("import",), files=FILES)


def test_a_loaded_function_renamed_away_leaves_no_edge(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/plugins/speedup.py", "def speedup(md)", "def faster(md)",
                      ("pkg/plugins/__init__.py", 3), [], strategies=("import",), files=FILES)


TUTORIALS = {
    "docs/__init__.py": "",
    "docs/default/__init__.py": "",
    "docs/default/tutorial001.py": "def main():\n    return 1\n",
    "docs/default/tutorial001_an.py": "def main():\n    return 2\n",
    "docs/default/tutorial002.py": "def run():\n    return 3\n",
    "tests/__init__.py": "",
    # typer's tutorial tests: a fixture imports each module its params name
    "tests/test_tutorial001.py": (
        "import importlib\n"
        "import pytest\n"
        "@pytest.fixture(name='mod', params=[pytest.param('tutorial001'), pytest.param('tutorial001_an')])\n"
        "def get_mod(request):\n"
        "    module_name = f'docs.default.{request.param}'\n"
        "    return importlib.import_module(module_name)\n"
        "def test_main(mod):\n"
        "    assert mod.main()\n"
    ),
    "tests/test_tutorial002.py": (
        "import importlib\n"
        "import pytest\n"
        "@pytest.mark.parametrize('name', ['tutorial002'])\n"
        "def test_main(name):\n"
        "    assert importlib.import_module(f'docs.default.{name}').run() == 3\n"
    ),
}


def test_a_module_named_by_a_parameter_is_imported_by_the_test(tmp_path, index_files):
    ws = index_files(tmp_path, TUTORIALS)
    try:
        assert ws.impact("docs/default/tutorial001.py", depth=3)["tests"] == ["tests/test_tutorial001.py"]
        assert ws.impact("docs/default/tutorial001_an.py", depth=3)["tests"] == ["tests/test_tutorial001.py"]
        assert ws.impact("docs/default/tutorial002.py", depth=3)["tests"] == ["tests/test_tutorial002.py"]
    finally:
        ws.close()
    facts = extract("tests/test_tutorial001.py", TUTORIALS["tests/test_tutorial001.py"].encode(), "python")
    assert [(i.module, i.alias) for i in facts.imports if i.module.startswith("docs")] == [
        ("docs.default.tutorial001", '"docs.default.tutorial001"'),
        ("docs.default.tutorial001_an", '"docs.default.tutorial001_an"')]
    facts = extract("tests/test_tutorial002.py", TUTORIALS["tests/test_tutorial002.py"].encode(), "python")
    # the parametrized names (`'name'`) are no value
    assert [i.module for i in facts.imports if i.module.startswith("docs")] == ["docs.default.tutorial002"]


CHAINED = {
    "docs/__init__.py": "",
    "docs/testing/__init__.py": "",
    "docs/testing/app02/__init__.py": "",
    "docs/testing/app02/main.py": "def main():\n    return 1\n",
    "docs/testing/app02/test_main.py": "from .main import main\n\n\ndef test_app():\n    assert main() == 1\n",
    "docs/testing/app02_an/__init__.py": "",
    "docs/testing/app02_an/main.py": "def main():\n    return 2\n",
    "docs/testing/app02_an/test_main.py": "from .main import main\n\n\ndef test_app():\n    assert main() == 2\n",
    "tests/__init__.py": "",
    # typer's test_app02.py: one fixture names the package by its params, two others import a module in it
    "tests/test_app02.py": (
        "import importlib\n"
        "import pytest\n"
        "@pytest.fixture(name='module_paths', params=['app02_an', 'app02'])\n"
        "def get_modules_path(request):\n"
        "    return f'docs.testing.{request.param}'\n"
        "@pytest.fixture(name='test_mod')\n"
        "def get_test_mod(module_paths):\n"
        "    return importlib.import_module(f'{module_paths}.test_main')\n"
        "def test_app02(test_mod):\n"
        "    test_mod.test_app()\n"
    ),
}


def test_a_module_in_a_path_a_fixture_hands_on_is_imported_by_the_test(tmp_path, index_files):
    ws = index_files(tmp_path, CHAINED)
    try:
        for path in ("docs/testing/app02/test_main.py", "docs/testing/app02_an/test_main.py"):
            assert "tests/test_app02.py" in ws.impact(path, depth=3)["tests"], path
    finally:
        ws.close()
    facts = extract("tests/test_app02.py", CHAINED["tests/test_app02.py"].encode(), "python")
    assert [i.module for i in facts.imports if i.module.startswith("docs")] == [
        "docs.testing.app02_an", "docs.testing.app02", "docs.testing.app02_an.test_main", "docs.testing.app02.test_main"]
