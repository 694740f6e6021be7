"""Ruby `require_relative` and `require`.

The query captures the method as @import.name. `require_relative 'x'` is a path relative to
the requiring file's folder (`.rb` added when missing); nothing there is unresolved (`[]`).
`require 'x'` searches the load path as a project sets it up: `lib/x.rb`, `x.rb` at the root,
then a unique file ending in `/lib/x.rb`, then a unique file ending in `/x.rb`; nothing found
means a gem or the standard library (external).
"""

from __future__ import annotations

import posixpath

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target, strip_quotes


def _by_name(ctx: ResolveContext) -> dict[str, list[str]]:
    cached = ctx.cache.get("ruby.by_name")
    if cached is None:
        cached = {}
        for p in sorted(ctx.paths):
            if p.endswith(".rb"):
                cached.setdefault(posixpath.basename(p), []).append(p)
        ctx.cache["ruby.by_name"] = cached
    return cached


def _with_ext(name: str) -> str:
    return name if name.endswith(".rb") else name + ".rb"


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    return [_resolve_one(row, ctx) for row in rows]


def _resolve_one(row: ImportRow, ctx: ResolveContext) -> list[Target]:
    name = strip_quotes(row.module).lstrip(":")  # a symbol (`require :x`) is rare but legal
    if not name:
        return []
    if row.name == "require_relative":
        candidate = posixpath.normpath(posixpath.join(posixpath.dirname(row.path), _with_ext(name)))
        return [Target(candidate, True, "relative")] if candidate in ctx.paths else []
    if name.startswith(("./", "../", "/")):  # require './x' is relative to the working directory
        candidate = posixpath.normpath(_with_ext(name).lstrip("/"))
        return [Target(candidate, True, "root")] if candidate in ctx.paths else []
    rel = posixpath.normpath(_with_ext(name))
    for candidate, strategy in ((f"lib/{rel}", "load_path"), (rel, "root")):
        if candidate in ctx.paths:
            return [Target(candidate, True, strategy)]
    same_name = _by_name(ctx).get(posixpath.basename(rel), ())
    for suffix, strategy in ((f"/lib/{rel}", "load_path"), (f"/{rel}", "suffix")):
        matches = [p for p in same_name if p.endswith(suffix)]
        if len(matches) == 1:
            return [Target(matches[0], True, strategy)]
    return EXTERNAL
