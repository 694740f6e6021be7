"""The workspace core: a host that owns the index, the memory log, the graph and the retriever
and applies changes (`host.Workspace`), and the immutable snapshots every read takes.
`offline.OfflineWorkspace` is the log-only stand-in while another process owns the index."""

__all__ = ["Workspace", "Snapshot"]


def __getattr__(name: str):
    # lazy: DuckDB and numpy load with the host, not with `workspace.offline` (the CLI's memory
    # writes never open the index and should not pay for it)
    if name == "Workspace":
        from memory_lsp.workspace.host import Workspace
        return Workspace
    if name == "Snapshot":
        from memory_lsp.workspace.snapshot import Snapshot
        return Snapshot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
