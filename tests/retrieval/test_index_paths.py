"""The retrieval index's plumbing: checkpoints after bulk vector writes, the in-memory BM25
copy, embedding in groups that stop between batches, the v4 schema upgrade."""

import subprocess
import sys
import textwrap
import threading
import time

import pytest

from memory_lsp.retrieval.bm25 import Bm25Index
from memory_lsp.retrieval.search import Retriever
from memory_lsp.workspace import Workspace
from memory_lsp.store import SCHEMA_VERSION, Store
from memory_lsp.store import fulltext
from memory_lsp.store import search as sql

from shop_project import SHOP
from waiting import wait_until

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


def in_memory(store, index, query, kind, limit):
    terms = fulltext.query_terms(store, query)
    return index.search(terms, fulltext.term_rows(store, [t for t, _ in terms]), kind, limit)


def test_the_in_memory_bm25_ranks_and_scores_as_sql(ws):
    fulltext.ensure_fts(ws.store)
    index = Bm25Index.load(ws.store)
    for query in ("apply discount", "cart items", "email relay", "round_cents", "checkout total marketing", "zzz"):
        for kind in (None, "code", "memory"):
            want = fulltext.bm25(ws.store, query, kind, 40)
            got, coverage = in_memory(ws.store, index, query, kind, 40)
            assert [r[:2] for r in got] == [r[:2] for r in want], (query, kind)
            assert [r[2] for r in got] == pytest.approx([r[2] for r in want])
            assert coverage == pytest.approx(fulltext.bm25_coverage(ws.store, query, want[0][0]) if want else 0.0)
    # the share of the query's idf its best hit holds: all of it, or part (no item has both words)
    assert in_memory(ws.store, index, "apply_discount", None, 5)[1] == 1.0
    assert 0 < in_memory(ws.store, index, "discount email", None, 5)[1] < 1


def test_repeated_searches_use_the_loaded_copies_and_answer_alike(ws):
    first = ws.search("apply discount marketing", mode="bm25")
    assert ws.retriever()._content._bm25 is None  # the first in DuckDB: a process may search once
    again = ws.search("apply discount marketing", mode="bm25")  # in DuckDB too, as the copy loads beside it
    assert wait_until(lambda: ws.retriever()._content._bm25 is not None)
    third = ws.search("apply discount marketing", mode="bm25")  # on the postings copy
    assert first["results"] == again["results"] == third["results"] and first["results"]
    near = ws.search("rules", kind="memory", files=["shop/cart.py"])  # neighbours from the links copy
    assert "Never change apply_discount" in near["results"][0]["text"]
    ws.book.teach("Receipts are plain text", "fact", cite=["shop/mailer.py"])  # a new version of the copies
    ws.sync_memories()  # the host applies the new event (reads never write)
    assert "Receipts are plain text" in [r["text"] for r in ws.search("plain text receipts", mode="bm25")["results"]]


def test_no_search_waits_for_the_postings_copy_to_load(ws, monkeypatch):
    opened, real = threading.Event(), Bm25Index.load.__func__

    def held_load(cls, store):  # the real load, once the test lets it go on
        assert opened.wait(30)
        return real(cls, store)

    monkeypatch.setattr(Bm25Index, "load", classmethod(held_load))
    retriever = Retriever(ws.store, let_go_after=None)
    first = retriever.search("apply discount", mode="bm25")
    answered = []
    searching = threading.Thread(target=lambda: answered.append(retriever.search("apply discount", mode="bm25")))
    searching.start()
    searching.join(10)  # the second search starts the load and answers in DuckDB meanwhile
    assert answered and answered[0]["results"] == first["results"] and retriever._content._bm25 is None
    opened.set()
    assert wait_until(lambda: retriever._content._bm25 is not None)
    assert retriever.search("apply discount", mode="bm25")["results"] == first["results"]


