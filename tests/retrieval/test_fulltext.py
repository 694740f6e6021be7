"""The BM25 index follows edits document by document (store/fulltext.py): an edit replaces only
its file's documents, memories follow their text, the server's postings copy is refreshed rather
than loaded again (retrieval/bm25.py), and text with no words in it is indexed without harm."""

import numpy as np
import pytest

from memory_lsp.retrieval import bm25
from memory_lsp.store import fulltext
from memory_lsp.workspace import Workspace

from shop_project import SHOP
from waiting import wait_until


@pytest.fixture()
def ws(tmp_path, write_files):
    ws = Workspace.open(write_files(tmp_path, SHOP))
    ws.index(workers=1)
    fulltext.ensure_fts(ws.store)
    yield ws
    ws.close()


def docids(ws) -> dict[str, int]:
    return dict(ws.store.cursor().execute("SELECT id, docid FROM bm25_docs").fetchall())


def found(ws, query: str, kind: str | None = None) -> list[str]:
    return [r[0] for r in fulltext.bm25(ws.store, query, kind, 20)]


def ranked(found) -> list:
    """(id, kind, score) rows in order, ties by id once scores are rounded (the copy, a fresh load
    and SQL add a document's terms in other orders: equal scores may differ in the last bit)."""
    return sorted(((i, k, round(s, 9)) for i, k, s in found), key=lambda r: (-r[2], r[0]))


def rows(ws) -> dict:
    cur = ws.store.cursor()
    return {"docs": sorted(cur.execute("SELECT id, kind, len FROM bm25_docs").fetchall()),
            "postings": sorted(cur.execute("SELECT d.id, t.term, p.tf FROM bm25_postings p JOIN bm25_docs d "
                                           "USING (docid) JOIN bm25_terms t USING (termid)").fetchall()),
            "terms": sorted(cur.execute("SELECT term, df FROM bm25_terms").fetchall())}


def rebuilt(ws) -> dict:
    """The index made from nothing, on the same chunks and memories."""
    for table in fulltext.TABLES:
        ws.store.conn.execute(f"DELETE FROM {table}")
    fulltext.mark_dirty(ws.store)
    fulltext.ensure_fts(ws.store)
    return rows(ws)


def test_an_edit_replaces_only_the_documents_of_its_file(ws, tmp_path):
    before = docids(ws)
    assert found(ws, "frobnicate") == []
    cart = tmp_path / "shop/cart.py"
    cart.write_text(cart.read_text() + '\n\ndef frobnicate_totals(cart):\n    """Frobnicate every total."""\n')
    ws.reindex({str(cart): None})
    assert ws.store.meta("fts_dirty") == "1"
    assert fulltext.ensure_fts(ws.store)
    after = docids(ws)
    assert found(ws, "frobnicate") == ["shop/cart.py::frobnicate_totals:" + str(
        cart.read_text().splitlines().index("def frobnicate_totals(cart):") + 1)]
    others = {i: d for i, d in before.items() if not i.startswith("shop/cart.py::")}
    assert others and {i: after[i] for i in others} == others  # not made again
    cart_docs = [d for i, d in after.items() if i.startswith("shop/cart.py::")]
    assert cart_docs and min(cart_docs) > max(before.values())  # new numbers: a copy sees them as new
    assert not fulltext.ensure_fts(ws.store)  # up to date: nothing done, the version kept
    incremental = rows(ws)
    assert incremental == rebuilt(ws)


def test_a_deleted_file_takes_its_documents_and_their_words_with_it(ws, tmp_path):
    (tmp_path / "shop/mailer.py").unlink()
    ws.index(workers=1)
    fulltext.ensure_fts(ws.store)
    assert not any(i.startswith("shop/mailer.py::") for i in docids(ws))
    assert found(ws, "send_receipt") == [] and found(ws, "mailer") == []
    assert rows(ws) == rebuilt(ws)


def test_memories_follow_their_text(ws):
    m = ws.book.teach("Outgoing email must go through the local relay", "gotcha",
                      cite=["shop/mailer.py::send_receipt"]).memory
    ws.sync_memories()
    fulltext.ensure_fts(ws.store)
    assert found(ws, "relay", "memory") == [m.id]
    code_docs = {i: d for i, d in docids(ws).items() if "::" in i}
    ws.book.edit({m.id: m}, m.id, text="Outgoing email must go through the company gateway")
    ws.sync_memories()
    fulltext.ensure_fts(ws.store)
    assert found(ws, "relay", "memory") == [] and found(ws, "gateway", "memory") == [m.id]
    assert {i: d for i, d in docids(ws).items() if "::" in i} == code_docs  # the code's documents stay
    assert rows(ws) == rebuilt(ws)
    ws.book.forget({m.id: ws.memories()[0]}, m.id, "the relay is gone")
    ws.sync_memories()
    fulltext.ensure_fts(ws.store)
    assert found(ws, "gateway", "memory") == []
    assert rows(ws) == rebuilt(ws)


