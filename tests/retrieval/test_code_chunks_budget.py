"""The background embeds the code chunks of the most central files up to a budget, and the same
ones run after run: a budget never walks through the whole code a slice at a time."""

from memory_lsp.store.search import ITEMS
from memory_lsp.workspace import Workspace

from shop_project import SHOP


def _embedded_code(ws) -> set[str]:
    return {r[0] for r in ws.store.cursor().execute("SELECT item_id FROM vectors WHERE kind = 'code'").fetchall()}


def test_only_the_most_central_chunks_are_embedded_and_never_more(tmp_path, write_files):
    root = write_files(tmp_path / "shop", SHOP)
    ws = Workspace.open(root)
    ws.index(workers=0)
    ws.book.teach("Never change apply_discount without updating the marketing page", "policy",
                  cite=["shop/pricing.py::apply_discount"])
    ws.sync_memories()
    ranked = [r[0] for r in ws.store.cursor().execute(
        f"SELECT id FROM ({ITEMS}) WHERE kind = 'code' ORDER BY rank DESC, id").fetchall()]
    assert len(ranked) > 3
    first = ws.embed_pending(code_chunks=2)
    assert first["embedded"] == 3  # the memory, then two chunks
    assert _embedded_code(ws) == set(ranked[:2])
    assert ws.embed_pending(code_chunks=2)["embedded"] == 0  # the same two: nothing left to do
    # the whole code when asked (the CLI's `embed`)
    assert ws.embed_pending()["embedded"] == len(ranked) - 2 and _embedded_code(ws) == set(ranked)
    # no code at all: memories only
    ws.book.teach("Receipts go through the local relay", "gotcha", cite=["shop/mailer.py::send_receipt"])
    ws.sync_memories()
    assert ws.embed_pending(code_chunks=0)["embedded"] == 1
    ws.close()
