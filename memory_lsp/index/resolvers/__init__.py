"""Import resolution, one module per language family, behind one contract.

`resolve(rows, ctx)` gets the raw import rows of any number of files of that family and
returns, per row, a list of `Target`s: workspace files the import reaches. An empty list means
"looks like workspace code but nothing matched" (counted as unresolved); a single
`Target(None, False, "external")` means "not workspace code" (a library, the standard library).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from memory_lsp.index import languages

log = logging.getLogger(__name__)


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
# edges that hold only in some builds: Go build constraints (cgo too), Rust #[cfg], C/C++ #if
CONDITIONAL_STRATEGIES = frozenset({"go_build_tag", "rust_cfg", "c_preprocessor"})
# families whose marks come from other files than the importer (the target's build constraint, a
# parent module's #[cfg]): when one of their files changes, all their imports are resolved again
MARKED_BY_OTHER_FILES = frozenset({"go", "rust"})
# `ResolveContext.cache` entries made from the set of indexed paths alone (no file read): a run
# whose path set is the last run's may reuse them (the Python module map costs ~0.1 s on the stdlib)
PATHS_ONLY_CACHES = frozenset({"python.modules", "python.by_path", "python.files", "python.packages", "python.homes",
                               "python.namespaces", "c.include_dirs", "c.by_name", "ruby.by_name"})


@dataclass
class ResolveContext:
    """What resolvers may look at: the set of indexed files and the workspace's own files."""

    root: Path
    paths: frozenset[str]
    cache: dict = field(default_factory=dict)  # per-family precomputed maps, built on first use
    # files read that are not indexed (package.json, tsconfig.json, compile_commands.json, go.mod,
    # Cargo.toml...) -> a digest of what was read (None: missing): a change to one of them can move
    # imports of files that did not change (see `inputs_changed`)
    inputs: dict[str, str | None] = field(default_factory=dict)
    # the run's editor buffers (path -> text not saved yet): what the index holds for those files,
    # so a resolver reading one (a Rust #[cfg], a C #if) reads the lines its import rows come from
    buffers: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self):
        self.dirs: dict[str, list[str]] = {}
        for p in sorted(self.paths):
            self.dirs.setdefault(posixpath.dirname(p), []).append(p)

    def read_text(self, relpath: str) -> str | None:
        if relpath in self.buffers:
            return self.buffers[relpath].decode("utf-8", "replace")
        text = _read(self.root, relpath)
        if relpath not in self.paths:
            self.inputs[relpath] = _digest(text)
        return text


def inputs_changed(root: Path, inputs: dict[str, str | None]) -> bool:
    """Does any non-indexed file an earlier resolution read differ now (or appear, or vanish)?"""
    return any(_digest(_read(root, rel)) != digest for rel, digest in inputs.items())


def _read(root: Path, relpath: str) -> str | None:
    try:
        return (root / relpath).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()


def resolve(family: str, rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    module = importlib.import_module(f"memory_lsp.index.resolvers.{family}")
    return module.resolve(rows, ctx)


def star_targets(path: str, imports: set[tuple], ctx: ResolveContext) -> set[str]:
    """The files the `import *` rows among `imports` ((module, name, alias) as written in `path`)
    land in: what such an import added or removed re-exports."""
    rows = [ImportRow(path, 0, module, name, alias) for module, name, alias in imports if name == "*"]
    return {row[6] for row in import_table_rows(rows, ctx) if row[6]} if rows else set()


def strip_quotes(text: str) -> str:
    return text.strip().strip("\"'`<>")


def family_of(path: str) -> str | None:
    """The resolver family of a file (None: a language without import resolution)."""
    lang = languages.language_for(path)
    return lang and lang.resolver


def import_table_rows(raw: list[ImportRow], ctx: ResolveContext) -> list[tuple]:
    """The `imports` table's rows of `raw`: one per target found, or one unresolved."""
    by_family: dict[str, list[ImportRow]] = {}
    for row in raw:
        if family := family_of(row.path):
            by_family.setdefault(family, []).append(row)
    out = []
    for family, rows in by_family.items():
        try:
            targets = resolve(family, rows, ctx)
        except Exception:  # a resolver bug leaves imports unresolved, never the index broken
            log.exception("resolving %s imports failed", family)
            targets = [[] for _ in rows]
        for row, found in zip(rows, targets):
            # `from m import *`, `export * from './m'`, Java's `import a.b.*`: no name of the module's
            # own (`export * from "./x.js"` bound `js`; its names are offered whole: store/calls.py `_star`)
            binding = row.alias or (None if row.name == "*" else row.name or default_binding(family, row.module))
            if not found:
                out.append((row.path, row.line, row.module, row.name, row.alias, binding, None, None, "unresolved"))
            for t in found:
                out.append((row.path, row.line, row.module, row.name, row.alias, binding, t.path,
                            t.is_module, t.strategy))
    return out


def default_binding(family: str, module: str) -> str:
    """The local name an import without alias creates: `import a.b` binds a.b; Go's "x/y" binds y."""
    text = strip_quotes(module)
    if family == "python":
        return text
    for sep in ("::", "/", "."):
        text = text.rsplit(sep, 1)[-1]
    return text
