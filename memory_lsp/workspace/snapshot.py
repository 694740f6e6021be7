"""Snapshot: what a workspace knew at one moment, for every reader.

The host (`host.Workspace`) publishes a new snapshot after each change it applies (an index run,
a re-indexed buffer, new memory events); readers (hovers, lenses, diagnostics, read commands)
take the current one and never write. A snapshot's memories and graph never change after it is
published; per-file facts (symbols) are read through the reader's own DuckDB cursor, which sees
the last committed index, and cached per snapshot.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from memory_lsp.errors import IndexBusy
from memory_lsp.graph import symbol_rows
from memory_lsp.graph.impact import DEFAULT_MIN_CONFIDENCE, ImpactGraph
from memory_lsp.memory import citations as cites
from memory_lsp.memory.book import MemoryBook, about_file
from memory_lsp.memory.model import Memory
from memory_lsp.memory.ranking import file_order
from memory_lsp.paths import relpath
from memory_lsp.store import code
from memory_lsp.workspace.lookup import IndexLookup


Symbol = code.SymbolRow  # id, name, qualname, kind, start, end (1-based, inclusive)


@dataclass
class MemoryView:
    """The memories at one moment (retired ones too), with per-file lists built on first use."""

    all: list[Memory]
    active: list[Memory] = field(init=False)
    _by_file: dict[str, list[Memory]] = field(default_factory=dict, init=False)
    _by_id: dict[str, Memory] = field(init=False)

    def __post_init__(self) -> None:
        self.active = [m for m in self.all if m.valid_to is None]
        self._by_id = {m.id: m for m in self.all}

    def for_file(self, path: str) -> list[Memory]:
        """Active memories citing or scoped to `path`: those citing the file or its symbols first
        (policies and gotchas first among them), then standing rules by relevance (`ranking.file_order`)."""
        found = self._by_file.get(path)
        if found is None:  # two threads may build the same list: both are right, one is kept
            found = sorted((m for m in self.active if about_file(m, path)), key=file_order(path))
            self._by_file[path] = found
        return found

    def for_symbol(self, path: str, qualname: str) -> list[Memory]:
        return [m for m in self.for_file(path) if any(cites_symbol(c, path, qualname) for c in m.citations)]

    def by_id(self, memory_id: str) -> Memory | None:
        return self._by_id.get(memory_id)

    def as_dict(self) -> dict[str, Memory]:
        return self._by_id


def cites_symbol(c: cites.Citation, path: str, qualname: str) -> bool:
    now = c.now
    return now.path == path and now.symbol == qualname


class Snapshot:
    """Immutable reads of one workspace state; safe to share between threads."""

    def __init__(self, root: Path, book: MemoryBook, store, generation: int, memories: MemoryView,
                 graph: ImpactGraph | None, load_graph: Callable[[], ImpactGraph],
                 retriever: Callable[[], object] | None = None, indexed: bool = True, graph_current: bool = False):
        self.root = root
        self.book = book
        self.store = store  # None: the index is owned by another process (memories come from the log)
        self.generation = generation  # bumps with every change to the indexed code
        self.memories = memories
        self.graph = graph  # None until the host has loaded it (hovers then show no counts)
        self.graph_current = graph_current  # False: the graph predates the last code change
        self._load_graph = load_graph
        self._retriever = retriever
        self.indexed = indexed  # False: the code is not indexed yet (a fresh workspace)
        self._symbols: dict[str, list[Symbol]] = {}
        self._lock = threading.Lock()

    # -- code facts ----------------------------------------------------------------------------------
    def _no_index(self) -> bool:
        """Nothing to read: the index is another process's, or no code is indexed yet. Readers
        never query a store with no code in it: a first index may hand its file to a child
        process (workspace/apart.py), and reads of the closed store would fail (StoreClosed)."""
        return self.store is None or not self.indexed

    def symbols(self, path: str) -> list[Symbol]:
        """The symbols defined in `path`, in file order."""
        found = self._symbols.get(path)
        if found is None:
            if self._no_index():
                return []
            # the graph of this code holds them (no query: its blocks stayed in DuckDB's cache)
            found = symbol_rows.symbols_of(self.graph, path) if self.graph is not None and self.graph_current else None
            if found is None:
                found = code.symbols_of(self.store.cursor(), path)
            with self._lock:
                self._symbols[path] = found
        return found

    def symbols_at(self, path: str, line: int) -> list[Symbol]:
        """The symbols whose lines hold `line` (1-based), innermost first."""
        found = [s for s in self.symbols(path) if s.start <= line <= s.end]
        found.sort(key=lambda s: s.end - s.start)
        return found

    def symbol_at(self, path: str, line: int) -> Symbol | None:
        found = self.symbols_at(path, line)
        return found[0] if found else None

    def find_symbols(self, query: str, limit: int) -> list[tuple]:
        """(path, name, qualname, kind, start_line) of symbols whose name contains `query`."""
        if self._no_index():
            return []
        return code.symbols_named_like(self.store.cursor(), query, limit)

    def impact_graph(self) -> ImpactGraph:
        """The graph of this code, loaded now if the host has not yet (it keeps one per workspace)."""
        return self.graph if self.graph_current else self._load_graph()

    def impact_counts(self, node: str, path: str, depth: int, min_confidence: float = DEFAULT_MIN_CONFIDENCE,
                      wait: bool = False, tests_from: int = 0) -> tuple[int, int | None] | None:
        """(dependents, tests) of a file or symbol, counted without building the answer and
        memoised by the graph (hovers and lenses ask again); tests None (not selected) below
        `tests_from` dependents. None while the workspace's first graph
        loads, unless `wait` (a lens, whose choice needs the counts: the editor shows it later
        anyway; a hover answers at once without them); None for code not indexed yet. Later
        snapshots serve the last graph while a newer one loads."""
        graph = self.graph
        if graph is None:
            if not wait or not self.indexed or self.store is None:
                return None
            graph = self._load_graph()  # or waits for the load under way: one graph per workspace
        return graph.counts(node, path, depth, min_confidence, tests_from)

    def is_test(self, path: str) -> bool:
        """Is `path` a test file (by its language's test rules, as indexed)?"""
        if self._no_index():
            return False
        if self.graph is not None and self.graph.has_file(path):  # no query per lens request
            return self.graph.is_test_file(path)
        row = code.file_row(self.store.cursor(), path)
        return bool(row and row[2])

    def retriever(self):
        """The searcher over this index (its in-memory copies follow the index's versions)."""
        if self._retriever is None:
            raise IndexBusy("search needs the index")
        return self._retriever()

    def relpath(self, path) -> str:
        return relpath(self.root, path)

    # -- memories ------------------------------------------------------------------------------------
    def lookup(self) -> cites.CodeLookup:
        """Where cited code is now: the index when there is one, else the files themselves."""
        if self._no_index():
            return cites.FileLookup(self.root)
        return IndexLookup(self.store, self.root)
