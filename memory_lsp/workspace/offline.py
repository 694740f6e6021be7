"""The log-only workspace: what a process has while another one owns the index (or none exists).

`OfflineWorkspace` has the read/write surface the memory commands use on a `Workspace` (`root`,
`book`, `snapshot()`, `memories()`, `sync_memories()`, `close()`), backed by the event log and the
files alone: memories are replayed from the log and their citations resolved against the files
themselves (`citations.FileLookup`). Memory writes need no index, so they work here unchanged;
commands that need the index are refused with the IndexBusy line (`unavailable()`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from memory_lsp.errors import IndexBusy, UserError
from memory_lsp.memory import citations as cites
from memory_lsp.memory.book import MemoryBook
from memory_lsp.memory.model import Memory
from memory_lsp.paths import workspace_root

if TYPE_CHECKING:
    from memory_lsp.workspace.snapshot import Snapshot


class OfflineWorkspace:
    def __init__(self, root: str | os.PathLike, busy: IndexBusy | None = None):
        self.root: Path = workspace_root(root)
        self.book = MemoryBook(self.root)
        self.busy = busy  # why the index could not be opened (None: nobody asked for it)
        self._snapshot: "Snapshot | None" = None

    @property
    def note(self) -> str | None:
        """For people: why an answer is less than it could be."""
        return f"{self.busy}: citation states are read from the files" if self.busy else None

    def unavailable(self) -> UserError:
        """The error for a command that needs the index."""
        return self.busy or UserError(f"{self.root} has no open index")

    def snapshot(self) -> "Snapshot":
        """The memories replayed from the log, citations resolved from the files (built on first
        use: writing needs no replay)."""
        if self._snapshot is None:
            from memory_lsp.workspace.snapshot import MemoryView, Snapshot  # DuckDB and numpy load with it

            lookup = cites.FileLookup(self.root)
            memories: list[Memory] = list(self.book.load().memories.values())
            for m in memories:
                for c in m.citations:
                    cites.resolve(c, lookup)
            self._snapshot = Snapshot(self.root, self.book, None, 0, MemoryView(memories), None,
                                      self._no_graph, retriever=None, indexed=False)
        return self._snapshot

    def memories(self, **filters) -> list[Memory]:
        from memory_lsp.workspace import queries

        return queries.memories(self.snapshot(), **filters)

    def sync_memories(self, code_changed: bool = False) -> bool:
        """After a write: the next read replays the log again."""
        self._snapshot = None
        return True

    def close(self) -> None:
        pass

    def _no_graph(self):
        raise self.unavailable()
