"""The copies of the search index that every search reads until its version changes (the
retriever holds one, retrieval/search.py, and lets it go after a quiet while)."""

from __future__ import annotations

from memory_lsp.memory.model import Memory
from memory_lsp.retrieval.bm25 import Bm25Index
from memory_lsp.retrieval.links import FileLinks
from memory_lsp.store import fulltext
from memory_lsp.store import memories as mem_rows
from memory_lsp.store import search as sql


class SearchCopies:
    """Copies of the index that every search reads, built on first use: the BM25 postings, the
    file-to-file links, the memories, the number of items. Over 100,000 items each of these
    costs 10-90 ms as a query, which a 50 ms search cannot pay every time."""

    def __init__(self, version: str, store, previous: Bm25Index | None = None):
        self.version, self.store, self.searches = version, store, 0
        self._bm25, self._previous = None, previous  # the postings copy; the last version's, until refreshed
        self._links = FileLinks(store)
        self._memories: dict[str, Memory] | None = None
        self._items: int | None = None

    def bm25(self, query: str, kind: str | None, limit: int) -> tuple[list[tuple[str, str, float]], float]:
        """(id, kind, score) best first, and the coverage of the best (`Bm25Index.search`)."""
        # the first search runs in DuckDB: loading the postings (1-2 s over 100,000 items) pays
        # off only in a process that searches again, such as the server
        self.searches += 1
        if self._bm25 is None and self._previous is None and self.searches == 1:
            return fulltext.bm25_with_coverage(self.store, query, kind, limit)
        if self._bm25 is None:
            old = self._previous  # brought up to date, not loaded again (then let go)
            self._bm25, self._previous = old.refreshed(self.store) if old else Bm25Index.load(self.store), None
        return self._bm25.answer(self.store, query, kind, limit)

    def neighbours(self, paths: list[str], limit: int = 50) -> list[str]:
        """Files one edge away from any of `paths` (either direction), strongest first."""
        return self._links.neighbours(paths, limit)

    def memories(self) -> dict[str, Memory]:
        if self._memories is None:
            self._memories = {d["id"]: Memory.from_json(d) for d in mem_rows.all_docs(self.store)}
        return self._memories

    def item_count(self) -> int:
        if self._items is None:
            self._items = sql.item_count(self.store)
        return self._items
