"""The import resolvers' context across an editor's runs: the maps a resolver makes from the set of
indexed paths alone (`resolvers.PATHS_ONLY_CACHES`: the Python module map costs ~0.1 s on the
stdlib) serve the next run while no path appears or vanishes; nothing read from a file is kept."""

from __future__ import annotations

import copy
import weakref
from pathlib import Path

from memory_lsp.index.resolvers import PATHS_ONLY_CACHES, ResolveContext
from memory_lsp.store.db import Store

# per store, the last run's context with its path-only maps
_CONTEXTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def fresh(store: Store, root: Path, paths: frozenset[str], buffers: dict[str, bytes]) -> ResolveContext:
    """A context for this run's resolution (reading `buffers`, the run's unsaved editor texts,
    instead of those files on disk), with the last run's path-only maps (and folder lists) when
    the indexed paths are the same."""
    last = _CONTEXTS.get(store)
    if last is not None and last.root == root and last.paths == paths:
        ctx = copy.copy(last)  # `dirs` (made from the paths) comes along
        ctx.cache, ctx.inputs, ctx.buffers = dict(last.cache), {}, buffers
        return ctx
    return ResolveContext(root, paths, buffers=buffers)


def keep(store: Store, ctx: ResolveContext) -> None:
    """Keep the context's path-only maps for the next run (the rest may hang on file contents)."""
    kept = copy.copy(ctx)
    kept.cache, kept.inputs, kept.buffers = {k: v for k, v in ctx.cache.items() if k in PATHS_ONLY_CACHES}, {}, {}
    _CONTEXTS[store] = kept