def test_the_process_waits_for_a_load_under_way_before_it_ends(ws, monkeypatch):
    # a daemon thread still in DuckDB (its allocator's purge) as the interpreter ended aborted the
    # process ("terminate called without an active exception", exit 134; 3 of 3 runs at 10,740 files):
    # the load's thread is no daemon, so the interpreter waits for it (a closed store ends it at once)
    opened, real = threading.Event(), Bm25Index.load.__func__
    monkeypatch.setattr(Bm25Index, "load", classmethod(lambda cls, store: (opened.wait(30), real(cls, store))[1]))
    retriever = Retriever(ws.store, let_go_after=None)
    retriever.search("apply discount", mode="bm25")
    retriever.search("apply discount", mode="bm25")
    loading = [t for t in threading.enumerate() if t.name == "bm25-copy"]
    opened.set()
    assert loading and not any(t.daemon for t in loading)
    assert wait_until(lambda: retriever._content._bm25 is not None)


def test_a_load_under_way_when_the_index_changes_is_taken_over_not_made_twice(ws, monkeypatch):
    opened, loads, real = threading.Event(), [], Bm25Index.load.__func__

    def held_load(cls, store):
        loads.append(1)
        assert opened.wait(30)
        return real(cls, store)

    monkeypatch.setattr(Bm25Index, "load", classmethod(held_load))
    retriever = Retriever(ws.store, let_go_after=None)
    retriever.search("apply discount", mode="bm25")
    retriever.search("apply discount", mode="bm25")  # starts the load, held back
    first = retriever._content
    ws.book.teach("Receipts are plain text", "fact", cite=["shop/mailer.py"])  # a new version of the index
    ws.sync_memories()
    for _ in range(2):  # the new version's first and second searches: in DuckDB, no second load
        assert "Receipts are plain text" in [r["text"] for r in retriever.search("plain text receipts", mode="bm25")["results"]]
    assert retriever._content is not first and loads == [1]
    opened.set()
    assert wait_until(lambda: retriever._content._load is None)
    found = retriever.search("plain text receipts", mode="bm25")["results"]  # the load, brought up to date
    assert retriever._content._bm25 is not None and loads == [1]
    assert "Receipts are plain text" in [r["text"] for r in found]


def test_the_copies_of_an_idle_retriever_are_let_go_and_searches_answer_alike_after(ws):
    retriever = Retriever(ws.store, let_go_after=0.3)
    ask = dict(query="apply discount marketing", kind="all", k=10, mode="hybrid", files=["shop/cart.py"])
    first, again = retriever.search(**ask), retriever.search(**ask)  # the second starts loading the postings copy
    assert wait_until(lambda: retriever._content is not None and retriever._content._bm25 is not None)
    retriever._vector_index(retriever.embedder().model_id, ws.store.meta("vectors_version") or "0")
    assert retriever._vectors is not None
    assert wait_until(lambda: retriever._content is None and retriever._vectors is None)  # idle: let go
    after = retriever.search(**ask)  # the first again: in DuckDB
    assert retriever._content._bm25 is None
    later = retriever.search(**ask)
    assert wait_until(lambda: retriever._content._bm25 is not None)  # loaded again for a second search
    assert first["results"] == again["results"] == after["results"] == later["results"] and first["results"]


def test_searches_keep_the_copies_while_they_come_and_a_process_may_keep_them_for_good(ws):
    busy = Retriever(ws.store, let_go_after=0.6)
    busy.search("apply discount", mode="bm25")
    busy.search("apply discount", mode="bm25")
    assert wait_until(lambda: busy._content._bm25 is not None)
    loaded = busy._content._bm25
    for _ in range(8):  # a search every 0.15 s: never 0.6 s idle
        time.sleep(0.15)
        busy.search("apply discount", mode="bm25")
        assert busy._content is not None and busy._content._bm25 is loaded
    kept = Retriever(ws.store, let_go_after=None)
    kept.search("apply discount", mode="bm25")
    kept.search("apply discount", mode="bm25")
    assert wait_until(lambda: kept._content._bm25 is not None)
    time.sleep(0.5)
    assert kept._content._bm25 is not None and not kept._idle.watching


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
    assert store.recovered == f"index schema v4 differs from v{SCHEMA_VERSION}: rebuilt"
    assert store.meta("schema_version") == str(SCHEMA_VERSION)
    assert store.cursor().execute("SELECT index_name FROM duckdb_indexes()").fetchall() == [("chunks_id",)]
    assert store.cursor().execute("SELECT id FROM chunks").fetchall() == []
    store.close()


