"""The server's background embedding, as a user has it: memories, then the code chunks of the most
central files up to `embeddings.codeChunks`, and no more (all of a large workspace's chunks kept
both cores busy for hours: bench/bench_background.py)."""

from __future__ import annotations

import duckdb

from conftest import MEMORIES, SERVER
from rawclient import RawClient


def _vectors(root) -> dict[str, int]:
    con = duckdb.connect(str(root / ".memory" / "index.duckdb"), read_only=True)
    try:
        return dict(con.execute("SELECT kind, count(*) FROM vectors GROUP BY kind").fetchall())
    finally:
        con.close()


def test_the_background_embeds_the_memories_and_the_code_chunks_it_may(project):
    raw = RawClient(SERVER + ["--standalone"])
    try:
        raw.initialize(project, options={"embeddings": {"background": True, "codeChunks": 2}})
        raw.wait_indexed()
        raw.wait_for(lambda: any("in the background" in line for line in raw.stderr), timeout=90,
                     what="background embedding to finish")
    finally:
        assert raw.close() == 0
    assert _vectors(project) == {"memory": len(MEMORIES), "code": 2}
