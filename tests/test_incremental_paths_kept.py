"""An editor's runs reuse the import resolvers' maps made from the path set while no path appears
or vanishes, and build them again when one does: imports land where a full index puts them."""

from memory_lsp.index import contexts
from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/a.py": "from pkg import b\n\ndef f():\n    return b.g()\n",
    "pkg/c.py": "def h():\n    return 1\n",
}


def imports(ws) -> list[tuple]:
    return sorted(ws.store.cursor().execute(
        "SELECT path, line, module, name, binding, target, strategy FROM imports").fetchall(), key=repr)


def fresh_imports(tmp_path, root) -> list[tuple]:
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    try:
        return imports(fresh)
    finally:
        fresh.close()


def test_module_map_kept_across_edits_and_rebuilt_when_a_path_appears(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.reindex({root / "pkg/c.py": b"def h():\n    return 2\n"})
    modules = contexts._CONTEXTS[ws.store].cache["python.modules"]
    assert "pkg.b" not in modules
    ws.reindex({root / "pkg/c.py": b"def h():\n    return 3\n"})
    assert contexts._CONTEXTS[ws.store].cache["python.modules"] is modules  # same paths: the map was reused
    assert not any(r[0] == "pkg/a.py" and r[5] == "pkg/b.py" for r in imports(ws))
    assert imports(ws) == fresh_imports(tmp_path, root)

    (root / "pkg/b.py").write_text("def g():\n    return 0\n")  # a new path: `from pkg import b` now lands there
    ws.reindex({root / "pkg/b.py": None})
    assert "pkg.b" in contexts._CONTEXTS[ws.store].cache["python.modules"]
    assert any(r[0] == "pkg/a.py" and r[5] == "pkg/b.py" for r in imports(ws))
    assert imports(ws) == fresh_imports(tmp_path, root)
    ws.close()
