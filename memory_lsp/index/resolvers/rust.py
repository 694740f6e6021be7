"""Rust imports: `mod foo;` declarations and `use` paths against the crate's module files.

Rows come from grammars/rust/tags.scm: a `use` path is split into @import.module (all but the
last segment) and @import.name (the last segment, `self` or `*`); a `mod foo;` item arrives as
module text "mod foo;" (visibility kept, "pub mod foo;").

A module is a file plus the folder its child modules live in: `lib.rs`, `main.rs`, `mod.rs`
and other crate roots (`src/bin/x.rs`, `tests/x.rs`, `examples/x.rs`, `benches/x.rs`,
`build.rs`) keep their children beside them; any other `x.rs` keeps them in `x/`. A child `foo`
is `foo.rs` or `foo/mod.rs` in that folder.

- `mod foo;` reaches the child module's file (is_module True).
- `use crate::a::b::C` walks from the crate root (the nearest `lib.rs`/`main.rs` at or above the
  file's folder, or the file itself when it is a crate root): the longest prefix of `a::b::C`
  that names a module file wins. All segments matched: the import binds a module
  (is_module True); fewer: it binds an item of the deepest module found (is_module False); none:
  the item lives in the crate root file.
- `self::`/`super::` start from the current module / its parent; a first segment naming a child
  module of the current module counts as `self::` (2018 edition paths).
- A first segment naming a workspace library crate (its Cargo.toml `[package] name`, `-` read as
  `_`) starts from that crate's `src/lib.rs`. `std`, `core`, `alloc` and other crates are external.
"""

from __future__ import annotations

import posixpath
import re

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target

_PATH_ATTR = re.compile(r'\bpath\s*=\s*"([^"]+)"')
_MOD_ITEM = re.compile(r"\bmod\s+(?:r#)?([A-Za-z_][A-Za-z0-9_]*)\s*;\s*$")
_INLINE_MOD = re.compile(r"\bmod\s+\w+\s*\{")
_ROOT_NAMES = ("lib.rs", "main.rs")
_EXTERNAL_ROOTS = frozenset({"std", "core", "alloc", "proc_macro", "test"})
_TARGET_FOLDERS = ("tests", "examples", "benches")


def is_crate_root(path: str) -> bool:
    name = posixpath.basename(path)
    if name in _ROOT_NAMES or name == "build.rs":
        return True
    parts = path.split("/")[:-1]
    if len(parts) >= 2 and parts[-2:] == ["src", "bin"]:
        return True
    return bool(parts) and parts[-1] in _TARGET_FOLDERS and "src" not in parts


def module_folder(path: str) -> str:
    """The folder holding the child modules of the module defined by `path`."""
    folder = posixpath.dirname(path)
    if posixpath.basename(path) == "mod.rs" or is_crate_root(path):
        return folder
    stem = posixpath.basename(path)[:-3]
    return posixpath.join(folder, stem) if folder else stem


def _module_file_of(folder: str, paths: frozenset[str]) -> str | None:
    """The file defining the module whose children live in `folder`."""
    candidates = [f"{folder}.rs"] if folder else []
    prefix = f"{folder}/" if folder else ""
    candidates += [prefix + "mod.rs", prefix + "lib.rs", prefix + "main.rs"]
    return next((c for c in candidates if c in paths), None)


def _child(folder: str, name: str, paths: frozenset[str]) -> str | None:
    base = posixpath.join(folder, name) if folder else name
    return next((c for c in (base + ".rs", base + "/mod.rs") if c in paths), None)


def crate_root(path: str, paths: frozenset[str]) -> tuple[str | None, str]:
    """(root file or None, root folder) of the crate that `path` belongs to."""
    if is_crate_root(path):
        return path, posixpath.dirname(path)
    folder = posixpath.dirname(path)
    while True:
        prefix = f"{folder}/" if folder else ""
        for name in _ROOT_NAMES:
            if prefix + name in paths:
                return prefix + name, folder
        if not folder:
            break
        folder = posixpath.dirname(folder)
    return None, posixpath.dirname(path)


def crates(ctx: ResolveContext) -> dict[str, str]:
    """Library crate name -> its root file (`.../src/lib.rs`), from the crates' Cargo.toml."""
    cached = ctx.cache.get("rust.crates")
    if cached is None:
        cached = ctx.cache["rust.crates"] = _find_crates(ctx)
    return cached


def _find_crates(ctx: ResolveContext) -> dict[str, str]:
    import tomllib

    found: dict[str, str] = {}
    for path in sorted(p for p in ctx.paths if p == "src/lib.rs" or p.endswith("/src/lib.rs")):
        crate_dir = posixpath.dirname(posixpath.dirname(path))
        text = ctx.read_text(posixpath.join(crate_dir, "Cargo.toml") if crate_dir else "Cargo.toml")
        name = None
        if text:
            try:
                manifest = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                manifest = {}
            name = (manifest.get("lib") or {}).get("name") or (manifest.get("package") or {}).get("name")
        name = name or posixpath.basename(crate_dir)
        if name:
            found.setdefault(str(name).replace("-", "_"), path)
    return found


