"""One edited buffer (the editor's path): the edges other files have into it stay when only its
lines or some of its symbols changed, and the graph still equals a fresh full index."""

from memory_lsp.workspace import Workspace

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": ("class A:\n    def m(self):\n        return 1\n\nclass Bar(Foo):\n    pass\n\n"
                    "def helper():\n    return A().m()\n"),
    "pkg/other.py": "class Foo:\n    def m(self):\n        return 2\n",
    "pkg/user.py": ("from pkg.base import Bar, helper\n\ndef go(x: Bar):\n    helper()\n    return x.m()\n\n"
                    "def added_later():\n    return 0\n"),
    "docs/README.md": "# Docs\nCall `helper` or `added_later` or `brand_new`.\n",
}

GRAPH = "src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support"


def edges(ws) -> list[tuple]:
    return sorted(ws.store.cursor().execute(f"SELECT {GRAPH} FROM edges WHERE kind <> 'CO_CHANGES'").fetchall(),
                  key=repr)


def fresh_edges(tmp_path, root, texts: dict[str, str]) -> list[tuple]:
    for rel, text in texts.items():
        (root / rel).write_text(text)
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    try:
        return edges(fresh)
    finally:
        fresh.close()


def edit(tmp_path, write_files, rel: str, text: str) -> tuple[list, list, list]:
    """(edges before, after the buffer's re-index, of a fresh full index of the edited files)."""
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    before = edges(ws)
    ws.reindex({root / rel: text.encode()})
    after = edges(ws)
    ws.close()
    return before, after, fresh_edges(tmp_path, root, {rel: text})


def test_lines_only_edit_moves_edge_lines_like_a_full_index(tmp_path, write_files):
    before, after, fresh = edit(tmp_path, write_files, "pkg/base.py", "# a comment\n\n" + FILES["pkg/base.py"])
    assert after == fresh
    # the calls out of base.py moved two lines down; user.py's calls into it kept theirs
    moved = {(e[0], e[1], e[5]) for e in after if e[2] == "CALLS" and e[3] == "pkg/base.py"}
    assert ("pkg/base.py::helper", "pkg/base.py::A.m", 11) in moved
    into = [e for e in after if e[2] == "CALLS" and e[3] == "pkg/user.py" and e[4] == "pkg/base.py"]
    assert into and into == [e for e in before if e[2] == "CALLS" and e[3] == "pkg/user.py" and e[4] == "pkg/base.py"]


def test_added_function_is_resolved_where_it_is_named(tmp_path, write_files):
    text = FILES["pkg/base.py"] + "\ndef added_later():\n    return helper()\n\ndef brand_new():\n    pass\n"
    before, after, fresh = edit(tmp_path, write_files, "pkg/base.py", text)
    assert after == fresh
    assert any(e[2] == "DOCUMENTS" and e[1] == "pkg/base.py::brand_new" for e in after)
    assert not any(e[2] == "DOCUMENTS" and e[1] == "pkg/base.py::brand_new" for e in before)


def test_removed_function_leaves_no_edge_into_it(tmp_path, write_files):
    text = FILES["pkg/base.py"].replace("def helper():\n    return A().m()\n", "")
    _, after, fresh = edit(tmp_path, write_files, "pkg/base.py", text)
    assert after == fresh
    assert not any(e[1] == "pkg/base.py::helper" for e in after)


def test_a_new_symbol_named_as_a_base_reroutes_calls_through_it(tmp_path, write_files):
    # Bar(Foo) found Foo in other.py by name; a Foo defined beside Bar now wins (no base class of
    # this file changed), so user.py's x.m() (x: Bar) no longer reaches other.py's Foo.m
    text = FILES["pkg/base.py"] + "\ndef Foo():\n    return None\n"
    before, after, fresh = edit(tmp_path, write_files, "pkg/base.py", text)
    assert after == fresh
    calls = {(e[3], e[1]) for e in after if e[2] == "CALLS" and e[8] == "m"}
    assert ("pkg/user.py", "pkg/other.py::Foo.m") in {(e[3], e[1]) for e in before if e[2] == "CALLS" and e[8] == "m"}
    assert ("pkg/user.py", "pkg/other.py::Foo.m") not in calls
