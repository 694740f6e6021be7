"""Java imports: fully qualified class names against the workspace's `.java` files.

A class `a.b.C` lives in the file that declares `package a.b;` and is named `C.java`; when
the package line cannot be read, the file whose path ends with `a/b/C.java` (under any source
root: `src/main/java/`, `src/`, a module folder...). Nested classes (`a.b.C.Inner`) and static
imports (`import static a.b.C.f;` arrives as module `a.b.C`, name `f`) reach `C.java`. A
wildcard (`a.b.*`, name `*`) reaches every `.java` file of the package `a.b`, or the class file
for a static wildcard (`a.b.C.*`). `java.*`/`javax.*` and other libraries are external; an
unmatched import whose package prefix is the workspace's own is unresolved (`[]`).
"""

from __future__ import annotations

import posixpath
import re

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target

_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
_STDLIB = ("java", "javax", "jdk", "sun")  # and com.sun.*


class _Index:
    def __init__(self, ctx: ResolveContext):
        self.classes: dict[str, list[str]] = {}  # fully qualified class name -> files
        self.packages: dict[str, list[str]] = {}  # package -> files
        self.by_name: dict[str, list[str]] = {}  # "C.java" -> files
        self.prefixes: set[str] = set()  # first two segments of every workspace package
        for path in sorted(p for p in ctx.paths if p.endswith(".java")):
            name = posixpath.basename(path)
            self.by_name.setdefault(name, []).append(path)
            package = self._package(ctx, path)
            if package is None:
                continue
            self.packages.setdefault(package, []).append(path)
            fqcn = f"{package}.{name[:-5]}" if package else name[:-5]
            self.classes.setdefault(fqcn, []).append(path)
            if package:
                self.prefixes.add(".".join(package.split(".")[:2]))

    @staticmethod
    def _package(ctx: ResolveContext, path: str) -> str | None:
        text = ctx.read_text(path)
        if text is None:
            return None
        m = _PACKAGE.search(text[:20000])
        return m.group(1) if m else ""

    def class_files(self, fqcn: str) -> list[str]:
        """Files declaring the class `fqcn` (by package line, else by path suffix)."""
        found = self.classes.get(fqcn)
        if found:
            return found
        parts = fqcn.split(".")
        suffix = "/".join(parts) + ".java"
        return [p for p in self.by_name.get(parts[-1] + ".java", ())
                if p == suffix or p.endswith("/" + suffix)]

    def package_files(self, package: str) -> list[str]:
        found = self.packages.get(package)
        if found:
            return found
        folder = package.replace(".", "/")
        out = []
        for files in self.by_name.values():
            for p in files:
                d = posixpath.dirname(p)
                if d == folder or d.endswith("/" + folder):
                    out.append(p)
        return sorted(out)

    def is_workspace(self, module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in self.prefixes)


def _index(ctx: ResolveContext) -> _Index:
    cached = ctx.cache.get("java.index")
    if cached is None:
        cached = ctx.cache["java.index"] = _Index(ctx)
    return cached


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    index = _index(ctx)
    return [_resolve_one(row, index) for row in rows]


def _resolve_one(row: ImportRow, index: _Index) -> list[Target]:
    module = row.module.strip()
    if not module:
        return []
    if row.name == "*":
        files = index.package_files(module)
        if files:
            return [Target(p, True, "package") for p in files]
        files = _class_or_outer(module, index)  # import static a.b.C.*; import a.b.C.*
        if files:
            return [Target(p, True, "class") for p in files]
    else:
        files = _class_or_outer(module, index)
        if files:
            return [Target(p, False, "class") for p in files]
    if module.split(".")[0] in _STDLIB or module.startswith("com.sun."):
        return EXTERNAL
    return [] if index.is_workspace(module) else EXTERNAL


def _class_or_outer(fqcn: str, index: _Index) -> list[str]:
    """The file of `a.b.C`; for a nested class `a.b.C.Inner`, the file of its outer class."""
    parts = fqcn.split(".")
    while parts:
        files = index.class_files(".".join(parts))
        if files:
            return files
        # only drop a segment that names a class nested in another class (C.Inner)
        if len(parts) < 2 or not parts[-2][:1].isupper():
            return []
        parts = parts[:-1]
    return []
