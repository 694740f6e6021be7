"""Incremental indexing ends in exactly the graph a fresh full index builds."""

import os

from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def run(self):\n        return helper()\n\ndef helper():\n    return 1\n",
    "pkg/user.py": "from .base import Base, helper\n\nclass User(Base):\n    def go(self):\n        helper()\n",
    "pkg/old_name.py": "from pkg.user import User\n\ndef make():\n    return User()\n",
    "pkg/gone.py": "from pkg.base import helper\n\ndef uses():\n    helper()\n",
    "tests/test_user.py": "from pkg.user import User\n\ndef test_go():\n    User().go()\n",
    "README.md": "# Readme\nSee `pkg/gone.py` and `make`.\n",
}

# Columns that describe the graph (scores, mtimes and git figures move with the clock).
SNAPSHOT = {
    "files": "path, lang, hash, size, loc, is_test, notes, side_effects, mutations",
    "symbols": "id, path, name, qualname, kind, start_line, end_line, parent, fingerprint",
    "refs": "path, kind, src, src_class, name, receiver, line",
    "imports": "path, line, module, name, alias, binding, target, is_module, strategy",
    "edges": "src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support",
    "chunks": "id, path, kind, name, start_line, end_line, prefix, text",
    "mentions": "path, heading, line, token",
    "skipped": "path, reason, size",
}


def snapshot(ws):
    cur = ws.store.cursor()
    return {t: sorted(cur.execute(f"SELECT {cols} FROM {t}").fetchall(), key=repr) for t, cols in SNAPSHOT.items()}


def touch_later(path):
    st = os.stat(path)
    os.utime(path, (st.st_atime, st.st_mtime + 5))


def test_edit_rename_delete_add_equals_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    # edit: helper gets a new body and moves down two lines; User gains a method
    (root / "pkg/base.py").write_text("import os\n\nclass Base:\n    def run(self):\n        return helper()\n\n"
                                      "def helper():\n    return os.getcwd()\n")
    (root / "pkg/user.py").write_text(FILES["pkg/user.py"] + "    def stop(self):\n        self.go()\n")
    touch_later(root / "pkg/user.py")
    os.rename(root / "pkg/old_name.py", root / "pkg/new_name.py")
    os.remove(root / "pkg/gone.py")
    (root / "pkg/added.py").write_text("from pkg.new_name import make\n\ndef again():\n    make()\n")
    report = ws.index(workers=0)
    assert (report.parsed, report.deleted) == (4, 2)
    incremental = snapshot(ws)
    ws.close()

    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    assert snapshot(fresh) == incremental
    fresh.close()
    # nothing of the deleted or renamed-away files survives
    assert not any("gone.py" in repr(row) or "old_name.py" in repr(row)
                   for table in incremental.values() for row in table if "README" not in repr(row))


