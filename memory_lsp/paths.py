"""Workspace paths: where memory-lsp keeps its files, and user-given paths made workspace-relative."""

from __future__ import annotations

import os
from pathlib import Path

from memory_lsp.errors import UserError

MEMORY_DIR = ".memory"


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
