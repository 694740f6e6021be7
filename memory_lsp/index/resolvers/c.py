"""C and C++ includes.

`#include "x.h"` is looked up, in order: relative to the including file's folder; in the
folders named `include/` (the nearest to the including file first); at the workspace root;
then as a path suffix that exactly one workspace file has. Nothing found is unresolved (`[]`).
`#include <x.h>` is a system or library header: external.
"""

from __future__ import annotations

import posixpath

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target, strip_quotes


def _include_dirs(ctx: ResolveContext) -> list[str]:
    cached = ctx.cache.get("c.include_dirs")
    if cached is None:
        dirs = set()
        for p in ctx.paths:
            parts = p.split("/")[:-1]
            for i, part in enumerate(parts):
                if part == "include":
                    dirs.add("/".join(parts[:i + 1]))
        cached = ctx.cache["c.include_dirs"] = sorted(dirs)
    return cached


def _by_name(ctx: ResolveContext) -> dict[str, list[str]]:
    cached = ctx.cache.get("c.by_name")
    if cached is None:
        cached = {}
        for p in sorted(ctx.paths):
            cached.setdefault(posixpath.basename(p), []).append(p)
        ctx.cache["c.by_name"] = cached
    return cached


def _common_prefix_len(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        n += 1
    return n


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    return [_resolve_one(row, ctx) for row in rows]


def _resolve_one(row: ImportRow, ctx: ResolveContext) -> list[Target]:
    text = row.module.strip()
    if text.startswith("<"):
        return EXTERNAL
    name = strip_quotes(text)
    if not name:
        return []
    here = posixpath.dirname(row.path)
    candidate = posixpath.normpath(posixpath.join(here, name))
    if candidate in ctx.paths:
        return [Target(candidate, True, "relative")]
    found = [d for d in _include_dirs(ctx)
             if posixpath.normpath(posixpath.join(d, name)) in ctx.paths]
    if found:
        best = max(_common_prefix_len(d, here) for d in found)
        return [Target(posixpath.normpath(posixpath.join(d, name)), True, "include_dir")
                for d in found if _common_prefix_len(d, here) == best]
    candidate = posixpath.normpath(name)
    if candidate in ctx.paths:
        return [Target(candidate, True, "root")]
    suffix = "/" + "/".join(part for part in candidate.split("/") if part not in ("", ".", ".."))
    matches = [p for p in _by_name(ctx).get(posixpath.basename(candidate), ())
               if p.endswith(suffix)]
    if len(matches) == 1:
        return [Target(matches[0], True, "suffix")]
    return []
