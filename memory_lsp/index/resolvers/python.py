"""Python imports: absolute, relative and package imports against the workspace's source roots.

A source root is a folder whose top-level packages are importable: the workspace root, `src/`,
and any folder that holds a package (a folder with `__init__.py`) without being a package
itself; inside a package, a folder without `__init__.py` is a namespace package (flask/sansio/).
`import a.b.c` reaches the module a.b.c only (as grimp records it); `from a import b` reaches
the module a.b when it exists, else a (b is then a name defined in a).

A file in a folder that is no package (a script, a test module beside its helpers) has its own
folder first on `sys.path`, as Python gives a script and pytest a test module outside packages:
its absolute imports are looked up there first (`from helpers import make` in tests/test_a.py
reaches tests/helpers.py), then against the source roots; never for a module Python finds before
sys.path, compiled in or frozen (`import gc` beside a gc.py is still Python's).

A folder of the workspace root (or of src/) without `__init__.py` is a namespace package for the files in no
package: its own (`from app.models import User` in app/views.py, `from .models import User`), a test's or a
script's beside it; a file inside a package (installed, run from its own root) never reaches it.
"""

from __future__ import annotations

import _imp
import bisect
import posixpath
import sys

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target


# modules Python loads before it looks at sys.path: a script's neighbour of that name never shadows them
# (the stdlib's test/dtracedata/instance.py imports Python's gc beside a gc.py)
BEFORE_PATH = frozenset(sys.builtin_module_names) | frozenset(
    name.split(".")[0] for name in getattr(_imp, "_frozen_module_names", lambda: ())())
NAMESPACE_ROOTS = ("", "src")  # where a file in no package finds namespace packages: the workspace root, src/


def module_map(ctx: ResolveContext) -> dict[str, str]:
    cached = ctx.cache.get("python.modules")
    if cached is None:
        cached = ctx.cache["python.modules"] = _build_module_map(ctx)
    return cached


def _python_files(ctx: ResolveContext) -> list[str]:
    cached = ctx.cache.get("python.files")
    if cached is None:
        cached = ctx.cache["python.files"] = sorted(p for p in ctx.paths if p.endswith((".py", ".pyi")))
    return cached


def _packages(ctx: ResolveContext) -> set[str]:
    """The folders with an `__init__.py`."""
    cached = ctx.cache.get("python.packages")
    if cached is None:
        cached = ctx.cache["python.packages"] = {posixpath.dirname(p) for p in _python_files(ctx)
                                                 if posixpath.basename(p) in ("__init__.py", "__init__.pyi")}
    return cached


def _home_modules(ctx: ResolveContext, home: str) -> dict[str, str]:
    """The modules importable with `home` (a folder that is no package) first on sys.path."""
    homes = ctx.cache.setdefault("python.homes", {})
    found = homes.get(home)
    if found is None:
        found = homes[home] = _modules_from(_below(ctx, home), [home], _packages(ctx))
    return found


def _below(ctx: ResolveContext, folder: str) -> list[str]:
    """The Python files below `folder`."""
    py = _python_files(ctx)
    return py[bisect.bisect_left(py, folder + "/"):bisect.bisect_left(py, folder + "/\U0010ffff")]


def _namespace_top(path: str) -> str | None:
    """The folder of the workspace root or of src/ a file sits in below (`app` for app/api/views.py)."""
    parts = path.split("/")
    start = 1 if parts[0] in NAMESPACE_ROOTS else 0
    return "/".join(parts[:start + 1]) if len(parts) > start + 1 and parts[start].isidentifier() else None


def _namespace_modules(ctx: ResolveContext, top: str) -> dict[str, str]:
    """The modules of `top` (a folder without `__init__.py`) as a namespace package: `app.models` for
    app/models.py, named from the folder `top` is in."""
    spaces = ctx.cache.setdefault("python.namespaces", {})
    found = spaces.get(top)
    if found is None:
        found = spaces[top] = _modules_from(_below(ctx, top), [posixpath.dirname(top)], _packages(ctx) | {top})
    return found


