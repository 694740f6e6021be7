"""A workspace package imported by its own name: package.json `name`, `exports`, `main`.

Every package.json in a folder at or above an indexed file is read once (a monorepo's packages
and the root package alike). A bare specifier whose package name (`zod`, `@scope/pkg`) is one of
them resolves inside the workspace:

- with `exports`: the subpath (`.`, `./v4`, `./features/x`) is matched against the exact keys,
  then the `*` patterns (the longest prefix first, as Node sorts them) and legacy `./dir/`
  folders; a target that is a condition object is walked in its own key order, taking the first
  key that is active: the tsconfig's `customConditions`, then `types`, `import`, `require`,
  `node`, `default` (an array: its first target that resolves; `null`: not exported).
- without `exports`: `.` is `types`/`typings`, `module`, then `main` (each when it resolves),
  then the folder's index file; any other subpath is a path below the package folder.

The source twin rule: when a target names a build output (`.js`, `.cjs`, `.mjs`, `.d.ts`,
`.d.cts`, `.d.mts`) its source is looked for by one plain mapping: a first folder named `dist`,
`lib`, `build`, `out`, `esm` or `cjs` (and a second one named `esm`, `cjs` or `types` below it)
becomes `src` (or goes, for a package compiled from its top folder), and any other path outside
`src/` gets `src/` put in front (`dist/x.js` -> `src/x.ts` or `x.ts`, `index.d.cts` ->
`src/index.ts`). The twin wins when it is TypeScript source or
when the target sits in such a build folder or is not indexed; otherwise the target itself.
"""

from __future__ import annotations

import json
import posixpath

from memory_lsp.index.resolvers import ResolveContext

DEFAULT_CONDITIONS = ("types", "import", "require", "node", "default")
BUILD_EXTS = (".d.ts", ".d.cts", ".d.mts", ".js", ".cjs", ".mjs", ".jsx")
BUILD_DIRS = ("dist", "lib", "build", "out", "esm", "cjs")
SUB_BUILD_DIRS = ("esm", "cjs", "types")
TS_SOURCE = (".ts", ".tsx", ".mts", ".cts")


def packages(ctx: ResolveContext) -> dict[str, tuple[str, dict]]:
    """Package name -> (its folder, its package.json), the shallowest folder first per name."""
    cached = ctx.cache.get("javascript.packages")
    if cached is None:
        cached = ctx.cache["javascript.packages"] = _find_packages(ctx)
    return cached


def _find_packages(ctx: ResolveContext) -> dict[str, tuple[str, dict]]:
    folders = {""}
    for folder in ctx.dirs:
        while folder not in folders:
            folders.add(folder)
            folder = posixpath.dirname(folder)
    found: dict[str, tuple[str, dict]] = {}
    for folder in sorted(folders, key=lambda f: (f.count("/") + bool(f), f)):
        if "node_modules" in folder.split("/"):
            continue
        text = ctx.read_text(posixpath.join(folder, "package.json") if folder else "package.json")
        if text is None:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        name = data.get("name") if isinstance(data, dict) else None
        if isinstance(name, str) and name and name not in found:
            found[name] = (folder, data)
    return found


def split_specifier(spec: str) -> tuple[str, str]:
    """('@scope/pkg', './sub') from '@scope/pkg/sub'; the subpath is '.' for the package itself."""
    parts = spec.split("/")
    take = 2 if spec.startswith("@") else 1
    name, rest = "/".join(parts[:take]), "/".join(parts[take:])
    return name, f"./{rest}" if rest else "."


