"""An index made by other extraction or resolution rules (an older memory-lsp) is made again by
the next whole run, not kept beside new rows: incremental equals full across upgrades too."""

from memory_lsp.index.version import facts_version
from memory_lsp.workspace import Workspace
from test_incremental import FILES, snapshot


def older_rules(ws):
    """What an index written by another version looks like: other edges, another digest."""
    cur = ws.store.conn
    cur.execute("DELETE FROM edges WHERE kind = 'CALLS'")
    cur.execute("UPDATE refs SET receiver = 'older'")
    ws.store.set_meta("facts_version", "0.0.1+older")


def test_a_whole_run_over_an_older_index_makes_it_again(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    fresh = snapshot(ws)
    assert any(row[2] == "CALLS" for row in fresh["edges"])
    assert ws.store.meta("facts_version") == facts_version()
    older_rules(ws)

    report = ws.index(workers=0)
    assert report.parsed == len([p for p in FILES if p.endswith(".py") or p.endswith(".md")])
    assert snapshot(ws) == fresh
    assert ws.store.meta("facts_version") == facts_version()
    ws.close()


def test_the_same_rules_parse_nothing_again(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert ws.index(workers=0).parsed == 0
    ws.store.conn.execute("DELETE FROM edges WHERE kind = 'CALLS'")  # unseen: the digest is the same
    assert ws.index(workers=0).parsed == 0
    assert not any(row[2] == "CALLS" for row in snapshot(ws)["edges"])
    ws.close()


def test_the_digest_is_of_the_fact_making_code():
    version = facts_version()
    assert version.startswith(__import__("memory_lsp").__version__ + "+")
    assert len(version.partition("+")[2]) == 24
