"""The retrieval index's plumbing: checkpoints after bulk vector writes, the in-memory BM25
copy, embedding in groups that stop between batches, the v4 schema upgrade."""

import subprocess
import sys
import textwrap

import pytest

from memory_lsp.retrieval.bm25 import Bm25Index
from memory_lsp.retrieval.search import Retriever
from memory_lsp.workspace import Workspace
from memory_lsp.store import Store
from memory_lsp.store import search as sql

from shop_project import SHOP

FILES = {**SHOP, "shop/cart.py": SHOP["shop/cart.py"] + (
    "\n    def empty(self):\n        \"\"\"Drop every item from the cart.\"\"\"\n        self.items = []\n")}


@pytest.fixture()
def ws(tmp_path, write_files):
    ws = Workspace.open(write_files(tmp_path, FILES))
    ws.index(workers=1)
    ws.book.teach("Outgoing email must go through the local relay", "gotcha", cite=["shop/mailer.py::send_receipt"])
    ws.book.teach("Never change apply_discount without the marketing team", "policy",
                  cite=["shop/pricing.py::apply_discount"])
    ws.sync_memories()
    yield ws
    ws.close()


def test_a_half_read_result_does_not_block_the_checkpoint_of_the_next_write(tmp_path):
    # DuckDB 1.4: a result read with fetchone() keeps a lock on its table, and the checkpoint that
    # a large write starts waits for it forever. Run in a child: a regression hangs, not the suite.
    code = textwrap.dedent(f"""
        import numpy as np
        from memory_lsp.store import Store
        from memory_lsp.store import search as sql
        store = Store.open({str(tmp_path / "index.duckdb")!r})
        store.conn.execute("SET checkpoint_threshold = '1KB'")  # every write checkpoints
        store.cursor().execute("SELECT key FROM meta").fetchone()  # half-read, then left alone
        sql.write_vectors(store, "m", [(f"a.py::f{{i}}:1", "code", "h", np.ones(384)) for i in range(50)])
        store.set_meta("after", "1")
        store.conn.execute("CHECKPOINT")
        print(store.meta("vectors_version"), store.cursor().execute("SELECT count(*) FROM vectors").fetchone()[0])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "50"]  # one write, one version bump


def test_the_in_memory_bm25_ranks_and_scores_as_duckdb(ws):
    sql.ensure_fts(ws.store)
    index = Bm25Index(sql.fts_postings(ws.store))
    for query in ("apply discount", "cart items", "email relay", "round_cents", "checkout total marketing", "zzz"):
        for kind in (None, "code", "memory"):
            want = sql.bm25(ws.store, query, kind, 40)
            got, coverage = index.search(sql.query_terms(ws.store, query), kind, 40)
            assert [r[:2] for r in got] == [r[:2] for r in want], (query, kind)
            assert [r[2] for r in got] == pytest.approx([r[2] for r in want])
            assert coverage == pytest.approx(sql.bm25_coverage(ws.store, query, want[0][0]) if want else 0.0)
    # the share of the query's idf its best hit holds: all of it, or part (no item has both words)
    assert index.search(sql.query_terms(ws.store, "apply_discount"), None, 5)[1] == 1.0
    assert 0 < index.search(sql.query_terms(ws.store, "discount email"), None, 5)[1] < 1


def test_repeated_searches_use_the_loaded_copies_and_answer_alike(ws):
    first = ws.search("apply discount marketing", mode="bm25")
    again = ws.search("apply discount marketing", mode="bm25")
    assert ws.retriever()._content._bm25 is not None  # the second search ran on the postings copy
    assert first["results"] == again["results"] and first["results"]
    near = ws.search("rules", kind="memory", files=["shop/cart.py"])  # neighbours from the links copy
    assert "Never change apply_discount" in near["results"][0]["text"]
    ws.book.teach("Receipts are plain text", "fact", cite=["shop/mailer.py"])  # a new version of the copies
    ws.sync_memories()  # the host applies the new event (reads never write)
    assert "Receipts are plain text" in [r["text"] for r in ws.search("plain text receipts", mode="bm25")["results"]]


def test_embedding_stops_between_batches_keeps_what_it_did_and_resumes(ws):
    retriever = Retriever(ws.store)
    model = retriever.embedder().model_id
    asked = []
    out = retriever.embed_pending(batch=2, should_stop=lambda: asked.append(1) or len(asked) > 3)
    assert out["embedded"] == 4  # asked at the start and before each batch: two batches of two, then it gave way
    assert sql.vector_counts(ws.store, model)[0] == 4
    rest = retriever.embed_pending(batch=2)
    done, total = sql.vector_counts(ws.store, model)
    assert rest["embedded"] == total - 4 and done == total
    assert ws.store.meta("vectors_version") == "2"  # a version per written group, not per batch
    dupes = ws.store.cursor().execute("SELECT item_id FROM vectors GROUP BY 1 HAVING count(*) > 1").fetchall()
    assert dupes == []


def test_an_index_from_before_receiver_types_is_rebuilt(tmp_path):
    # v5 added refs.rtype, which only a fresh extraction fills: older indexes are rebuilt, not migrated
    path = str(tmp_path / "index.duckdb")
    store = Store.open(path)
    store.conn.execute("INSERT INTO chunks (id, path) VALUES ('a.py::f:1', 'a.py')")
    store.set_meta("schema_version", "4")
    store.close()
    store = Store.open(path)
    assert store.recovered == "index schema v4 differs from v5: rebuilt"
    assert store.meta("schema_version") == "5"
    assert store.cursor().execute("SELECT index_name FROM duckdb_indexes()").fetchall() == [("chunks_id",)]
    assert store.cursor().execute("SELECT id FROM chunks").fetchall() == []
    store.close()
