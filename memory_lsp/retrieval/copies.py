"""The copies of the search index that every search reads until its version changes (the
retriever holds one, retrieval/search.py, and lets it go after a quiet while)."""

from __future__ import annotations

import logging
import threading

from memory_lsp.memory.model import Memory
from memory_lsp.retrieval.bm25 import Bm25Index
from memory_lsp.retrieval.links import FileLinks
from memory_lsp.store import fulltext
from memory_lsp.store import memories as mem_rows
from memory_lsp.store import search as sql

log = logging.getLogger(__name__)


class SearchCopies:
    """Copies of the index that every search reads, built on first use: the BM25 postings, the
    file-to-file links, the memories, the number of items. Over 100,000 items each of these
    costs 10-90 ms as a query, which a 50 ms search cannot pay every time."""

    def __init__(self, version: str, store, previous: Bm25Index | None = None):
        self.version, self.store, self.searches = version, store, 0
        self._bm25, self._previous = None, previous  # the postings copy; the last version's, until refreshed
        self._load_started = threading.Lock()  # taken by the search that starts the load: one per version
        self._links = FileLinks(store)
        self._memories: dict[str, Memory] | None = None
        self._items: int | None = None

    def bm25(self, query: str, kind: str | None, limit: int) -> tuple[list[tuple[str, str, float]], float]:
        """(id, kind, score) best first, and the coverage of the best (`Bm25Index.search`)."""
        # searches run in DuckDB until the copy is there: loading the postings (1-2 s over 100,000
        # items) pays off only in a process that searches again, such as the server, so the second
        # search starts it, in a thread of its own: no search waits for it
        self.searches += 1
        found, old = self._bm25, self._previous
        if found is None and old is not None:  # brought up to date, not loaded again (then let go)
            found = self._bm25 = old.refreshed(self.store)
            self._previous = None
        if found is None:
            if self.searches > 1 and self._load_started.acquire(blocking=False):
                threading.Thread(target=self._load, name="bm25-copy", daemon=True).start()
            return fulltext.bm25_with_coverage(self.store, query, kind, limit)
        return found.answer(self.store, query, kind, limit)

    def _load(self) -> None:
        try:
            self._bm25 = Bm25Index.load(self.store)
        except Exception:  # a store closed under it (the server ending): the searches stay in DuckDB
            log.debug("loading the BM25 copy failed", exc_info=True)

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
