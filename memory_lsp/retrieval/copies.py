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

    def __init__(self, version: str, store, before: "SearchCopies | None" = None):
        """`before`: the last version's copies, whose postings this one refreshes rather than loads
        again, or whose load under way it takes over (one load at a time, whatever the versions)."""
        self.version, self.store, self.searches = version, store, 0
        self._bm25 = None  # the postings copy
        # an earlier version's, until refreshed (`before` may not have searched: then the one before it)
        self._previous = None if before is None else before._bm25 if before._bm25 is not None else before._previous
        self._load = before._load if before is not None and self._previous is None else None
        self._lock = threading.Lock()  # the copy, its load and the last version's
        if self._load is not None:
            self._load.owner = self  # (had it ended already, the first search takes its result)
        self._links = FileLinks(store)
        self._memories: dict[str, Memory] | None = None
        self._items: int | None = None

    def bm25(self, query: str, kind: str | None, limit: int) -> tuple[list[tuple[str, str, float]], float]:
        """(id, kind, score) best first, and the coverage of the best (`Bm25Index.search`)."""
        # searches run in DuckDB until the copy is there: loading the postings (1-2 s over 100,000
        # items) pays off only in a process that searches again, such as the server, so the second
        # search starts it, in a thread of its own: no search waits for it
        self.searches += 1
        with self._lock:
            load = self._load
            if self._bm25 is None and load is not None and load.done.is_set():  # ended as it was taken over
                self._load, self._previous = None, load.result
            found, old = self._bm25, self._previous
            if found is None and old is not None:  # brought up to date, not loaded again (then let go)
                found = self._bm25 = old.refreshed(self.store)
                self._previous = None
            if found is None and self.searches > 1 and self._load is None:
                self._load = _Load(self.store, self)
        if found is None:
            return fulltext.bm25_with_coverage(self.store, query, kind, limit)
        return found.answer(self.store, query, kind, limit)

    def _loaded(self, load: "_Load") -> None:
        """A load this copy started or took over has ended (its thread): the copy, at once if it was
        made for this version, else refreshed at the next search."""
        with self._lock:
            if self._load is load:
                self._load = None
                if load.result is not None and load.version == self.version:
                    self._bm25 = load.result
                elif load.result is not None:
                    self._previous = load.result

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


class _Load:
    """One load of the postings copy, in a thread of its own: `result` once `done` (None: it failed,
    as when the store closed under it at the server's end; searches then stay in DuckDB), handed to
    the copies that own it by then (`owner`: the next version's, when one took it over)."""

    def __init__(self, store, owner: SearchCopies):
        self.result: Bm25Index | None = None
        self.version, self.owner = owner.version, owner
        self.done = threading.Event()
        # no daemon: a daemon thread still in DuckDB as the interpreter ended aborted the process (exit
        # 134); the interpreter waits for this one, which a closed store ends at its next read
        threading.Thread(target=self._run, args=(store,), name="bm25-copy").start()

    def _run(self, store) -> None:
        try:
            self.result = Bm25Index.load(store)
        except Exception:
            log.debug("loading the BM25 copy failed", exc_info=True)
        finally:
            self.done.set()
            self.owner._loaded(self)