def test_an_index_searched_through_duckdbs_fts_extension_keeps_its_code_and_builds_its_own(tmp_path):
    # v6: the search index is tables of its own (store/fulltext.py); a v5 index keeps its chunks,
    # loses the extension's static index, and makes its documents at the next search
    path = str(tmp_path / "index.duckdb")
    store = Store.open(path)
    store.conn.execute("INSERT INTO files (path, hash) VALUES ('a.py', 'h1')")
    store.conn.execute("INSERT INTO chunks (id, path, kind, name, text) VALUES "
                       "('a.py::parse_config:1', 'a.py', 'function', 'parse_config', 'def parse_config(): ...')")
    store.conn.execute("CREATE TABLE fts_docs AS SELECT id, text AS words FROM chunks")
    store.conn.execute("PRAGMA create_fts_index('fts_docs', 'id', 'words', overwrite=1)")
    store.set_meta("schema_version", "5")
    store.set_meta("fts_dirty", "0")  # the extension's index was built
    store.close()
    store = Store.open(path)
    try:
        assert store.recovered is None and store.meta("schema_version") == str(SCHEMA_VERSION)  # v6, then v7's
        schemas = {r[0] for r in store.cursor().execute("SELECT schema_name FROM duckdb_schemas()").fetchall()}
        tables = {r[0] for r in store.cursor().execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        assert "fts_main_fts_docs" not in schemas and "fts_docs" not in tables
        assert fulltext.ensure_fts(store)
        assert [r[0] for r in fulltext.bm25(store, "parse config", None, 5)] == ["a.py::parse_config:1"]
    finally:
        store.close()


def test_a_files_neighbours_asked_of_duckdb_are_the_maps(ws, monkeypatch):
    # the first searches of a version ask DuckDB; later ones read the map made from every edge
    from memory_lsp.retrieval import links

    files = [r[0] for r in ws.store.cursor().execute("SELECT path FROM files ORDER BY path").fetchall()]
    monkeypatch.setattr(links, "MAP_AFTER", 1)
    whole = links.FileLinks(ws.store)
    asked = [[p] for p in files] + [files[:2], files[1:4], files]
    assert any(whole.neighbours(p) for p in asked)
    for paths in asked:
        for limit in (1, 2, 50):
            assert sql.neighbours(ws.store, paths, limit) == whole.neighbours(paths, limit), (paths, limit)
    monkeypatch.setattr(links, "MAP_AFTER", 3)
    fresh = links.FileLinks(ws.store)
    fresh.neighbours(files[:1]), fresh.neighbours(files[:1])
    assert fresh._map is None  # two searches: queries
    fresh.neighbours(files[:1])
    assert fresh._map is not None


def test_the_links_map_keeps_the_strongest_link_of_either_direction():
    from memory_lsp.retrieval import links

    whole = links.FileLinks(None)
    whole.asked = links.MAP_AFTER  # the map, not a query
    whole._map = links._made([("a.py", "b.py", 0.5), ("b.py", "a.py", 0.9), ("a.py", "c.py", 0.3),
                              ("a.py", "d.py", 0.7), ("c.py", "b.py", 0.9)])
    assert whole.neighbours(["a.py"]) == ["b.py", "d.py", "c.py"]  # b: 0.9 from b.py's side
    assert whole.neighbours(["b.py"]) == ["a.py", "c.py"]  # 0.9 each: ties by path
    assert whole.neighbours(["a.py", "c.py"], limit=2) == ["b.py", "d.py"]
    assert whole.neighbours(["z.py"]) == []
