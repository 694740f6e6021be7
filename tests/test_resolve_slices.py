"""Issue 13 item 3: a full run resolves the calls a slice of files at a time (graph/resolution.py
`resolve_all`, to keep DuckDB's joins small); the edges must be those of one pass over every
reference, edge for edge, whatever the slices' size."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memory_lsp.graph import resolution
from memory_lsp.store import calls
from memory_lsp.workspace import Workspace

CONTRACTS = Path(__file__).parent / "contracts" / "languages"
EDGE = "src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support"

# bases in other files (and in files sorted after the callers'), typed receivers walking them,
# super(), name-only guesses, fixtures from a conftest, a function-local import
CROSS_FILE = {
    "a/caller.py": (
        "from z.base import Base\n"
        "from z.child import Child\n\n"
        "def use(x: Child, y):\n"
        "    x.ping()\n"
        "    Child().pong()\n"
        "    y.rare_name()\n"
        "    helper()\n\n"
        "def helper():\n"
        "    from z.base import make\n"
        "    return make()\n"),
    "m/mid.py": (
        "from z.base import Base\n\n"
        "class Mid(Base):\n"
        "    def pong(self):\n"
        "        super().pong()\n"
        "        self.ping()\n"),
    "z/base.py": (
        "class Base:\n"
        "    def ping(self):\n"
        "        return 1\n"
        "    def pong(self):\n"
        "        return 2\n\n"
        "def make():\n"
        "    return Base()\n"),
    "z/child.py": (
        "from m.mid import Mid\n\n"
        "class Child(Mid):\n"
        "    def rare_name(self):\n"
        "        return self.pong()\n"),
    "tests/conftest.py": "def thing():\n    return 3\n",
    **{f"{pkg}/__init__.py": "" for pkg in ("a", "m", "z")},
    "tests/test_a.py": "from a.caller import use\n\ndef test_use(thing):\n    use(thing, thing)\n",
}


def _edges(root: Path, slice_refs: int, monkeypatch) -> list[tuple]:
    monkeypatch.setattr(resolution, "SLICE_REFS", slice_refs)
    ws = Workspace.open(root, db=root.parent / f"{root.name}-{slice_refs}.duckdb")
    try:
        ws.index(workers=0)
        return sorted(ws.store.cursor().execute(f"SELECT {EDGE} FROM edges").fetchall(), key=repr)
    finally:
        ws.close()


def _compare(root: Path, monkeypatch) -> list[tuple]:
    whole = _edges(root, 10**9, monkeypatch)
    for size in (1, 7):  # one file per slice; slices cutting through the workspace
        assert _edges(root, size, monkeypatch) == whole, size
    return whole


def test_slices_resolve_cross_file_bases_as_one_pass(tmp_path, write_files, monkeypatch):
    root = write_files(tmp_path / "ws", CROSS_FILE)
    whole = _compare(root, monkeypatch)
    got = {(e[0], e[1], e[7]) for e in whole}
    # the walk up from a caller sorted before its classes' files still finds the base's method
    assert ("a/caller.py::use", "z/base.py::Base.ping", "typed_inherited") in got
    assert ("m/mid.py::Mid.pong", "z/base.py::Base.pong", "super") in got
    assert ("tests/test_a.py::test_use", "tests/conftest.py::thing", "fixture") in got


def test_more_slices_than_one_leave_the_edges_of_every_file(tmp_path, write_files):
    root = write_files(tmp_path / "ws", CROSS_FILE)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        slices = calls.ref_slices(ws.store.conn, 3)
        files = {p for (p,) in ws.store.cursor().execute("SELECT DISTINCT path FROM refs").fetchall()}
    finally:
        ws.close()
    assert len(slices) > 2 and set().union(*slices) == files
    assert sum(len(s) for s in slices) == len(files)  # each file in one slice


@pytest.mark.parametrize("lang", sorted(p.name for p in CONTRACTS.iterdir() if (p / "workspace").is_dir()))
def test_slices_give_the_contract_workspaces_their_one_pass_edges(lang, tmp_path, monkeypatch):
    root = tmp_path / lang
    shutil.copytree(CONTRACTS / lang / "workspace", root)
    assert _compare(root, monkeypatch)