def _namespace_name(path: str, top: str) -> str:
    """app/api/views.py's module name in the namespace package `app`: app.api.views (app/api/__init__.py: app.api)."""
    parts = path[len(posixpath.dirname(top)):].lstrip("/").rsplit(".", 1)[0].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _namespace_targets(ctx: ResolveContext, full: str, name: str | None, strategy: str, home: str) -> list[Target]:
    """`full` in a namespace package beside the package the importer (in `home`) is in (typer's tests/, a package,
    import docs_src.progressbar.tutorial001; src/pkg/ reaches src/ns/, not the root's), or for a file in no package
    at the workspace root or in src/; unless Python's own module of that name comes first (a regular package on
    sys.path wins over namespace portions)."""
    first, packages = full.split(".")[0], _packages(ctx)
    if first in sys.stdlib_module_names:
        return []
    top_package = home
    while top_package and posixpath.dirname(top_package) in packages:
        top_package = posixpath.dirname(top_package)
    beside = NAMESPACE_ROOTS if home not in packages else (posixpath.dirname(top_package),)
    for top in (posixpath.join(root, first) for root in beside):
        if top not in packages:
            found = _targets(full, name, _namespace_modules(ctx, top), strategy)
            if found:
                return found
    return []


def _build_module_map(ctx: ResolveContext) -> dict[str, str]:
    py = _python_files(ctx)
    packages = _packages(ctx)
    roots = {""}
    for pkg in packages:
        parent = posixpath.dirname(pkg)
        if parent not in packages:
            roots.add(parent)
    if "src" in ctx.dirs or any(p.startswith("src/") for p in py):
        roots.add("src")
    return _modules_from(py, sorted(roots, key=lambda r: (r.count("/") + (r != ""), r)), packages)


def _modules_from(py: list[str], roots: list[str], packages: set[str]) -> dict[str, str]:
    """Module name -> file, of the files `py` below `roots` (in order: the first claim on a name wins)."""
    modules: dict[str, str] = {}
    in_order = sorted(py, key=lambda p: p.endswith(".pyi"))  # .py before .pyi
    for root in roots:
        prefix = root + "/" if root else ""
        for p in in_order:
            if not p.startswith(prefix):
                continue
            rel = p[len(prefix):]
            stem = rel.rsplit(".", 1)[0]
            parts = stem.split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not parts or not all(part.isidentifier() for part in parts):
                continue
            # a module below the root must sit in a package to be importable; below that package a
            # folder without `__init__.py` is a namespace portion (flask/sansio/), importable too
            if len(parts) > 1 and posixpath.join(root, parts[0]) not in packages:
                continue
            modules.setdefault(".".join(parts), p)
    return modules


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    modules = module_map(ctx)
    by_path = ctx.cache.get("python.by_path")
    if by_path is None:
        by_path = ctx.cache["python.by_path"] = {v: k for k, v in modules.items()}
    tops = {m.split(".")[0] for m in modules}
    packages = _packages(ctx)
    out = []
    for row in rows:
        module = row.module.strip()
        if module == "__future__":
            out.append(EXTERNAL)
            continue
        home = posixpath.dirname(row.path)
        lookup = modules
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            own = by_path.get(row.path)
            top = _namespace_top(row.path) if own is None and home not in packages else None
            if top is not None and top not in packages:  # a module of a namespace package
                lookup, own = _namespace_modules(ctx, top), _namespace_name(row.path, top)
            if own is None:
                out.append([])
                continue
            package = own.split(".") if posixpath.basename(row.path).startswith("__init__.") \
                else own.split(".")[:-1]
            if level - 1 > len(package):
                out.append([])
                continue
            base = package[:len(package) - (level - 1)]
            rest = module.lstrip(".")
            full = ".".join(base + ([rest] if rest else []))
            strategy = "relative"
        else:  # a module named by a string (index/string_imports.py) is looked up as an absolute one
            full = module.strip("\"")
            strategy = "absolute" if full == module else "string"
            first = full.split(".")[0]
            if home and home not in packages and first not in BEFORE_PATH:  # its own folder first
                found = _targets(full, row.name, _home_modules(ctx, home), strategy)
                if found:
                    out.append(found)
                    continue
            if first not in tops:  # no regular package of the workspace: a namespace package's, else an outside one
                found = _namespace_targets(ctx, full, row.name, strategy, home)
                out.append(found or EXTERNAL)
                continue
        found = _targets(full, row.name, lookup, strategy)
        out.append(EXTERNAL if not found and strategy == "string" else found)  # a string names no module: it is no import
    return out


def _targets(full: str, name: str | None, modules: dict[str, str], strategy: str) -> list[Target]:
    if name and name != "*":
        sub = f"{full}.{name}" if full else name
        if sub in modules:
            return [Target(modules[sub], True, "package" if strategy == "absolute" else strategy)]
    if full in modules:
        return [Target(modules[full], name is None or name == "*", strategy)]
    parent = full.rpartition(".")[0]
    if name is None and parent in modules:  # `import a.b.c` with no source for c: grimp records a.b
        return [Target(modules[parent], False, strategy)]
    return []
