"""Workspace paths: where memory-lsp keeps its files, and user-given paths made workspace-relative."""

from __future__ import annotations

import os
from pathlib import Path

from memory_lsp.errors import UserError

MEMORY_DIR = ".memory"
MEMORY_GITIGNORE = ("# the index is a cache rebuilt from the workspace, server.json names the running server,"
                    " drafts/ holds unsaved teach drafts: never commit them\nindex.duckdb*\n*.broken-*\nserver.json*\n"
                    "drafts/\n")


def relpath(root: Path, path: str | os.PathLike) -> str:
    """A workspace-relative posix path for a user-given path; outside the workspace is an error."""
    p = Path(path)
    full = Path(os.path.normpath(p if p.is_absolute() else root / p))
    try:
        rel = full.relative_to(root)
    except ValueError:
        raise UserError(f"{path} is outside the workspace {root}") from None
    return rel.as_posix()


def workspace_root(path: str | os.PathLike) -> Path:
    root = Path(path).expanduser()
    if not root.is_dir():
        raise UserError(f"not a workspace folder: {root}")
    return root.resolve()


def memory_dir(root: Path) -> Path:
    """ROOT/.memory, made if missing, with a .gitignore that keeps what is not shared out of git
    (an older .gitignore gets the lines it lacks)."""
    folder = root / MEMORY_DIR
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    try:
        have = ignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        ignore.write_text(MEMORY_GITIGNORE, encoding="utf-8")
        return folder
    missing = [line for line in MEMORY_GITIGNORE.splitlines()[1:] if line not in have.splitlines()]
    if missing:
        with open(ignore, "a", encoding="utf-8") as f:
            f.write(("" if have.endswith("\n") or not have else "\n") + "\n".join(missing) + "\n")
    return folder
