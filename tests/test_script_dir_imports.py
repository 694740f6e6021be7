"""Python imports from a file in a folder that is no package (a script, a test module beside its
helpers): Python puts that folder first on sys.path (pytest too, for a test module outside
packages), so `from helpers import make` reaches the helpers file beside it
(index/resolvers/python.py), before the workspace's source roots and before the outside."""

from __future__ import annotations

FILES = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": "def make():\n    return 'pkg'\n",
    "pkg/user.py": "import helpers\n\n\ndef use():\n    return helpers.make()\n",  # a package's module: no implicit relative import
    "tests/helpers.py": "def make():\n    return 1\n",
    "tests/json.py": "def dumps(x):\n    return str(x)\n",
    "tests/test_a.py": ("from helpers import make\nimport json\n\n\n"
                        "def test_a():\n    assert make() == 1 and json.dumps(1)\n"),
    "scripts/tool.py": "import util\n\n\ndef run():\n    return util.go()\n",
    "scripts/util.py": "def go():\n    return 0\n",
    "scripts/plain.py": "import os\nimport gc\n\n\ndef where():\n    gc.collect()\n    return os.getcwd()\n",
    "scripts/gc.py": "def collect():\n    return 0\n",  # Python's gc is compiled in: found first
    "scripts/os.py": "def getcwd():\n    return 0\n",  # Python's os is frozen: found first
}


def test_a_script_or_test_module_imports_what_sits_beside_it(tmp_path, index_files, file_edges, symbol_edges):
    ws = index_files(tmp_path, FILES)
    try:
        imports = file_edges(ws, "IMPORTS")
        assert ("tests/test_a.py", "tests/helpers.py") in imports
        assert ("tests/test_a.py", "tests/json.py") in imports  # its folder comes before the outside
        assert ("scripts/tool.py", "scripts/util.py") in imports
        assert not any(src in ("pkg/user.py", "scripts/plain.py") for src, _ in imports)  # Python 3: none
        calls = symbol_edges(ws, "CALLS")
        assert ("tests/test_a.py::test_a", "tests/helpers.py::make") in calls
        assert ("scripts/tool.py::run", "scripts/util.py::go") in calls
        assert ("tests/test_a.py::test_a", "pkg/helpers.py::make") not in calls
    finally:
        ws.close()


def test_a_helper_added_or_removed_beside_a_script_is_found_or_forgotten(tmp_path, index_files, file_edges):
    files = {k: v for k, v in FILES.items() if k != "scripts/util.py"}
    ws = index_files(tmp_path, files)
    try:
        assert ("scripts/tool.py", "scripts/util.py") not in file_edges(ws, "IMPORTS")
        (tmp_path / "scripts/util.py").write_text(FILES["scripts/util.py"])
        ws.reindex({str(tmp_path / "scripts/util.py"): FILES["scripts/util.py"].encode()})
        assert ("scripts/tool.py", "scripts/util.py") in file_edges(ws, "IMPORTS")
        (tmp_path / "scripts/util.py").unlink()
        ws.reindex({str(tmp_path / "scripts/util.py"): None})
        assert ("scripts/tool.py", "scripts/util.py") not in file_edges(ws, "IMPORTS")
    finally:
        ws.close()