def test_unchanged_files_are_not_parsed_again(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    first = ws.index(workers=0)
    assert first.parsed == len(FILES)
    again = ws.index(workers=0)
    assert (again.parsed, again.unchanged) == (0, len(FILES))
    touch_later(root / "pkg/base.py")  # same content, new mtime: hashed, not re-parsed into new rows
    before = snapshot(ws)
    ws.index(workers=0)
    assert snapshot(ws) == before
    ws.close()


def test_editor_buffer_reindex_replaces_one_file(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.reindex({"pkg/gone.py": b"def uses():\n    pass\n"})  # buffer text, not on disk
    cur = ws.store.cursor()
    assert cur.execute("SELECT count(*) FROM edges WHERE src_path = 'pkg/gone.py' AND kind = 'IMPORTS'").fetchone()[0] == 0
    ws.reindex({"pkg/gone.py": None})  # disk content again
    assert cur.execute("SELECT count(*) FROM edges WHERE src_path = 'pkg/gone.py' AND kind = 'IMPORTS'").fetchone()[0] == 1
    os.remove(root / "pkg/gone.py")
    ws.reindex({"pkg/gone.py": None})
    assert cur.execute("SELECT count(*) FROM files WHERE path = 'pkg/gone.py'").fetchone()[0] == 0
    ws.close()


def test_parallel_and_serial_indexes_agree(tmp_path, write_files):
    files = dict(FILES)
    for i in range(80):  # enough files to start the worker pool
        files[f"gen/m{i}.py"] = f"from pkg.base import helper\n\ndef f{i}():\n    return helper() + {i}\n"
    root = write_files(tmp_path / "ws", files)
    serial = Workspace.open(root, db=str(tmp_path / "a.duckdb"))
    serial.index(workers=0)
    parallel = Workspace.open(root, db=str(tmp_path / "b.duckdb"))
    parallel.index(workers=2)
    assert snapshot(serial) == snapshot(parallel)
    serial.close()
    parallel.close()


def test_body_edits_and_new_functions_equal_fresh_index(tmp_path, write_files):
    """Edits that keep a file's imports: only edges from or into it are rebuilt."""
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.reindex({"pkg/base.py": FILES["pkg/base.py"].replace("return 1", "return 2").encode()})
    ws.reindex({"pkg/user.py": (FILES["pkg/user.py"] + "\ndef make():\n    return helper()\n").encode()})
    ws.reindex({"README.md": b"# Readme\nSee `pkg/user.py` and `make` and `uses`.\n"})
    for rel in ("pkg/base.py", "pkg/user.py", "README.md"):
        (root / rel).write_bytes({"pkg/base.py": FILES["pkg/base.py"].replace("return 1", "return 2").encode(),
                                  "pkg/user.py": (FILES["pkg/user.py"] + "\ndef make():\n    return helper()\n").encode(),
                                  "README.md": b"# Readme\nSee `pkg/user.py` and `make` and `uses`.\n"}[rel])
    incremental = snapshot(ws)
    ws.close()
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    assert snapshot(fresh) == incremental
    fresh.close()


def _same_as_fresh(tmp_path, ws, root):
    incremental = snapshot(ws)
    ws.close()
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    assert snapshot(fresh) == incremental
    fresh.close()


def test_calls_through_an_aliased_import_survive_an_edit_of_the_imported_file(tmp_path, write_files):
    """Issue 13's lost CALLS edges: `from m import f as g; g()` is a reference named `g`, not `f`;
    re-parsing m deleted the edge into it and re-resolved only references named `f`."""
    root = write_files(tmp_path / "ws", {
        "pkg/__init__.py": "",
        "pkg/base.py": "def helper():\n    return 1\n",
        "pkg/user.py": "from pkg.base import helper as _helper\n\ndef go():\n    return _helper()\n",
    })
    ws = Workspace.open(root)
    ws.index(workers=0)
    (root / "pkg/base.py").write_text("# a comment line moves every line\ndef helper():\n    return 1\n")
    touch_later(root / "pkg/base.py")
    ws.index(workers=0)
    cur = ws.store.cursor()
    assert cur.execute("SELECT src, dst, strategy FROM edges WHERE kind = 'CALLS'").fetchall() == [
        ("pkg/user.py::go", "pkg/base.py::helper", "import")]
    _same_as_fresh(tmp_path, ws, root)


def test_a_repeated_definition_changes_what_documentation_mentions_mean(tmp_path, write_files):
    """A second `def helper` in one file keeps its set of qualified names but adds a candidate
    for every mention of `helper`: the README's edge to the other file drops to 1/3."""
    root = write_files(tmp_path / "ws", {
        "a.py": "def helper():\n    return 1\n",
        "b.py": "def helper():\n    return 2\n",
        "README.md": "# Readme\nCall `helper`.\n",
    })
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.reindex({"b.py": b"def helper():\n    return 2\n\ndef helper():\n    return 3\n"})
    (root / "b.py").write_text("def helper():\n    return 2\n\ndef helper():\n    return 3\n")
    cur = ws.store.cursor()
    assert cur.execute("SELECT round(confidence, 3) FROM edges WHERE kind = 'DOCUMENTS' AND dst_path = 'a.py'"
                       ).fetchall() == [(0.333,)]
    _same_as_fresh(tmp_path, ws, root)


def _indexed(tmp_path, write_files, files):
    root = write_files(tmp_path / "ws", files)
    ws = Workspace.open(root)
    ws.index(workers=0)
    return ws, root


def _edited(ws, root, path, text):
    """An editor's re-index of one buffer (the file on disk the same)."""
    (root / path).write_text(text)
    ws.reindex({path: text.encode()})


def _called(ws, src):
    return ws.store.cursor().execute("SELECT line, dst FROM edges WHERE kind = 'CALLS' AND src = ? "
                                     "ORDER BY line, dst", [src]).fetchall()


def test_a_package_re_exporting_a_name_from_another_module_retargets_its_importers_calls(tmp_path, write_files):
    """`from .a import get` -> `from .b import get` in a package's __init__ changes no symbol of
    it, but `pkg.get()` elsewhere now calls b's: the edit re-resolves the name it binds."""
    ws, root = _indexed(tmp_path, write_files, {
        "pkg/__init__.py": "from .a import get\n",
        "pkg/a.py": "def get():\n    return 1\n",
        "pkg/b.py": "def get():\n    return 2\n",
        "main.py": "import pkg\n\ndef run():\n    return pkg.get()\n",
    })
    _edited(ws, root, "pkg/__init__.py", "from .b import get\n")
    assert _called(ws, "main.py::run") == [(4, "pkg/b.py::get")]
    _same_as_fresh(tmp_path, ws, root)


def test_a_name_re_exported_through_two_packages_follows_edits_of_either(tmp_path, write_files):
    """`pkg.get()` where pkg's __init__ takes `get` from pkg.sub's, which takes it from pkg.sub.a:
    the call resolves through both (store/module_exports.py REEXPORT_HOPS); retargeting the inner re-export
    or renaming the function re-resolves it as a fresh index would, with `get` too common a name
    (30 methods) to be re-resolved everywhere."""
    ws, root = _indexed(tmp_path, write_files, {
        "pkg/__init__.py": "from .sub import get\n",
        "pkg/sub/__init__.py": "from .a import get\n",
        "pkg/sub/a.py": "def get():\n    return 1\n",
        "pkg/sub/b.py": "def get():\n    return 2\n",
        "common.py": "".join(f"class C{i}:\n    def get(self):\n        pass\n" for i in range(30)),
        "main.py": "import pkg\nfrom pkg import get\n\ndef run():\n    pkg.get()\n    get()\n",
    })
    assert _called(ws, "main.py::run") == [(5, "pkg/sub/a.py::get"), (6, "pkg/sub/a.py::get")]
    for path, text, want in (("pkg/sub/__init__.py", "from .b import get\n", "pkg/sub/b.py::get"),
                             ("pkg/sub/b.py", "def got():\n    return 2\n", None)):
        _edited(ws, root, path, text)
        assert _called(ws, "main.py::run") == ([(5, want), (6, want)] if want else [])
    _same_as_fresh(tmp_path, ws, root)


def test_a_module_level_alias_retargeted_re_resolves_its_importers_calls(tmp_path, write_files):
    """`s = attrs` -> `s = attrib` in a package's __init__ (index/aliases.py: an import of what it
    names) moves `lib.s()` elsewhere to attrib, as a fresh index would."""
    ws, root = _indexed(tmp_path, write_files, {
        "lib/__init__.py": "from ._make import attrs, attrib\ns = attrs\n",
        "lib/_make.py": "def attrs():\n    return 1\ndef attrib():\n    return 2\n",
        "main.py": "import lib\n\ndef run():\n    return lib.s()\n",
    })
    assert _called(ws, "main.py::run") == [(4, "lib/_make.py::attrs")]
    _edited(ws, root, "lib/__init__.py", "from ._make import attrs, attrib\ns = attrib\n")
    assert _called(ws, "main.py::run") == [(4, "lib/_make.py::attrib")]
    _same_as_fresh(tmp_path, ws, root)
