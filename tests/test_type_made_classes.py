"""Classes made by `type(name, (Base,), ns)`: at module level (`Direct = type("Direct", (Base,
Mixin), {})`) and through a function of the file returning such a call (structlog's
`BoundLoggerFilteringAtInfo = _make_filtering_bound_logger(INFO)`, made on `BoundLoggerBase`). They
were no classes of the index: CPython's `__bases__` names six such pairs in structlog, the index
none (INHERITS recall 0.333), and `Logger().info()` on one was a guess."""

from test_fixture_calls import fresh_snapshot
from test_incremental import snapshot

from memory_lsp.workspace import Workspace

BASE = 'class Base:\n    def info(self):\n        return 1\n\n\nclass Mixin:\n    def debug(self):\n        return 2\n'
MADE = 'from pkg.base import Base, Mixin\n\n\ndef _make(level):\n    def log(self):\n        return level\n\n    return type(f"Logger{level}", (Base,), {"log": log})\n\n\nLoggerA = _make(1)\nLoggerB = _make(2)\nDirect = type("Direct", (Base, Mixin), {})\nnot_a_class = len([1])\n\n\ndef use():\n    LoggerA().info()\n    Direct().debug()\n'
FILES = {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/made.py": MADE}


def edges(ws, kind):
    return sorted(ws.store.cursor().execute(
        "SELECT src, dst, strategy FROM edges WHERE kind = ? AND src_path = 'pkg/made.py'", [kind]).fetchall())


def test_a_class_made_by_type_inherits_its_bases(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        classes = ws.store.cursor().execute(
            "SELECT name FROM symbols WHERE path = 'pkg/made.py' AND kind = 'class' ORDER BY name").fetchall()
        assert [c for (c,) in classes] == ["Direct", "LoggerA", "LoggerB"]  # not `not_a_class = len(...)`
        assert edges(ws, "INHERITS") == [
            ("pkg/made.py::Direct", "pkg/base.py::Base", "import"),
            ("pkg/made.py::Direct", "pkg/base.py::Mixin", "import"),
            ("pkg/made.py::LoggerA", "pkg/base.py::Base", "import"),
            ("pkg/made.py::LoggerB", "pkg/base.py::Base", "import"),
        ]
        calls = edges(ws, "CALLS")
        assert ("pkg/made.py::use", "pkg/base.py::Base.info", "typed_inherited") in calls
        assert ("pkg/made.py::use", "pkg/base.py::Mixin.debug", "typed_inherited") in calls
    finally:
        ws.close()


def test_an_edited_maker_rebases_its_classes_as_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    try:
        (root / "pkg/made.py").write_text(MADE.replace("(Base,), {\"log\": log}", "(Mixin,), {\"log\": log}"))
        ws.index(workers=0)
        assert ("pkg/made.py::LoggerA", "pkg/base.py::Mixin", "import") in edges(ws, "INHERITS")
        assert snapshot(ws) == fresh_snapshot(root, tmp_path / "fresh.duckdb")
        (root / "pkg/made.py").write_text(MADE.replace("return type(", "return dict(").replace(
            "Direct = type(", "Direct = dict("))
        ws.index(workers=0)
        assert edges(ws, "INHERITS") == []
        assert snapshot(ws) == fresh_snapshot(root, tmp_path / "fresh2.duckdb")
    finally:
        ws.close()
