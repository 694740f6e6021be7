"""Go imports: a package import path maps to a folder through the workspace's `go.mod` files.

`go.mod` is not an indexed file, so it is looked up (read once, cached) in every folder that
holds `.go` files and in each of their parent folders up to the workspace root. An import path
equal to a module path, or below it, names the folder at the same place below that module's
root; the import reaches every non-test `.go` file of that folder (a Go package is a folder).
A vendored copy (`<module root>/vendor/<import path>`) counts too. Anything else (the standard
library, other modules) is external; a path under a workspace module with no such folder is
unresolved.
"""

from __future__ import annotations

import posixpath
import re

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target, strip_quotes

_MODULE_LINE = re.compile(r"^\s*module\s+(\"[^\"]+\"|`[^`]+`|\S+)", re.MULTILINE)


def modules(ctx: ResolveContext) -> list[tuple[str, str]]:
    """(module path, module root folder) of every go.mod, longest module path first."""
    cached = ctx.cache.get("go.modules")
    if cached is None:
        cached = ctx.cache["go.modules"] = _find_modules(ctx)
    return cached


def _find_modules(ctx: ResolveContext) -> list[tuple[str, str]]:
    folders = set()
    for folder, files in ctx.dirs.items():
        if not any(f.endswith(".go") for f in files):
            continue
        while folder not in folders:
            folders.add(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
    folders.add("")
    found = []
    for folder in sorted(folders):
        text = ctx.read_text(posixpath.join(folder, "go.mod") if folder else "go.mod")
        if text is None:
            continue
        match = _MODULE_LINE.search(text)
        if match:
            found.append((strip_quotes(match.group(1)), folder))
    found.sort(key=lambda m: (-len(m[0]), m[1]))
    return found


def package_files(ctx: ResolveContext, folder: str) -> list[str]:
    return [p for p in ctx.dirs.get(folder, ())
            if p.endswith(".go") and not p.endswith("_test.go")]


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    mods = modules(ctx)
    out = []
    for row in rows:
        path = strip_quotes(row.module)
        if not path:
            out.append([])
            continue
        out.append(_resolve_one(path, row.path, mods, ctx))
    return out


def _resolve_one(path: str, importer: str, mods, ctx: ResolveContext) -> list[Target]:
    for module_path, root in mods:
        if path == module_path or path.startswith(module_path + "/"):
            rel = path[len(module_path) + 1:]
            folder = posixpath.join(root, rel) if root and rel else (root or rel)
            return [Target(p, True, "go_package") for p in package_files(ctx, folder)]
    # vendored copy, in the module root that holds the importing file (or the workspace root)
    for module_path, root in [m for m in mods if _under(importer, m[1])] + [("", "")]:
        folder = posixpath.join(root, "vendor", path) if root else posixpath.join("vendor", path)
        files = package_files(ctx, folder)
        if files:
            return [Target(p, True, "go_vendor") for p in files]
    return EXTERNAL


def _under(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")
