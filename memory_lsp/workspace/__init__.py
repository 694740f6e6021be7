"""The workspace core: a host that owns the index, the memory log, the graph and the retriever
and applies changes (`host.Workspace`), and the immutable snapshots every read takes."""

from memory_lsp.workspace.host import Workspace
from memory_lsp.workspace.snapshot import Snapshot

__all__ = ["Workspace", "Snapshot"]