def resolve_self(spec: str, ctx: ResolveContext, probe, conditions: tuple[str, ...] = ()):
    """(path, strategy) when `spec` names a workspace package's file; None when the package is
    not in the workspace; [] when it is but the subpath names no indexed file."""
    name, subpath = split_specifier(spec)
    pkg = packages(ctx).get(name)
    if pkg is None:
        return None
    folder, data = pkg
    active = tuple(dict.fromkeys((*conditions, *DEFAULT_CONDITIONS)))
    exports = data.get("exports")
    if exports is not None:
        for target in _export_targets(exports, subpath, active):
            hit = _land(folder, target, ctx, probe)
            if hit:
                return hit, "package_exports"
        return []
    if subpath == ".":
        for key in ("types", "typings", "module", "main"):
            value = data.get(key)
            hit = _land(folder, value, ctx, probe) if isinstance(value, str) else None
            if hit:
                return hit, "package_main"
        hit = probe(folder)
    else:
        hit = _land(folder, subpath, ctx, probe)
    return (hit, "package_main") if hit else []


def _export_targets(exports, subpath: str, active: tuple[str, ...]) -> list[str]:
    """The target strings `subpath` maps to, in the order to try them."""
    if isinstance(exports, (str, list)) or (
            isinstance(exports, dict) and not any(k.startswith(".") for k in exports)):
        exports = {".": exports}  # sugar: the package's main export alone
    if not isinstance(exports, dict):
        return []
    if subpath in exports and "*" not in subpath:
        return _conditional(exports[subpath], active, "")
    best = None  # (prefix length, key, star)
    for key in exports:
        if key.count("*") == 1:
            prefix, suffix = key.split("*")
            if (subpath.startswith(prefix) and subpath.endswith(suffix)
                    and len(subpath) >= len(prefix) + len(suffix)):
                star = subpath[len(prefix):len(subpath) - len(suffix)]
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), key, star)
        elif key.endswith("/") and subpath.startswith(key):
            if best is None or len(key) > best[0]:
                best = (len(key), key, None, subpath[len(key):])
    if best is None:
        return []
    if len(best) == 4:  # a legacy folder export: the rest of the subpath is appended
        return [t + best[3] for t in _conditional(exports[best[1]], active, "") if t.endswith("/")]
    return _conditional(exports[best[1]], active, best[2])


def _conditional(value, active: tuple[str, ...], star: str) -> list[str]:
    if isinstance(value, str):
        return [value.replace("*", star)]
    if isinstance(value, list):
        return [t for v in value for t in _conditional(v, active, star)]
    if isinstance(value, dict):
        for key, inner in value.items():  # the object's own order decides, as in Node
            if key in active:
                found = _conditional(inner, active, star)
                if found:
                    return found
    return []  # None: not exported


def _land(folder: str, target: str, ctx: ResolveContext, probe) -> str | None:
    """The indexed file a package-relative target names: its source twin or itself."""
    rel = posixpath.normpath(target.replace("\\", "/"))
    if rel.startswith("../") or rel == ".." or rel.startswith("/"):
        return None
    rel = "" if rel == "." else rel
    path = posixpath.join(folder, rel) if folder and rel else (folder or rel)
    itself = path if path in ctx.paths else None
    twin = _twin(folder, rel, probe)
    if twin and (twin.endswith(TS_SOURCE) and not twin.endswith((".d.ts", ".d.cts", ".d.mts"))
                 or itself is None or rel.split("/", 1)[0] in BUILD_DIRS):
        return twin
    return itself or probe(path)


def _twin(folder: str, rel: str, probe) -> str | None:
    ext = next((e for e in BUILD_EXTS if rel.endswith(e)), None)
    if ext is None:
        return None
    parts = rel[:-len(ext)].split("/")
    if len(parts) > 2 and parts[0] in BUILD_DIRS and parts[1] in SUB_BUILD_DIRS:
        candidates = [["src", *parts[2:]], ["src", *parts[1:]], parts[2:]]
    elif len(parts) > 1 and parts[0] in BUILD_DIRS:
        candidates = [["src", *parts[1:]], parts[1:]]
    elif len(parts) == 1 or parts[0] != "src":
        candidates = [["src", *parts]]
    else:
        return None
    for segs in candidates:
        stem = posixpath.join(folder, *segs) if folder else posixpath.join(*segs)
        hit = probe(stem)
        if hit:
            return hit
    return None