def resolve(rows: list[ImportRow], ctx: ResolveContext) -> list[list[Target]]:
    out = []
    for row in rows:
        found = _resolve_one(row, ctx)
        if found is not EXTERNAL and found and (_line_gated(ctx, row.path, row.line) or is_gated(ctx, row.path)
                                                or any(is_gated(ctx, t.path) for t in found)):
            found = [Target(t.path, t.is_module, "rust_cfg") for t in found]
        out.append(found)
    return out


def _resolve_one(row: ImportRow, ctx: ResolveContext) -> list[Target]:
    paths = ctx.paths
    module = row.module.strip()
    mod_item = _MOD_ITEM.search(module)
    # a `mod x;` inside cfg_if! comes as the bare `mod` token, its name as the alias
    mod_name = mod_item.group(1) if mod_item else (row.alias if module == "mod" and row.alias else None)
    if mod_name and "::" not in module:
        inline = _inline_mods(ctx, row.path, row.line)
        folder = posixpath.join(module_folder(row.path), *inline)
        found = _child(folder, mod_name, paths)
        decl = cfg_info(ctx, row.path)["mods"].get(row.line)
        if decl and decl[1] and not inline:  # #[path] or #[cfg_attr(.., path)]: beside the file
            named = posixpath.normpath(posixpath.join(posixpath.dirname(row.path), decl[1]))
            if named in paths:
                if not decl[2]:
                    return [Target(named, True, "mod_path")]
                return [Target(p, True, "rust_cfg") for p in dict.fromkeys([named, found]) if p]
        return [Target(found, True, "mod")] if found else []

    full = module  # a glob or `self` names the module itself
    if row.name and row.name not in ("*", "self"):
        full = f"{module}::{row.name}" if module else row.name
    segs = [s.strip() for s in full.split("::")]
    if not segs or not segs[0]:
        return EXTERNAL  # `::name` is always another crate

    first = segs[0]
    if first == "crate":
        root_file, folder = crate_root(row.path, paths)
        if root_file is None:
            root_file = _module_file_of(folder, paths)
        start, segs, strategy = (root_file, folder), segs[1:], "crate"
    elif first in ("self", "super"):
        ups = 0
        while segs and segs[0] in ("self", "super"):
            ups += segs[0] == "super"
            segs = segs[1:]
        # `use super::*` in `mod tests { ... }`: the inline modules around the line come first
        inline = len(_inline_mods(ctx, row.path, row.line))
        if ups < inline:
            return [Target(row.path, not segs, "relative")]
        current = (row.path, module_folder(row.path))
        for _ in range(ups - inline):
            parent = posixpath.dirname(current[1])
            if is_crate_root(current[0] or "") or parent == current[1]:
                return []
            current = (_module_file_of(parent, paths), parent)
        start, strategy = current, "relative"
    elif _child(module_folder(row.path), first, paths):
        start, strategy = (row.path, module_folder(row.path)), "relative"
    elif first in crates(ctx) and first not in _EXTERNAL_ROOTS:
        root_file = crates(ctx)[first]
        start, segs, strategy = (root_file, posixpath.dirname(root_file)), segs[1:], "crate_name"
    else:
        return EXTERNAL

    target, matched = _walk(start, segs, paths)
    if target is None:
        return []
    return [Target(target, matched == len(segs), strategy)]


def _inline_mods(ctx: ResolveContext, path: str, line: int) -> list[str]:
    """Names of the inline `mod x { ... }` blocks around `line` of `path`, outermost first."""
    spans = ctx.cache.setdefault("rust.inline_mods", {}).get(path)
    if spans is None:
        spans = ctx.cache["rust.inline_mods"][path] = _inline_mod_spans(ctx, path)
    return [name for start, end, name in spans if start <= line <= end]


def _inline_mod_spans(ctx: ResolveContext, path: str) -> list[tuple[int, int, str]]:
    text = ctx.read_text(path)
    if not text or not _INLINE_MOD.search(text):
        return []
    from memory_lsp.index import languages

    spans = []
    stack = [languages.parser("rust").parse(text.encode("utf-8")).root_node]
    while stack:
        node = stack.pop()
        if node.type == "mod_item" and node.child_by_field_name("body") is not None:
            name = node.child_by_field_name("name")
            spans.append((node.start_point[0] + 1, node.end_point[0] + 1,
                          name.text.decode("utf-8", "replace") if name else "_"))
        if node.type in ("source_file", "mod_item", "declaration_list"):
            stack.extend(node.named_children)
    spans.sort()
    return spans


def _walk(start: tuple[str | None, str], segs: list[str], paths: frozenset[str]) -> tuple[str | None, int]:
    """The module file named by the longest prefix of `segs` below module `start`, and its length.

    Longest first over the file layout (`a/b/C.rs`, `a/b/C/mod.rs`, `a/b.rs`, ...), so modules
    under an inline `mod a { mod b; }` are found too; no prefix: `start`'s own file.
    """
    file, folder = start
    for k in range(len(segs), 0, -1):
        found = _child(posixpath.join(folder, *segs[:k - 1]), segs[k - 1], paths)
        if found:
            return found, k
    return file, 0


