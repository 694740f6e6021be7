"""Issue 15 item 1: vectors from the first search, a relevance floor, anchors named in a question,
--kind memory ranking as --kind all; with the real model, on a small real workspace."""

import pytest

from memory_lsp.store import search as sql
from memory_lsp.workspace import Workspace

from shop_project import SHOP

FILES = SHOP
MEMORIES = [
    ("Outgoing email must go through the local relay; the cloud provider blocks port 25", "gotcha",
     "shop/mailer.py::send_receipt"),
    ("Prices are stored as floats for now; switching to Decimal was tried and abandoned", "dead_end",
     "shop/pricing.py::round_cents"),
    ("Never change apply_discount without updating the marketing page", "policy", "shop/pricing.py::apply_discount"),
    ("The cart total is computed on every page view, so keep checkout_total cheap", "fact",
     "shop/cart.py::Cart.checkout_total"),
]


def _workspace(root) -> Workspace:
    ws = Workspace.open(root)
    ws.index(workers=1)
    for text, type_, cite in MEMORIES:
        ws.book.teach(text, type_, cite=[cite])
    ws.sync_memories()
    return ws


@pytest.fixture(scope="module")
def ws(tmp_path_factory, write_files):
    ws = _workspace(write_files(tmp_path_factory.mktemp("shop"), FILES))
    yield ws
    ws.close()


def test_the_first_search_embeds_the_memories_and_leaves_the_code_for_later(ws):
    model = ws.retriever().embedder().model_id
    assert sql.vector_counts(ws.store, model)[0] == 0  # nobody ran `embed`
    # no word in common with the memory: only its vector can find it
    out = ws.search("mail delivery problems in production", kind="memory")
    assert out["results"] and "local relay" in out["results"][0]["text"]
    kinds = {row[0] for row in ws.store.cursor().execute("SELECT DISTINCT kind FROM vectors").fetchall()}
    assert kinds == {"memory"} and sql.vector_counts(ws.store, model)[0] == len(MEMORIES)
    assert "memories first" in out["note"]


def test_a_question_about_nothing_here_returns_nothing_and_says_so(ws):
    out = ws.search("which kubernetes autoscaling thresholds does the billing team use")
    assert out["results"] == []
    assert "nothing relevant" in out["note"]


def test_a_path_inside_a_sentence_anchors_the_question(ws):
    out = ws.search("before editing shop/mailer.py, what should I watch out for", kind="memory")
    assert "local relay" in out["results"][0]["text"]
    named = ws.search("anything to know about Cart.checkout_total", kind="memory")
    assert "page view" in named["results"][0]["text"]


@pytest.mark.parametrize("query", ["apply_discount", "what calls apply_discount", "email relay port",
                                   "floats or decimal for prices", "checkout_total cost"])
def test_kind_memory_ranks_memories_as_kind_all_does(ws, query):
    everything = [r["id"] for r in ws.search(query, k=20)["results"] if r["kind"] == "memory"]
    memories = [r["id"] for r in ws.search(query, kind="memory", k=20)["results"]]
    assert memories[:len(everything)] == everything


def test_without_the_model_hybrid_still_answers_what_bm25_answers(tmp_path, write_files):
    ws = _workspace(write_files(tmp_path, FILES))
    ws.retriever()._embedder_error = "model not installed"  # what a search meets when it cannot load
    # a third of the question's weight is in the memory (coverage 0.34, below the 0.5 at which
    # BM25 stops voting beside vectors): without vectors it must still answer
    query = "why were decimal prices abandoned in our webshop invoices and refunds"
    bm25 = ws.search(query, kind="memory", mode="bm25")["results"]
    hybrid = ws.search(query, kind="memory")
    assert bm25 and hybrid["results"] and hybrid["results"][0]["id"] == bm25[0]["id"]
    assert "no vectors (model not installed)" in hybrid["note"]
    assert ws.search("kubernetes autoscaling thresholds for billing")["results"] == []
    ws.close()
