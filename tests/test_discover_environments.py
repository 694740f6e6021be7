"""What gets indexed: Python environments are left out by what they hold, not by their name; and
an editor's or a watcher's run never indexes a file that the next full run would drop (ignored,
excluded, inside an environment, a link), so incremental equals full for those too."""

import os
import subprocess

import pytest

from memory_lsp.settings import Settings
from memory_lsp.workspace.host import Workspace

FILES = {
    ".gitignore": "generated/\n",
    "app/main.py": "def main():\n    pass\n",
    "app/venv/__init__.py": "def create():\n    pass\n",  # a package named venv (the stdlib has one)
    "myenv/pyvenv.cfg": "home = /usr/bin\n",  # an environment, whatever its name
    "myenv/lib/site.py": "def site():\n    pass\n",
    "condaenv/conda-meta/history": "",
    "condaenv/lib/pkg.py": "def pkg():\n    pass\n",
    ".venv/lib/x.py": "def x():\n    pass\n",
    "generated/out.py": "def out():\n    pass\n",
    "private/secret.py": "def secret():\n    pass\n",
    "node_modules/p/index.js": "module.exports = 1\n",
}
DROPPED = ["myenv/lib/site.py", "condaenv/lib/pkg.py", ".venv/lib/x.py", "generated/out.py",
           "private/secret.py", "node_modules/p/index.js", "link.py"]


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def _paths(ws: Workspace) -> set[str]:
    return {r[0] for r in ws.store.cursor().execute("SELECT path FROM files").fetchall()}


@pytest.fixture(params=["plain", "git"])
def workspace(request, tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    os.symlink(root / "app" / "main.py", root / "link.py")
    if request.param == "git":
        _git(root, "init", "-q")
        _git(root, "add", ".gitignore", "app")  # the package named venv is tracked, as in CPython
        _git(root, "commit", "-q", "-m", "x")
    ws = Workspace.open(root, settings=Settings(excludes=["private/"]))
    yield root, ws
    ws.close()


def test_environments_are_left_out_by_content_and_a_package_named_venv_is_indexed(workspace):
    root, ws = workspace
    ws.index(workers=0)
    assert _paths(ws) == {"app/main.py", "app/venv/__init__.py"}


def test_an_editor_run_indexes_only_what_a_full_run_would(workspace):
    root, ws = workspace
    ws.index(workers=0)
    (root / "app" / "new.py").write_text("def new():\n    pass\n")
    # the buffers of files a user opened (or a watcher's events): only the new ordinary file is indexed
    report = ws.reindex({str(root / rel): (root / rel).read_bytes() for rel in DROPPED + ["app/new.py"]})
    assert report.parsed == 1
    incremental = _paths(ws)
    assert incremental == {"app/main.py", "app/venv/__init__.py", "app/new.py"}
    ws.index(workers=0)
    assert _paths(ws) == incremental  # the full run drops nothing the editor's run added
