"""C and C++ includes.

`#include "x.h"` is looked up, in order: relative to the including file's folder; in the
folders named `include/` (the nearest to the including file first); at the workspace root;
then as a path suffix that exactly one workspace file has; then in the file's include folders
from compile_commands.json (below). Nothing found is unresolved (`[]`).

`#include <x/y.h>` is searched the way the compiler searches it, in the include folders only:
with a compile_commands.json (at the root or in a top-level build folder), the `-I`,
`-isystem` and `-idirafter` folders of the file's own entry in their order, the first hit wins
(strategy `compile_commands`); a header (or a file without an entry) gets the union of every
entry's folders, in order of first appearance. Without one, the folders named `include/` in
the workspace (the nearest first, `include_dir`). A header found in no such folder is a system
or library header: external.
"""

from __future__ import annotations

import json
import posixpath
import shlex

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target, strip_quotes

COMPILE_DB = "compile_commands.json"
_DIR_FLAGS = ("-I", "-isystem", "-idirafter", "-iquote")


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
    name = strip_quotes(text)
    if not name:
        return []
    here = posixpath.dirname(row.path)
    if text.startswith("<"):
        return _angle(row.path, here, name, ctx) or EXTERNAL
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
    db = compile_db(ctx)
    if db is not None:
        return _in_folders(_folders_of(row.path, db, quoted=True), name, ctx)
    return []


def _angle(path: str, here: str, name: str, ctx: ResolveContext) -> list[Target]:
    db = compile_db(ctx)
    if db is not None:
        return _in_folders(_folders_of(path, db, quoted=False), name, ctx)
    found = [d for d in _include_dirs(ctx)
             if posixpath.normpath(posixpath.join(d, name)) in ctx.paths]
    if not found:
        return []
    best = max(_common_prefix_len(d, here) for d in found)
    return [Target(posixpath.normpath(posixpath.join(d, name)), True, "include_dir")
            for d in found if _common_prefix_len(d, here) == best]


def _in_folders(folders: list[str], name: str, ctx: ResolveContext) -> list[Target]:
    for folder in folders:
        candidate = posixpath.normpath(posixpath.join(folder, name)) if folder else posixpath.normpath(name)
        if candidate in ctx.paths:
            return [Target(candidate, True, "compile_commands")]
    return []


def _folders_of(path: str, db: dict, quoted: bool) -> list[str]:
    """The include folders of `path`'s own entry, else the union of every entry's."""
    flags = db["units"].get(path)
    if flags is None:
        flags = db["union"]
    return [folder for flag, folder in flags if quoted or flag != "-iquote"]


def compile_db(ctx: ResolveContext) -> dict | None:
    """{"units": {file: [(flag, workspace folder), ...]}, "union": [...]}, or None without a
    compile_commands.json; folders outside the workspace are left out (they hold no indexed file)."""
    if "c.compile_db" not in ctx.cache:
        ctx.cache["c.compile_db"] = _load_compile_db(ctx)
    return ctx.cache["c.compile_db"]


def _load_compile_db(ctx: ResolveContext) -> dict | None:
    candidates = [COMPILE_DB] + sorted(f"{p.name}/{COMPILE_DB}" for p in _top_folders(ctx))
    text = next((t for t in map(ctx.read_text, candidates) if t is not None), None)
    if text is None:
        return None
    try:
        entries = json.loads(text)
    except ValueError:
        return None
    roots = list(dict.fromkeys([ctx.root.resolve().as_posix(), ctx.root.absolute().as_posix()]))
    units: dict[str, list[tuple[str, str]]] = {}
    union: dict[tuple[str, str], None] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        directory = posixpath.join(roots[0], entry.get("directory") or ".")
        args = entry.get("arguments")
        if not isinstance(args, list):
            try:
                args = shlex.split(entry.get("command") or "")
            except ValueError:
                continue
        rel = _relative(posixpath.join(directory, entry["file"]), roots)
        if rel is None:
            continue
        flags = []
        for i, arg in enumerate(args):
            for flag in _DIR_FLAGS:
                if arg == flag and i + 1 < len(args):
                    value = args[i + 1]
                elif arg.startswith(flag) and len(arg) > len(flag) and flag == "-I":
                    value = arg[2:]
                else:
                    continue
                folder = _relative(posixpath.join(directory, value), roots)
                if folder is not None:
                    flags.append((flag, folder))
                break
        units.setdefault(rel, flags)
        union.update(dict.fromkeys(flags))
    return {"units": units, "union": list(union)}


def _top_folders(ctx: ResolveContext):
    try:
        return [p for p in ctx.root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []


def _relative(path: str, roots: list[str]) -> str | None:
    """`path` relative to the workspace (as resolved or as given), None outside it."""
    path = posixpath.normpath(path)
    for root in roots:
        if path == root:
            return ""
        if path.startswith(root + "/"):
            return path[len(root) + 1:]
    return None
