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

An include inside a preprocessor conditional (`#if`, `#ifdef`, `#ifndef`, their `#elif`/`#else`
branches) holds only in some builds: its edge is kept, marked `c_preprocessor` (the condition is
not evaluated). A header's include guard (a first directive `#ifndef X` or `#if !defined(X)`
followed by `#define X`) is not a condition.
"""

from __future__ import annotations

import json
import posixpath
import re
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


_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\s*(.*)")
_GUARD = re.compile(r"^!\s*defined\s*\(?\s*(\w+)\s*\)?\s*$")


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    out = []
    for row in rows:
        found = _resolve_one(row, ctx)
        if found and found is not EXTERNAL and row.line in conditional_lines(ctx, row.path):
            found = [Target(t.path, t.is_module, "c_preprocessor") for t in found]
        out.append(found)
    return out


def conditional_lines(ctx: ResolveContext, path: str) -> frozenset[int]:
    """The lines of `path` (1-based) inside a preprocessor conditional, include guards aside."""
    known = ctx.cache.setdefault("c.conditional", {})
    if path not in known:
        known[path] = _conditional_lines(ctx.read_text(path) or "")
    return known[path]


def _conditional_lines(text: str) -> frozenset[int]:
    if "#" not in text:
        return frozenset()
    lines = text.splitlines()
    directives = [(i, m.group(1), m.group(2).strip()) for i, line in enumerate(lines, 1)
                  if (m := _DIRECTIVE.match(line))]
    guard_at = None
    head = [d for d in directives if d[1] != "pragma"][:2]  # `#pragma once` may come first
    if len(head) == 2 and head[0][1] in ("ifndef", "if") and head[1][1] == "define":
        m = _GUARD.match(head[0][2]) if head[0][1] == "if" else None
        name = head[0][2].split()[0] if head[0][1] == "ifndef" and head[0][2] else (m and m.group(1))
        if name and head[1][2].split()[:1] == [name]:
            guard_at = head[0][0]
    inside: set[int] = set()
    stack: list[bool] = []  # per open conditional: is it the include guard?
    for n, (i, word, _rest) in enumerate(directives):
        if word in ("if", "ifdef", "ifndef"):
            stack.append(i == guard_at)
        elif word == "endif" and stack:
            stack.pop()
        if not any(not guard for guard in stack):
            continue
        end = directives[n + 1][0] if n + 1 < len(directives) else len(lines) + 1
        inside.update(range(i, end))
    return frozenset(inside)


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