def test_a_search_after_an_edit_refreshes_the_servers_postings_copy(ws, tmp_path, monkeypatch):
    monkeypatch.setattr(bm25, "RELOAD_SHARE", float("inf"))  # this workspace is small: never a whole load
    ws.search("apply discount", mode="bm25")
    ws.search("apply discount", mode="bm25")  # the second search starts loading the copy
    assert wait_until(lambda: ws.retriever()._content._bm25 is not None)
    loaded = ws.retriever()._content._bm25
    pricing = tmp_path / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("def apply_discount", "def apply_rebate"))
    ws.reindex({str(pricing): None})
    hits = ws.search("rebate", mode="bm25")["results"]
    copy = ws.retriever()._content._bm25
    assert copy is not loaded and copy.docs is loaded.docs  # refreshed: the loaded postings kept
    assert copy.loaded_to > loaded.loaded_to
    assert [h["symbol"] for h in hits][:1] == ["apply_rebate"]
    assert all(h["symbol"] != "apply_discount" for h in ws.search("apply discount", mode="bm25")["results"])
    fresh = bm25.Bm25Index.load(ws.store)
    for query in ("apply rebate", "cart items total", "send receipt email", "discount"):
        terms = fulltext.query_terms(ws.store, query)
        term_rows = fulltext.term_rows(ws.store, [t for t, _ in terms])
        got, want = copy.search(terms, term_rows, None, 20), fresh.search(terms, term_rows, None, 20)
        assert ranked(got[0]) == ranked(want[0]) == ranked(fulltext.bm25(ws.store, query, None, 20))
        assert got[1] == pytest.approx(want[1])


def test_text_without_words_is_a_document_of_no_length(tmp_path, write_files):
    files = {"a.py": 'def café():\n    """Déjà vu: ½ ⅔ 🙂 \\x00 ... 12345 ___"""\n',
             "b.py": "def _():\n    return 0\n"}
    ws = Workspace.open(write_files(tmp_path, files))
    try:
        ws.index(workers=1)
        assert fulltext.ensure_fts(ws.store)
        assert found(ws, "cafe deja") == ["a.py::café:1"]  # accents stripped, as fts did
        lengths = dict(ws.store.cursor().execute("SELECT id, len FROM bm25_docs").fetchall())
        assert lengths["b.py::_:1"] == 3  # `b py return`: `_` and `0` are no words
        assert found(ws, "12345 ___ ...") == []
    finally:
        ws.close()


def test_files_taken_in_groups_make_the_index_one_group_makes(ws, monkeypatch):
    # a whole index's documents are made a group of files at a time (DuckDB's memory limit)
    ws.book.teach("Receipts are plain text", "fact", cite=["shop/mailer.py"])
    ws.sync_memories()
    whole = rebuilt(ws)
    monkeypatch.setattr(fulltext, "FILES_PER_GROUP", 1)
    assert rebuilt(ws) == whole
    assert ws.store.cursor().execute("SELECT count(*) FROM files").fetchone()[0] > 3  # so, groups
    assert found(ws, "plain text receipts", "memory") and found(ws, "apply discount", "code")


def test_the_index_is_the_one_duckdbs_fts_extension_makes(ws):
    # the tokenizer, stopwords, stemmer and formula are fts's: built here on the same text, the
    # extension's documents, dictionary and scores are these
    conn = ws.store.conn
    conn.execute(f"CREATE TABLE fts_ref AS SELECT c.id, {fulltext._CODE_WORDS} AS words FROM chunks c")
    conn.execute("PRAGMA create_fts_index('fts_ref', 'id', 'words', stemmer='porter', stopwords='english')")
    cur = ws.store.cursor()
    assert sorted(cur.execute("SELECT name, len FROM fts_main_fts_ref.docs").fetchall()) == \
        sorted(cur.execute("SELECT id, len FROM bm25_docs").fetchall())
    assert sorted(cur.execute("SELECT term, df FROM fts_main_fts_ref.dict").fetchall()) == \
        sorted(cur.execute("SELECT term, df FROM bm25_terms").fetchall())
    for query in ("apply discount", "cart items total", "send the receipt by email", "Déjà-vu 42 round_cents()"):
        want = cur.execute("SELECT id, score FROM (SELECT id, fts_main_fts_ref.match_bm25(id, ?) AS score "
                           "FROM fts_ref) WHERE score IS NOT NULL ORDER BY score DESC, id", [query]).fetchall()
        got = [(i, s) for i, _k, s in fulltext.bm25(ws.store, query, None, 100)]
        assert [i for i, _ in got] == [i for i, _ in want] and want
        assert [s for _, s in got] == pytest.approx([s for _, s in want])


