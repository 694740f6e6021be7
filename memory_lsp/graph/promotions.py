"""Seed 000's promotions, recomputed from the IMPORTS edges after every run (SQL in store/edges.py).

ASSERTS_ON test -> file: the test imports the file (1.0), or, in languages whose tests sit
  beside the code they test (Go's `_test.go`), shares its directory (0.9).
DRIVES file -> importer: the file is imported by at least three files (fan-in) or mutates
  state that its importers read.
"""

from __future__ import annotations

from memory_lsp.index import languages
from memory_lsp.store import edges
from memory_lsp.store.db import Store

TEST_IMPORT = 1.0
SAME_PACKAGE = 0.9
FAN_IN = 3


def rules() -> edges.PromotionRules:
    same_dir = [lang.name for lang in languages.registry().values() if lang.test_asserts_same_dir]
    return edges.PromotionRules(TEST_IMPORT, SAME_PACKAGE, same_dir, FAN_IN)


def rebuild(store: Store, cur, touched: set[str] | None) -> None:
    """`touched` limits the rebuild to edges from or into those files (valid when no file's
    imports, test status or mutation flag changed, so fan-in counts are what they were)."""
    edges.rebuild_promotions(store, cur, rules(), touched)
