"""An edit that leaves a file's import rows (lines too) and flags as they were keeps its IMPORTS,
ASSERTS_ON and DRIVES edges instead of rebuilding them; one that moves an import line rebuilds
them. Either way the graph equals a fresh full index."""

import pytest

from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "STATE = []\n\ndef put(x):\n    STATE.append(x)\n",
    "pkg/a.py": "from pkg.core import put\n\ndef f():\n    put(1)\n",
    "pkg/b.py": "from pkg import core\n\ndef g():\n    core.put(2)\n",
    "pkg/c.py": "from pkg.core import put\n\ndef h():\n    put(3)\n",  # a third importer: core DRIVES them
    "tests/test_a.py": "from pkg.a import f\n\ndef test_f():\n    f()\n",
}
LINKS = "SELECT kind, src, dst, line, confidence, strategy, support FROM edges WHERE kind IN ('IMPORTS', 'ASSERTS_ON', 'DRIVES')"
GRAPH = "SELECT src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support FROM edges WHERE kind <> 'CO_CHANGES'"


def rows(ws, sql) -> list[tuple]:
    return sorted(ws.store.cursor().execute(sql).fetchall(), key=repr)


@pytest.mark.parametrize("rel, text", [
    ("pkg/a.py", FILES["pkg/a.py"] + "\ndef later():\n    return f()\n"),  # import rows as they were
    ("tests/test_a.py", FILES["tests/test_a.py"] + "\ndef test_more():\n    f()\n"),
    ("tests/test_a.py", "# moved\n" + FILES["tests/test_a.py"]),  # the import's line moves: rebuilt
    ("pkg/core.py", "import os\n" + FILES["pkg/core.py"]),  # a new import: rebuilt
])
def test_links_after_an_edit_equal_a_full_index(tmp_path, write_files, rel, text):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    before = rows(ws, LINKS)
    assert any(r[0] == "ASSERTS_ON" for r in before) and any(r[0] == "DRIVES" for r in before)
    ws.reindex({root / rel: text.encode()})
    after, graph = rows(ws, LINKS), rows(ws, GRAPH)
    ws.close()
    (root / rel).write_text(text)
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    try:
        assert after == rows(fresh, LINKS)
        assert graph == rows(fresh, GRAPH)
    finally:
        fresh.close()
    if not text.startswith(("# moved", "import os")):
        assert after == before