def test_a_build_that_gives_way_goes_on_where_it_stopped(ws, tmp_path, monkeypatch):
    # a server builds the index in the background after indexing, a group of files at a time,
    # and stops between groups when an edit is waiting; the next call does the files left
    monkeypatch.setattr(fulltext, "FILES_PER_GROUP", 1)
    whole = rebuilt(ws)
    for table in fulltext.TABLES:
        ws.store.conn.execute(f"DELETE FROM {table}")
    fulltext.mark_dirty(ws.store)
    asked = []
    assert fulltext.ensure_fts(ws.store, should_stop=lambda: len(asked) > 2 or asked.append(1))
    assert ws.store.meta("fts_dirty") == "1"  # not done
    made = ws.store.cursor().execute("SELECT count(*) FROM bm25_sources").fetchone()[0]
    assert 0 < made < len(SHOP)
    assert fulltext.ensure_fts(ws.store) and ws.store.meta("fts_dirty") == "0"
    assert rows(ws) == whole


def test_the_background_embedding_job_brings_the_search_index_up_to_date_first(ws, tmp_path):
    cart = tmp_path / "shop/cart.py"
    cart.write_text(cart.read_text() + "\n\ndef frobnicate():\n    return 1\n")
    ws.reindex({str(cart): None})
    assert ws.store.meta("fts_dirty") == "1"
    ws.embed_pending(limit=0)
    assert ws.store.meta("fts_dirty") == "0" and found(ws, "frobnicate")


def test_the_postings_copy_is_compact_and_its_load_hands_duckdbs_sort_back(ws, monkeypatch):
    # at 11,282 files the copy holds 5.8 million postings: 64-bit columns were 46 MB more each,
    # and the sort of them all stayed with DuckDB's allocator (~120 MB) until the limit was set;
    # the counts are 16-bit (8.3 million postings at 10,740 files: 17 MB less than float32)
    flushed = []
    real = ws.store.flush_memory
    monkeypatch.setattr(ws.store, "flush_memory", lambda cur=None: (flushed.append(True), real(cur)))
    index = bm25.Bm25Index.load(ws.store)
    assert flushed == [True]
    assert len(index.docs) > 20 and index.docs.dtype.itemsize == 4 and index.tf.dtype == np.uint16
    assert ranked(index.answer(ws.store, "cart total", None, 20)[0]) == ranked(fulltext.bm25(ws.store, "cart total", None, 20))


def test_counts_stay_exact_whatever_their_size():
    assert bm25._counts(np.array([1, 3, 65535], dtype=np.float32)).dtype == np.uint16
    for odd in ([1, 70000], [1, 2.5], [-1, 2]):  # beyond 16 bits, a fraction, a negative: float32, as read
        kept = bm25._counts(np.array(odd, dtype=np.float32))
        assert kept.dtype == np.float32 and kept.tolist() == odd
    assert bm25._counts(np.zeros(0, dtype=np.float32)).dtype == np.uint16


def test_document_ids_keep_their_file_once_and_read_back_whole():
    values = ["pkg/a.py::Store.get:12", "pkg/a.py::Store.put:30", "memory:7f3a", "pkg/b.py::f:1",
              "caf\u00e9/\u00e9.py::g:2", "odd\udcff.py::h:3", "pkg/a.py::"]
    ids = bm25.Ids(values[:3])
    assert [ids[i] for i in range(len(ids))] == values[:3]
    more = ids.extended(values[3:])
    assert [more[i] for i in range(len(more))] == values and len(ids) == 3
    assert [ids[i] for i in range(len(ids))] == values[:3] and len(ids.heads) == 2  # the first copy unchanged
    assert sorted(more.heads) == sorted(["", "pkg/a.py::", "pkg/b.py::", "caf\u00e9/\u00e9.py::", "odd\udcff.py::"])


def test_the_postings_read_in_slices_of_terms_are_the_one_sorted_read(ws, monkeypatch):
    """`fulltext.documents` sorts the postings a slice of terms at a time (all 8.3 million at once
    held ~170 MB of DuckDB's sort at 10,740 files): the same columns, in term then document order."""
    cur = ws.store.cursor()
    end = fulltext.next_docid(cur)
    whole = cur.execute("SELECT termid, docid::INTEGER AS docid, tf::FLOAT AS tf FROM bm25_postings "
                        "WHERE docid < ? ORDER BY termid, docid", [end]).fetchnumpy()
    monkeypatch.setattr(fulltext, "POSTINGS_AT_ONCE", 7)
    assert len(fulltext._term_slices(cur, len(whole["termid"]))) > 5
    for start in (0, end // 2):  # a load; a refresh of the documents numbered since
        _docs, sliced = fulltext.documents(cur, start, end)
        at = whole["docid"] >= start
        for column in ("termid", "docid", "tf"):
            assert sliced[column].dtype == whole[column].dtype
            assert np.array_equal(sliced[column], whole[column][at]), column
    index = bm25.Bm25Index.load(ws.store)
    assert ranked(index.answer(ws.store, "cart total", None, 20)[0]) == ranked(fulltext.bm25(ws.store, "cart total", None, 20))
