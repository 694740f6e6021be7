"""`super(Foo, self).m()` inside Foo is `super().m()` written as Python 2 did (mistune, webob and
pathspec still do): the next class up from Foo, never a guess by name (index/receivers.py). Seven
of mistune's seven `super` sites and both of webob's were missed before."""

from __future__ import annotations

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "class Base:\n    def __init__(self):\n        self.n = 0\n\n    def run(self):\n        return 1\n\n\n"
                   "class Other:\n    def run(self):\n        return 2\n",
    "pkg/sub.py": ("from pkg.base import Base\n\n\n"
                   "class Sub(Base):\n"
                   "    def __init__(self):\n        super(Sub, self).__init__()\n\n"  # line 6
                   "    def run(self):\n        return super(Sub, self).run()\n\n"  # line 9
                   "    @classmethod\n    def make(cls):\n        return super(Sub, cls).run\n\n"
                   "    @classmethod\n    def again(cls):\n        return super(Sub, cls).run(cls)\n"),  # line 16
}


def test_super_of_the_enclosing_class_is_the_next_class_up(tmp_path, index_files, symbol_edges):
    ws = index_files(tmp_path, FILES)
    try:
        calls = {(dst, src) for src, dst in symbol_edges(ws, "CALLS")}
        for caller in ("pkg/sub.py::Sub.run", "pkg/sub.py::Sub.again"):
            assert ("pkg/base.py::Base.run", caller) in calls
            assert ("pkg/base.py::Other.run", caller) not in calls
        assert ("pkg/base.py::Base.__init__", "pkg/sub.py::Sub.__init__") in calls
        strategies = {r[0] for r in ws.store.cursor().execute(
            "SELECT strategy FROM edges WHERE kind = 'CALLS' AND src_path = 'pkg/sub.py' AND name = 'run'").fetchall()}
        assert strategies == {"super"}
    finally:
        ws.close()
