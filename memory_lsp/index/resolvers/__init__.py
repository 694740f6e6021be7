"""Import resolution, one module per language family, behind one contract.

`resolve(rows, ctx)` gets the raw import rows of any number of files of that family and
returns, per row, a list of `Target`s: workspace files the import reaches. An empty list means
"looks like workspace code but nothing matched" (counted as unresolved); a single
`Target(None, False, "external")` means "not workspace code" (a library, the standard library).
"""

from __future__ import annotations

import importlib
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


class ImportRow(NamedTuple):
    path: str  # importing file, workspace-relative posix path
    line: int
    module: str  # what the query captured as @import.module (quotes kept as written)
    name: str | None  # @import.name, if any
    alias: str | None  # @import.alias, if any


class Target(NamedTuple):
    path: str | None
    is_module: bool  # the import binds a whole module/file (calls through it are `alias.f()`)
    strategy: str


EXTERNAL = [Target(None, False, "external")]
# edges that hold only in some builds: Go build constraints, Rust #[cfg]
CONDITIONAL_STRATEGIES = frozenset({"go_build_tag", "rust_cfg"})


@dataclass
class ResolveContext:
    """What resolvers may look at: the set of indexed files and the workspace's own files."""

    root: Path
    paths: frozenset[str]
    cache: dict = field(default_factory=dict)  # per-family precomputed maps, built on first use

    def __post_init__(self):
        self.dirs: dict[str, list[str]] = {}
        for p in sorted(self.paths):
            self.dirs.setdefault(posixpath.dirname(p), []).append(p)

    def read_text(self, relpath: str) -> str | None:
        try:
            return (self.root / relpath).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None


def resolve(family: str, rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    module = importlib.import_module(f"memory_lsp.index.resolvers.{family}")
    return module.resolve(rows, ctx)


def strip_quotes(text: str) -> str:
    return text.strip().strip("\"'`<>")
