"""An editor's edit that moves a file's imports to other lines, in their order (a comment typed
above them, a blank line between them), moves its IMPORTS and ASSERTS_ON edges to the new lines
in place; the promotions are not made again (store/moved_lines.py). Imports reordered, joined on
one line, added or removed are made again as before. Either way the graph equals a fresh index's."""

import pytest
from test_fixture_calls import fresh_snapshot
from test_incremental import snapshot

from memory_lsp.graph import promotions
from memory_lsp.store import moved_lines
from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "from pkg.core import run\n",
    "pkg/base.py": "def ping():\n    return 1\n",
    "pkg/util.py": "def shout(x):\n    return x\n",
    "pkg/core.py": "from pkg.base import ping\nfrom pkg.util import shout\n\ndef run():\n    return shout(ping())\n",
    "pkg/more.py": "from pkg.base import ping\n\ndef again():\n    return ping()\n",
    "pkg/last.py": "from pkg import base\n\ndef last():\n    return base.ping()\n",
    "tests/test_core.py": "import pkg\nfrom pkg.core import run\nfrom pkg.util import shout\n\n"
                          "def test_run():\n    assert shout(run()) == 1\n",
}

EDITS = {  # name: (path, old, new, the edges moved in place)
    "comment_above_the_imports": ("pkg/core.py", "from pkg.base", "# top\n\nfrom pkg.base", True),
    "blank_line_between_them": ("pkg/core.py", "ping\nfrom", "ping\n\n\nfrom", True),
    "comment_above_a_test_s_imports": ("tests/test_core.py", "import pkg\n", "# a test\nimport pkg\n", True),
    "a_test_s_import_moved_down_in_order": ("tests/test_core.py", "from pkg.util import shout\n\n",
                                            "\n\nfrom pkg.util import shout\n", True),
    "imports_swapped": ("pkg/core.py", "from pkg.base import ping\nfrom pkg.util import shout\n",
                        "from pkg.util import shout\nfrom pkg.base import ping\n", False),
    "two_imports_joined_on_one_line": ("pkg/core.py", "from pkg.base import ping\nfrom pkg.util import shout\n",
                                       "from pkg.base import ping; from pkg.util import shout\n\n", False),
    "an_import_added": ("pkg/core.py", "from pkg.util import shout\n",
                        "from pkg.util import shout\nfrom pkg.more import again\n", False),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_imports_that_moved_keep_their_edges_as_a_fresh_index_has_them(tmp_path, write_files, monkeypatch, name):
    path, old, new, in_place = EDITS[name]
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    rebuilt = []
    real = promotions.rebuild
    monkeypatch.setattr(promotions, "rebuild", lambda store, cur, touched: (rebuilt.append(touched),
                                                                            real(store, cur, touched)))
    links = "SELECT rowid, kind, line FROM edges WHERE kind IN ('IMPORTS', 'ASSERTS_ON') AND src_path = ? ORDER BY rowid"
    before = ws.store.cursor().execute(links, [path]).fetchall()
    text = FILES[path].replace(old, new)
    assert text != FILES[path]
    (root / path).write_text(text)
    ws.reindex({path: text.encode()})
    after = ws.store.cursor().execute(links, [path]).fetchall()
    assert (not rebuilt) == in_place
    if in_place:  # the same rows, some at other lines
        assert [r[:2] for r in after] == [r[:2] for r in before] and after != before
    incremental = snapshot(ws)
    ws.close()
    assert fresh_snapshot(root, tmp_path / "fresh.duckdb") == incremental


@pytest.mark.parametrize("old, new, moved", [
    ({(1, "a", None, None), (2, "b", "x", None)}, {(3, "a", None, None), (5, "b", "x", None)}, {1: 3, 2: 5}),
    ({(1, "a", "f", None), (1, "a", "g", None)}, {(4, "a", "f", None), (4, "a", "g", None)}, {1: 4}),
    ({(1, "a", None, None), (2, "b", None, None)}, {(1, "b", None, None), (2, "a", None, None)}, None),  # swapped
    ({(1, "a", None, None), (2, "b", None, None)}, {(1, "a", None, None), (1, "b", None, None)}, None),  # joined
    ({(1, "a", None, None), (1, "b", None, None)}, {(1, "a", None, None), (2, "b", None, None)}, None),  # split
    ({(1, "a", None, None)}, {(1, "a", None, None), (2, "b", None, None)}, None),  # added
    (None, None, {}),
])
def test_import_lines_moved_says_how_each_line_moved_or_none(old, new, moved):
    assert moved_lines.import_lines_moved(old, new) == moved
