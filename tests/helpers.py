"""Small helpers shared by the tests: build a workspace on disk, index it, read the graph."""

from __future__ import annotations

from pathlib import Path

from memory_lsp.workspace import Workspace


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def index_files(root: Path, files: dict[str, str | bytes]) -> Workspace:
    """Write `files` under `root`, index them (in process) and return the open workspace."""
    write_files(root, files)
    ws = Workspace.open(root)
    ws.index(workers=0)
    return ws


def file_edges(ws: Workspace, kind: str) -> set[tuple[str, str]]:
    """(source file, target file) pairs of every edge of `kind`."""
    rows = ws.store.cursor().execute(
        "SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = ?", [kind]).fetchall()
    return set(rows)


def symbol_edges(ws: Workspace, kind: str) -> set[tuple[str, str]]:
    """(source node id, target node id) pairs; a symbol id is `path::Qualified.Name`."""
    rows = ws.store.cursor().execute(
        "SELECT DISTINCT src, dst FROM edges WHERE kind = ?", [kind]).fetchall()
    return set(rows)


def symbols(ws: Workspace, path: str) -> set[tuple[str, str]]:
    """(qualified name, kind) of every symbol defined in `path`."""
    rows = ws.store.cursor().execute(
        "SELECT qualname, kind FROM symbols WHERE path = ?", [path]).fetchall()
    return set(rows)
