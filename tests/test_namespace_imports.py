"""Python imports into a folder without `__init__.py` inside a package (a namespace portion, as
flask/sansio/): resolved, with the relative imports inside it and the base classes they bring."""

from __future__ import annotations

FILES = {
    "src/pkg/__init__.py": "from .app import Flask\n",
    "src/pkg/helpers.py": "def helper():\n    return 1\n",
    "src/pkg/sansio/app.py": ("from ..helpers import helper\n\n\nclass App:\n    def setup(self):\n"
                              "        return helper()\n"),
    "src/pkg/app.py": "from .sansio.app import App\n\n\nclass Flask(App):\n    pass\n",
    "src/pkg/other.py": "import pkg.sansio.app\nfrom pkg.sansio import app\n",
    "scripts/tool.py": "def run():\n    return 0\n",  # not in a package: not importable as scripts.tool
    "src/pkg/cli.py": "import scripts.tool\n",
}


def test_a_namespace_folder_inside_a_package_resolves(tmp_path, index_files, file_edges, symbol_edges):
    ws = index_files(tmp_path, FILES)
    try:
        imports = file_edges(ws, "IMPORTS")
        assert ("src/pkg/app.py", "src/pkg/sansio/app.py") in imports  # relative, into the folder
        assert ("src/pkg/sansio/app.py", "src/pkg/helpers.py") in imports  # relative, from inside it
        assert ("src/pkg/other.py", "src/pkg/sansio/app.py") in imports  # absolute, both forms
        assert not any(src == "src/pkg/cli.py" for src, _ in imports)
        assert ("src/pkg/app.py::Flask", "src/pkg/sansio/app.py::App") in symbol_edges(ws, "INHERITS")
        assert ("src/pkg/sansio/app.py::App.setup", "src/pkg/helpers.py::helper") in symbol_edges(ws, "CALLS")
    finally:
        ws.close()
