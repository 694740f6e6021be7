"""JavaScript / TypeScript imports: relative specifiers, tsconfig `paths`/`baseUrl`, workspace
packages by name (js_packages.py), the rest external.

A relative specifier (`./x`, `../x`) is looked up against the importing file's folder the way
TypeScript's bundler/node resolution does: the exact file, then the file with each source
extension appended, then (TS ESM style) a `.js`/`.jsx`/`.mjs`/`.cjs` specifier naming a
`.ts`/`.tsx`/`.mts`/`.cts` file, then the folder's `index` file. A bare specifier (`react`,
`node:fs`, `@scope/pkg`) is a library unless the nearest `tsconfig.json`/`jsconfig.json`
maps it through `compilerOptions.paths` or `baseUrl` onto a workspace file, or it names a
package.json of the workspace (a package importing itself, or a monorepo sibling): then its
`exports`/`main` decide, with the config's `customConditions` active (see js_packages.py).

ES named imports bind a name (`is_module` False); default, namespace, side-effect imports,
`export * from`, `require()`, `import x = require()` and `import()` bind the whole file.
"""

from __future__ import annotations

import json
import posixpath
import re

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target, js_packages, strip_quotes

APPEND_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
INDEX_FILES = ("index.ts", "index.tsx", "index.d.ts", "index.js", "index.jsx", "index.mjs", "index.cjs")
# a JS-flavoured extension in a specifier may name the TypeScript source it compiles from
JS_TO_TS = {".js": (".ts", ".tsx", ".d.ts"), ".jsx": (".tsx",), ".mjs": (".mts", ".d.mts"),
            ".cjs": (".cts", ".d.cts")}
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    memo = ctx.cache.setdefault("javascript.memo", {})
    out = []
    for row in rows:
        spec = strip_quotes(row.module).split("?", 1)[0]  # drop bundler queries: './x.svg?raw'
        folder = posixpath.dirname(row.path)
        key = (folder, spec)
        found = memo.get(key)
        if found is None:
            found = memo[key] = _resolve_spec(spec, folder, ctx)
        if found is EXTERNAL:
            out.append(EXTERNAL)
            continue
        if not found:
            out.append([])
            continue
        path, strategy = found
        out.append([Target(path, row.name is None or row.name == "*", strategy)])
    return out


def _resolve_spec(spec: str, folder: str, ctx: ResolveContext):
    """(path, strategy), EXTERNAL, or [] (unresolved)."""
    if not spec:
        return []
    if spec in (".", "..") or spec.startswith(("./", "../")):
        target = _normalize(posixpath.join(folder, spec))
        if target is None:
            return []
        hit = _probe(target, ctx)
        if hit:
            return hit, "relative"
        # a stylesheet, JSON or asset that exists but is not indexed source: not code to follow
        if target and (ctx.root / target).is_file():
            return EXTERNAL
        return []
    if spec.startswith("/"):
        hit = _probe(_normalize(spec.lstrip("/")) or "", ctx)
        return (hit, "absolute") if hit else []
    config = _config_for(folder, ctx)
    if config is not None:
        hit = _through_config(spec, config, ctx)
        if hit:
            return hit
    conditions = tuple(config["conditions"]) if config is not None else ()
    found = js_packages.resolve_self(spec, ctx, lambda target: _probe(target, ctx), conditions)
    if found is not None:
        return found
    return EXTERNAL


def _normalize(path: str) -> str | None:
    path = posixpath.normpath(path)
    if path == ".":
        return ""
    if path == ".." or path.startswith("../"):
        return None  # outside the workspace
    return path


def _probe(target: str, ctx: ResolveContext) -> str | None:
    """The workspace file a path-like specifier (without quotes, normalised) names, if any."""
    paths = ctx.paths
    if target and target in paths:
        return target
    if target:
        for ext in APPEND_EXTS:
            if target + ext in paths:
                return target + ext
        stem, ext = posixpath.splitext(target)
        for ts_ext in JS_TO_TS.get(ext, ()):
            if stem + ts_ext in paths:
                return stem + ts_ext
    for index in INDEX_FILES:
        candidate = posixpath.join(target, index) if target else index
        if candidate in paths:
            return candidate
    return None


# ---- tsconfig.json / jsconfig.json: compilerOptions.baseUrl and compilerOptions.paths

def _config_for(folder: str, ctx: ResolveContext):
    """The nearest config at or above `folder` (parsed, cached), or None."""
    configs = ctx.cache.setdefault("javascript.configs", {})
    chain = []
    current = folder
    while True:
        if current in configs:
            found = configs[current]
            break
        chain.append(current)
        found = _load_config(current, ctx)
        if found is not None or current == "":
            break
        current = posixpath.dirname(current)
    for f in chain:
        configs[f] = found
    return found


def _load_config(folder: str, ctx: ResolveContext):
    for name in CONFIG_NAMES:
        rel = posixpath.join(folder, name) if folder else name
        text = ctx.read_text(rel)
        if text is None:
            continue
        data = _parse_jsonc(text)
        options = data.get("compilerOptions") if isinstance(data, dict) else None
        if not isinstance(options, dict):
            options = {}
        base_url = options.get("baseUrl")
        base = None
        if isinstance(base_url, str):
            base = _normalize(posixpath.join(folder, base_url.replace("\\", "/")))
        paths = options.get("paths") if isinstance(options.get("paths"), dict) else {}
        # `paths` entries are relative to baseUrl when set, else to the config's folder
        path_base = base if base is not None else folder
        rules = []
        for pattern, targets in paths.items():
            if isinstance(targets, str):
                targets = [targets]
            if not isinstance(pattern, str) or not isinstance(targets, list) or pattern.count("*") > 1:
                continue
            rules.append((pattern, [t for t in targets if isinstance(t, str) and t.count("*") <= 1]))
        # longest prefix first, as TypeScript picks the most specific pattern
        rules.sort(key=lambda r: -len(r[0].split("*", 1)[0]))
        conditions = [c for c in options.get("customConditions") or () if isinstance(c, str)]
        return {"base": base, "path_base": path_base, "rules": rules, "conditions": conditions}
    return None


def _through_config(spec: str, config: dict, ctx: ResolveContext):
    for pattern, targets in config["rules"]:
        if "*" in pattern:
            prefix, suffix = pattern.split("*", 1)
            if not (spec.startswith(prefix) and spec.endswith(suffix)
                    and len(spec) >= len(prefix) + len(suffix)):
                continue
            star = spec[len(prefix):len(spec) - len(suffix)]
        elif spec == pattern:
            star = ""
        else:
            continue
        for target in targets:
            filled = target.replace("*", star)
            path = _normalize(posixpath.join(config["path_base"], filled))
            if path is None:
                continue
            hit = _probe(path, ctx)
            if hit:
                return hit, "tsconfig-paths"
    if config["base"] is not None:
        path = _normalize(posixpath.join(config["base"], spec))
        if path:
            hit = _probe(path, ctx)
            if hit:
                return hit, "base-url"
    return None


_JSONC_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _parse_jsonc(text: str):
    """JSON with comments and trailing commas, as tsconfig files are written; {} when unreadable."""
    stripped = _JSONC_TOKENS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    stripped = _TRAILING_COMMA.sub(r"\1", stripped)
    try:
        return json.loads(stripped)
    except ValueError:
        return {}
