"""Go imports: a package import path maps to a folder through the workspace's `go.mod` files.

`go.mod` is not an indexed file, so it is looked up (read once, cached) in every folder that
holds `.go` files and in each of their parent folders up to the workspace root. An import path
equal to a module path, or below it, names the folder at the same place below that module's
root; the import reaches every non-test `.go` file of that folder (a Go package is a folder).
A vendored copy (`<module root>/vendor/<import path>`) counts too. Anything else (the standard
library, other modules) is external; a path under a workspace module with no such folder is
unresolved.

A file built only under a condition (a `//go:build` or `// +build` line before its package
clause, or a `_GOOS`, `_GOARCH` or `_GOOS_GOARCH` name suffix, as go/build reads them; or an
`import "C"`, which go/build builds only with cgo enabled) keeps its edges, marked `go_build_tag`:
an import from it, and an import that reaches it.
"""

from __future__ import annotations

import posixpath
import re

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target, strip_quotes

_BUILD_LINE = re.compile(r"^//(go:build\s|\s*\+build\s)")
# go/build's syslist: every GOOS and GOARCH a file name suffix may name
KNOWN_OS = frozenset("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd "
                     "plan9 solaris wasip1 windows zos".split())
KNOWN_ARCH = frozenset("386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le "
                       "mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 "
                       "wasm".split())
# imports come before any declaration: a "C" later in the file is a string, not cgo
_FIRST_DECL = re.compile(r"^(?:func|type|var|const)\b", re.MULTILINE)
_IMPORT_C = re.compile(r'^import\s+"C"|^import\s*\([^)]*^\s*"C"\s*$', re.MULTILINE)
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
        found = _resolve_one(path, row.path, mods, ctx)
        if found is not EXTERNAL and (is_conditional(ctx, row.path)
                                      or any(is_conditional(ctx, t.path) for t in found)):
            found = [Target(t.path, t.is_module, "go_build_tag") if is_conditional(ctx, row.path)
                     or is_conditional(ctx, t.path) else t for t in found]
        out.append(found)
    return out


def is_conditional(ctx: ResolveContext, path: str) -> bool:
    """Whether `path` is built only under a build constraint (read once per file)."""
    known = ctx.cache.setdefault("go.conditional", {})
    if path not in known:
        text = ctx.read_text(path) or ""
        known[path] = suffix_constrained(path) or _has_build_line(text) or uses_cgo(text)
    return known[path]


def uses_cgo(text: str) -> bool:
    """`import "C"` (alone or in an import group) before the first top-level declaration."""
    if '"C"' not in text:
        return False
    header = _FIRST_DECL.split(text, maxsplit=1)[0]
    return bool(_IMPORT_C.search(header))


def suffix_constrained(path: str) -> bool:
    """go/build's goodOSArchFile: `x_linux.go`, `x_arm64.go`, `x_windows_amd64_test.go`."""
    name = posixpath.basename(path)[:-3]
    name = name[:-5] if name.endswith("_test") else name
    if "_" not in name:
        return False
    parts = name[name.index("_"):].split("_")
    if len(parts) >= 2 and parts[-2] in KNOWN_OS and parts[-1] in KNOWN_ARCH:
        return True
    return parts[-1] in KNOWN_OS or parts[-1] in KNOWN_ARCH


def _has_build_line(text: str) -> bool:
    """A constraint line in the header: comments and blank lines before the package clause."""
    in_block = False
    for line in text.splitlines():
        line = line.strip()
        if in_block:
            in_block = "*/" not in line
            continue
        if _BUILD_LINE.match(line):
            return True
        if line.startswith("/*"):
            in_block = "*/" not in line
        elif line and not line.startswith("//"):
            return False  # the package clause (or anything else) ends the header
    return False


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
