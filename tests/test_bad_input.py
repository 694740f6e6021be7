"""Bad files and damaged databases: skipped or partly indexed, counted, never fatal."""

import os

import duckdb

from memory_lsp.workspace import Workspace
from memory_lsp.settings import Settings


def test_bad_files_are_skipped_or_partially_indexed_and_counted(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {
        "good.py": "def ok():\n    return 1\n",
        "binary.py": b"\x00\x01\x02def x(): pass\n",
        "huge.py": "x = 1\n" * 200_000,  # 1.2 MB, over the 1 MB limit
        "minified.js": "var a=1;" * 5000,  # one 40 KB line
        "latin1.py": "def caf\xe9():\n    return '\xe9'\n\ndef fine():\n    pass\n".encode("latin-1"),
        "broken.py": "def whole():\n    return 1\n\ndef broken(:\n    pass\n\nclass Later:\n    pass\n",
    })
    ws = Workspace.open(root)
    report = ws.index(workers=0)
    assert dict(report.skipped) == {"binary": 1, "too_large": 1, "minified": 1}
    doctor = ws.doctor()
    assert doctor["skipped"] == {"binary": 1, "too_large": 1, "minified": 1}
    assert doctor["partially_indexed"] == {"invalid_utf8": 1, "syntax_errors": 2}
    names = {r[0] for r in ws.store.cursor().execute("SELECT qualname FROM symbols").fetchall()}
    assert {"ok", "fine", "whole", "Later"} <= names  # what parses is indexed
    ws.close()


def test_gitignore_excludes_and_symlink_cycles(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {
        ".gitignore": "generated/\n*.tmp.py\n!keep.tmp.py\n",
        "src/a.py": "x = 1\n",
        "generated/out.py": "y = 2\n",
        "scratch.tmp.py": "z = 3\n",
        "keep.tmp.py": "w = 4\n",
        "node_modules/lib/index.js": "module.exports = 1\n",
        "private/secret.py": "s = 1\n",
    })
    os.symlink(root / "src", root / "src" / "loop")  # a directory cycle: never followed
    os.symlink(root / "src" / "a.py", root / "alias.py")
    ws = Workspace.open(root, settings=Settings(excludes=["private/"]))
    ws.index(workers=0)
    paths = {r[0] for r in ws.store.cursor().execute("SELECT path FROM files").fetchall()}
    assert paths == {"src/a.py", "keep.tmp.py"}
    # the file link, the folder link (never walked) and the file the user's excludes leave out
    assert ws.doctor()["skipped"] == {"symlink": 2, "excluded": 1}
    ws.close()


def test_corrupt_database_is_set_aside_and_rebuilt(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {"a.py": "def f():\n    pass\n"})
    db = root / ".memory" / "index.duckdb"
    db.parent.mkdir()
    db.write_bytes(b"this is not a duckdb file" * 1000)
    ws = Workspace.open(root)
    assert "set aside and rebuilt" in ws.store.recovered
    ws.index(workers=0)
    assert ws.doctor()["counts"]["symbols"] == 1
    assert any(p.name.startswith("index.duckdb.broken-") for p in db.parent.iterdir())
    ws.close()


def test_older_schema_is_rebuilt(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {"a.py": "def f():\n    pass\n"})
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.store.conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    ws.close()
    again = Workspace.open(root)
    assert "schema v0" in again.store.recovered
    assert again.doctor()["counts"]["files"] == 0  # emptied only because it is rebuilt next
    again.index(workers=0)
    assert again.doctor()["counts"]["files"] == 1
    again.close()


def test_damaged_wal_is_recovered(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {"a.py": "def f():\n    pass\n"})
    db = root / ".memory" / "index.duckdb"
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.close()
    con = duckdb.connect(str(db))
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)")
    con.close()  # close checkpoints; write a damaged WAL by hand instead
    (root / ".memory" / "index.duckdb.wal").write_bytes(b"\x01garbage" * 512)
    again = Workspace.open(root)
    again.index(workers=0)
    assert again.doctor()["counts"]["symbols"] == 1
    again.close()


def test_nested_folders_named_like_build_outputs_are_indexed(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {
        "build/out.py": "x = 1\n",
        "pkg/__init__.py": "",
        "pkg/build/__init__.py": "",
        "pkg/build/tracker.py": "y = 2\n",
        "pkg/user.py": "from pkg.build.tracker import y\nimport pkg.compiled_ext\n",
    })
    ws = Workspace.open(root)
    ws.index(workers=0)
    paths = {r[0] for r in ws.store.cursor().execute("SELECT path FROM files").fetchall()}
    assert "pkg/build/tracker.py" in paths and "build/out.py" not in paths
    targets = {r[0] for r in ws.store.cursor().execute(
        "SELECT dst_path FROM edges WHERE kind = 'IMPORTS' AND src_path = 'pkg/user.py'").fetchall()}
    # a submodule with no source (compiled): the edge goes to its package, as grimp records it
    assert targets == {"pkg/build/tracker.py", "pkg/__init__.py"}
    ws.close()