# ---- conditional compilation: #[cfg(...)], #![cfg(...)], #[path], #[cfg_attr(.., path = ..)]

def cfg_info(ctx: ResolveContext, path: str) -> dict:
    """{"whole": file starts with #![cfg], "spans": [(start, end)] of items under #[cfg],
    "mods": {line of a `mod x;`: (name, path attribute or None, path only under a cfg)}}."""
    infos = ctx.cache.setdefault("rust.cfg", {})
    if path not in infos:
        infos[path] = _cfg_info(ctx.read_text(path) or "")
    return infos[path]


def _cfg_info(text: str) -> dict:
    info: dict = {"whole": False, "spans": [], "mods": {}, "plain": True}
    if "#[" not in text and "#![" not in text:
        return info  # no attribute: nothing in it is conditional (its `mod` lines are not needed)
    info["plain"] = False
    from memory_lsp.index import languages

    root = languages.parser("rust").parse(text.encode("utf-8")).root_node
    stack = [root]
    while stack:
        pending: list[str] = []
        for node in stack.pop().named_children:
            if node.type == "attribute_item":
                pending.append("".join(node.text.decode("utf-8", "replace").split()))
                continue
            if node.type == "inner_attribute_item":
                info["whole"] |= "".join(node.text.decode("utf-8", "replace").split()).startswith("#![cfg(")
                continue
            if any(a.startswith("#[cfg(") for a in pending) or _is_cfg_if(node):
                info["spans"].append((node.start_point[0] + 1, node.end_point[0] + 1))
            if _is_cfg_if(node):
                for line, name in _cfg_if_mods(node):
                    info["mods"][line] = (name, None, False)
            if node.type == "mod_item":
                body = node.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
                else:
                    name = node.child_by_field_name("name")
                    attr = next((a for a in pending if a.startswith(("#[path=", "#[cfg_attr("))
                                 and _PATH_ATTR.search(a)), None)
                    info["mods"][node.start_point[0] + 1] = (
                        name.text.decode("utf-8", "replace") if name else "",
                        _PATH_ATTR.search(attr).group(1) if attr else None,
                        bool(attr and attr.startswith("#[cfg_attr(")))
            pending = []
    return info


def _is_cfg_if(node) -> bool:
    """`cfg_if! { .. }` or `cfg_if::cfg_if! { .. }`: every item in it is under a cfg."""
    if node.type != "macro_invocation":
        return False
    macro = node.child_by_field_name("macro")
    if macro is not None and macro.type == "scoped_identifier":
        macro = macro.child_by_field_name("name")
    return macro is not None and macro.text == b"cfg_if"


def _cfg_if_mods(node) -> list[tuple[int, str]]:
    """(line, name) of each `mod name;` in a branch of a cfg_if! (tokens, as the tags query reads them)."""
    found = []
    for body in (c for c in node.children if c.type == "token_tree"):
        for branch in (c for c in body.children if c.type == "token_tree"):
            toks = branch.children
            for a, b, c in zip(toks, toks[1:], toks[2:]):
                if a.type == "mod" and b.type == "identifier" and c.type == ";":
                    found.append((a.start_point[0] + 1, b.text.decode("utf-8", "replace")))
    return found


def _line_gated(ctx: ResolveContext, path: str, line: int) -> bool:
    return any(start <= line <= end for start, end in cfg_info(ctx, path)["spans"])


def is_gated(ctx: ResolveContext, path: str | None) -> bool:
    """Whether `path` is compiled only under a cfg: its own #![cfg], or its `mod` declaration
    (found by the file layout, in the parent module file or an inline module of it) under one."""
    if path is None:
        return False
    known = ctx.cache.setdefault("rust.gated", {})
    if path not in known:
        known[path] = False  # a cycle of odd layouts ends here
        known[path] = _is_gated(ctx, path)
    return known[path]


def _is_gated(ctx: ResolveContext, path: str) -> bool:
    if cfg_info(ctx, path)["whole"]:
        return True
    if is_crate_root(path):
        return False
    folder = posixpath.dirname(path)
    name = posixpath.basename(folder) if posixpath.basename(path) == "mod.rs" else posixpath.basename(path)[:-3]
    folder = posixpath.dirname(folder) if posixpath.basename(path) == "mod.rs" else folder
    inline: list[str] = []
    while True:
        parent = _module_file_of(folder, ctx.paths)
        if parent is not None and parent != path:
            info = cfg_info(ctx, parent)
            if info["plain"] and module_folder(parent) == folder and not inline:
                return is_gated(ctx, parent)
            for line, (mod_name, _attr, _cfg_attr) in info["mods"].items():
                if mod_name == name and _inline_mods(ctx, parent, line) == inline:
                    return _line_gated(ctx, parent, line) or is_gated(ctx, parent)
            if module_folder(parent) == folder:
                return False  # the parent module file declares no such module here
        if not folder:
            return False
        inline.insert(0, posixpath.basename(folder))
        folder = posixpath.dirname(folder)
