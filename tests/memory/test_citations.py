"""Citations follow the code: insert lines above, rename the file, change the body, delete it."""

import pytest

from memory_lsp.errors import UserError
from memory_lsp.workspace import Workspace

SOURCE = '''import os


def load_config(path):
    """Read the config; the env var wins over the file."""
    value = os.environ.get("APP_CONFIG")
    return value or open(path).read()


def unrelated():
    return 1
'''


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "config.py").write_text(SOURCE)
    (tmp_path / "main.py").write_text("from config import load_config\n\nprint(load_config('a'))\n")
    ws = Workspace.open(tmp_path)
    ws.index(workers=1)
    yield ws
    ws.close()


def _teach(ws, cite):
    return ws.book.teach("APP_CONFIG overrides the config file", "gotcha", cite=[cite]).memory.id


def _citation(ws, mid):
    ws.sync_memories()  # the host applies the events just written (reads never write)
    (m,) = [m for m in ws.memories(include_retired=True) if m.id == mid]
    return m, m.citations[0]


def test_teach_anchors_symbol_with_lines_and_fingerprint(ws):
    mid = _teach(ws, "config.py::load_config")
    m, c = _citation(ws, mid)
    assert (c.path, c.symbol, c.start_line, c.end_line) == ("config.py", "load_config", 4, 7)
    assert c.fingerprint and c.state == "valid" and m.state == "valid"


def test_lines_inserted_above_keep_it_valid_at_the_new_lines(ws):
    mid = _teach(ws, "config.py::load_config")
    (ws.root / "config.py").write_text("# header\n# more\n\n" + SOURCE)
    ws.reindex({"config.py": None})
    m, c = _citation(ws, mid)
    assert c.state == "valid" and c.current["start_line"] == 7 and c.current["end_line"] == 10


def test_file_renamed_keeps_it_valid_and_logs_the_move(ws):
    mid = _teach(ws, "config.py::load_config")
    (ws.root / "config.py").rename(ws.root / "settings.py")
    ws.index(workers=1)
    m, c = _citation(ws, mid)
    assert c.state == "valid" and c.path == "settings.py" and c.symbol == "load_config"
    kinds = [e["kind"] for e in ws.book.log.read().events]
    assert kinds.count("citation.reanchored") == 1
    ws.index(workers=1)  # the move is recorded once, not on every run
    assert [e["kind"] for e in ws.book.log.read().events].count("citation.reanchored") == 1


def test_body_changed_makes_it_drifted_until_reanchored(ws):
    mid = _teach(ws, "config.py::load_config")
    (ws.root / "config.py").write_text(SOURCE.replace("value or open(path).read()", "open(path).read()"))
    ws.reindex({"config.py": None})
    m, c = _citation(ws, mid)
    assert c.state == "drifted" and m.state == "drifted"
    assert [x.id for x in ws.memories(state="drifted")] == [mid]

    ws.book.reanchor({m.id: m}, mid, ws.snapshot().lookup())
    m, c = _citation(ws, mid)
    assert c.state == "valid"


def test_deleted_symbol_makes_it_orphaned(ws):
    mid = _teach(ws, "config.py::load_config")
    (ws.root / "config.py").write_text("def unrelated():\n    return 1\n")
    ws.reindex({"config.py": None})
    m, c = _citation(ws, mid)
    assert c.state == "orphaned" and c.current is None and m.state == "orphaned"
    assert [x.id for x in ws.memories(state="orphaned")] == [mid]


def test_range_citation_follows_its_lines_and_drifts_when_they_change(ws):
    mid = _teach(ws, "config.py:6-7")
    (ws.root / "config.py").write_text("\n\n" + SOURCE)
    ws.reindex({"config.py": None})
    _, c = _citation(ws, mid)
    assert c.state == "valid" and (c.current["start_line"], c.current["end_line"]) == (8, 9)
    (ws.root / "config.py").write_text(SOURCE.replace("APP_CONFIG", "APP_SETTINGS"))
    ws.reindex({"config.py": None})
    _, c = _citation(ws, mid)
    assert c.state == "drifted"


def test_file_citation_valid_then_orphaned(ws):
    mid = _teach(ws, "main.py")
    assert _citation(ws, mid)[1].state == "valid"
    (ws.root / "main.py").unlink()
    ws.index(workers=1)
    assert _citation(ws, mid)[1].state == "orphaned"


@pytest.mark.parametrize("cite, message", [
    ("../outside.py", "outside the workspace"),
    ("/etc/passwd", "outside the workspace"),
    ("missing.py", "no such file"),
    ("config.py::NoSuchThing", "no symbol NoSuchThing"),
    ("config.py:40-50", "has 11 lines"),
    ("config.py:9-3", "bad line range"),
])
def test_bad_citations_get_a_clear_error_and_write_nothing(ws, cite, message):
    with pytest.raises(UserError, match=message):
        _teach(ws, cite)
    assert not ws.book.log.path.exists()


def test_teach_works_while_another_process_owns_the_index(ws):
    # `ws` holds the database open; a second writer must not need it
    from memory_lsp.memory.book import MemoryBook

    other = MemoryBook(ws.root)
    mid = other.teach("APP_CONFIG overrides the config file", "gotcha", cite=["config.py::load_config"]).memory.id
    m, c = _citation(ws, mid)  # the owner sees it on its next read
    assert c.state == "valid" and c.symbol == "load_config"
