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


ROOT_NAMESPACE = {  # app/ and tests/ have no __init__.py: run from the workspace root, as such projects are
    "app/models.py": "class User:\n    def save(self):\n        return 1\n",
    "app/views.py": ("from app.models import User\nfrom .models import User as Same\n\n\n"
                     "def show():\n    return User().save(), Same\n"),
    "app/api/routes.py": "from ..views import show\nimport app.models\n\n\ndef route():\n    return show()\n",
    "app/mail.py": "from email.utils import formatdate\n",  # Python's email, not the folder below
    "email/utils.py": "def formatdate():\n    return ''\n",
    "tests/test_views.py": "from app.views import show\n\n\ndef test_show():\n    assert show()\n",
    "main.py": "import app.views\n",
    "suite/__init__.py": "",  # a package at the root: the root is on its path too (typer's tests import docs_src)
    "suite/test_models.py": "import app.models\n\n\ndef test_save():\n    assert app.models.User().save()\n",
    "lib/pkg/__init__.py": "",
    "lib/pkg/inside.py": "from app.models import User\n",  # inside a package: app is not on its path
}


def test_a_namespace_package_at_the_workspace_root_resolves(tmp_path, index_files, file_edges, symbol_edges):
    ws = index_files(tmp_path, ROOT_NAMESPACE)
    try:
        imports = file_edges(ws, "IMPORTS")
        assert ("app/views.py", "app/models.py") in imports  # absolute and relative, from inside it
        assert ("app/api/routes.py", "app/views.py") in imports  # two levels up
        assert ("app/api/routes.py", "app/models.py") in imports
        assert ("tests/test_views.py", "app/views.py") in imports  # a test beside it
        assert ("main.py", "app/views.py") in imports  # a script at the root
        assert ("suite/test_models.py", "app/models.py") in imports
        assert not any(src in ("app/mail.py", "lib/pkg/inside.py") for src, _ in imports)
        assert ("app/views.py::show", "app/models.py::User.save") in symbol_edges(ws, "CALLS")
        assert ws.impact("app/models.py::User.save", depth=3)["tests"] == ["suite/test_models.py", "tests/test_views.py"]
    finally:
        ws.close()
