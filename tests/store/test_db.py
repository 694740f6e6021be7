"""Store.transaction(): one block commits whole or not at all."""

import pytest

from memory_lsp.store import Store


def test_transaction_commits_the_block(tmp_path):
    store = Store.open(tmp_path / "index.duckdb")
    with store.transaction() as cur:
        store.set_meta("a", "1", cur)
        store.set_meta("b", "2", cur)
    assert (store.meta("a"), store.meta("b")) == ("1", "2")


def test_transaction_rolls_back_when_the_block_raises(tmp_path):
    store = Store.open(tmp_path / "index.duckdb")
    store.set_meta("a", "before")
    with pytest.raises(RuntimeError):
        with store.transaction() as cur:
            store.set_meta("a", "during", cur)
            raise RuntimeError("a bug half way")
    assert store.meta("a") == "before"
    with store.transaction() as cur:  # the connection is usable again
        store.set_meta("a", "after", cur)
    assert store.meta("a") == "after"
