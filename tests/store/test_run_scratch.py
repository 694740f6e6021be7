"""A whole-workspace index run leaves no temporary table on the writer's connection (a server
keeps that connection: a run's scratch held 17 MB of DuckDB's memory at 11,000 files)."""

from __future__ import annotations

TEMPS = "SELECT table_name FROM duckdb_tables() WHERE temporary"


def test_a_full_run_drops_its_scratch(tmp_path, index_files):
    ws = index_files(tmp_path, {"app/core.py": "def parse(x):\n    return helper(x)\n\n\ndef helper(x):\n    return x\n",
                                "app/cli.py": "from app.core import parse\n\n\ndef main():\n    parse(1)\n"})
    try:
        assert ws.store.conn.execute(TEMPS).fetchall() == []
        assert ws.store.cursor().execute("SELECT count(*) FROM edges WHERE kind = 'CALLS'").fetchone()[0] == 2
        (tmp_path / "app" / "core.py").write_text("def parse(x):\n    return x\n")
        ws.index(workers=0)
        assert ws.store.conn.execute(TEMPS).fetchall() == []
        # the check sees a temporary table when there is one
        ws.store.conn.execute("CREATE TEMP TABLE _left (v INTEGER)")
        assert ws.store.conn.execute(TEMPS).fetchall() == [("_left",)]
    finally:
        ws.close()
