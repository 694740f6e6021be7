"""An editor's edit that only moves lines (a comment, a blank line, a docstring) keeps the file's
edges, at their new lines, without resolving its calls again (store/moved_lines.py); any other
edit resolves them as before. Either way the graph equals a fresh index's."""

import pytest
from test_fixture_calls import fresh_snapshot
from test_incremental import snapshot

from memory_lsp.graph import resolution
from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def ping(self):\n        return 1\n",
    "pkg/core.py": (
        "from pkg.base import Base\n"
        "\n"
        "class Core(Base):\n"
        '    """A core."""\n'
        "    def run(self):\n"
        "        self.ping()\n"
        "        return helper(self)\n"
        "\n"
        "def helper(x):\n"
        "    import os\n"
        "    return os.getcwd()\n"
        "\n"
        "def main():\n"
        "    Core().run()\n"
    ),
    "tests/conftest.py": "import pytest\nfrom pkg.core import Core\n@pytest.fixture\ndef core():\n    return Core()\n",
    "tests/test_core.py": "def test_run(core):\n    core.run()\n",
}

EDITS = {  # name: (path, old, new, only lines moved)
    "comment_on_top": ("pkg/core.py", "from pkg.base", "# top\nfrom pkg.base", True),
    "blank_lines_in_a_body": ("pkg/core.py", "        self.ping()\n", "\n        self.ping()\n\n", True),
    "docstring": ("pkg/core.py", '"""A core."""', '"""A core,\n    longer."""', True),
    "comment_in_a_test": ("tests/test_core.py", "    core.run()", "    # go\n    core.run()", True),
    "a_call_added": ("pkg/core.py", "        self.ping()\n", "        self.ping()\n        self.ping()\n", False),
    "a_call_renamed": ("pkg/core.py", "    Core().run()", "    Core().ping()", False),
    "an_import_moved_out_of_its_function": ("pkg/core.py", "def helper(x):\n    import os\n", "import os\ndef helper(x):\n", False),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edit_that_moves_lines_keeps_the_edges_as_a_fresh_index_has_them(tmp_path, write_files, monkeypatch, name):
    path, old, new, moved_only = EDITS[name]
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    resolved = []
    real = resolution.resolve_again
    monkeypatch.setattr(resolution, "resolve_again", lambda store, cur, rebound, names: (
        resolved.append(set(rebound)), real(store, cur, rebound, names)))
    text = FILES[path].replace(old, new)
    assert text != FILES[path]
    (root / path).write_text(text)
    ws.reindex({path: text.encode()})
    # the file's calls resolved again unless its edit only moved lines
    assert any(path in r for r in resolved) != moved_only
    incremental = snapshot(ws)
    ws.close()
    assert fresh_snapshot(root, tmp_path / "fresh.duckdb") == incremental
