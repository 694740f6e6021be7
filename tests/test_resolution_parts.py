"""A whole-workspace resolution in pieces of files gives the edges one piece gives, edge for edge:
a call whose receiver's class is known walks base classes resolved in other pieces."""

from __future__ import annotations

from memory_lsp.graph import resolution

FILES = {
    "pkg/a_child.py": "from pkg.m_mid import Mid\n\n\nclass Child(Mid):\n    def go(self):\n"
                      "        self.ping()\n        helper()\n        Child.ping(self)\n\n\n"
                      "def use():\n    c = Child()\n    c.ping()\n    c.go()\n",
    "pkg/m_mid.py": "from pkg.z_base import Base\n\n\nclass Mid(Base):\n    def mid(self):\n        return self.ping()\n",
    "pkg/z_base.py": "class Base:\n    def ping(self):\n        return 1\n\n\ndef helper():\n    return Base().ping()\n",
    "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef child():\n    return 1\n",
    "tests/test_child.py": "from pkg.a_child import use\n\n\ndef test_use(child):\n    use()\n",
}
EDGES = ("SELECT src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support FROM edges "
         "WHERE kind IN ('CALLS', 'INHERITS', 'USES_FIXTURE') ORDER BY ALL")


def _resolved(ws, refs_per_part: int) -> list[tuple]:
    with ws.store.transaction() as cur:
        cur.execute("DELETE FROM edges WHERE kind IN ('CALLS', 'INHERITS', 'USES_FIXTURE')")
        resolution.resolve_all(ws.store, cur, refs_per_part)
    return ws.store.cursor().execute(EDGES).fetchall()


def test_pieces_give_the_edges_of_one(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        indexed = ws.store.cursor().execute(EDGES).fetchall()
        assert len(resolution._parts(ws.store.cursor(), 1)) == 4  # one file a piece (conftest.py calls nothing)
        assert len(resolution._parts(ws.store.cursor(), 10**9)) == 1
        # the walk from Child through Mid (a_child.py) to Base (z_base.py, the last piece)
        assert ("pkg/a_child.py::Child.go", "pkg/z_base.py::Base.ping", "self_inherited") in \
            {(e[0], e[1], e[7]) for e in indexed}
        assert {e[2] for e in indexed} == {"CALLS", "INHERITS", "USES_FIXTURE"}
        for size in (1, 3, 10**9):
            assert _resolved(ws, size) == indexed
    finally:
        ws.close()
