"""A module-level alias is an import of what it names: `s = attributes = attrs` in attr's __init__,
after `from ._make import attrs`, binds `s` and `attributes` exactly as `from ._make import attrs
as s` would (CPython: `attr.s is attr._make.attrs`); `frozen = partial(define, ...)` calls define.

Each alias becomes the import row that binding is (the resolvers and the call resolution then
treat it as any import: `attr.s(...)` elsewhere resolves through it, re-exported or not); an alias
of the file's own function is an import of the file itself (`from ._next_gen import define as
frozen`). Only a name the file imports from a module or defines at its top level, or a module's
function as imported (`join = os.path.join` after `import os.path`; not `x.y` of an imported
object, which no resolver finds); a name bound twice at the top level, or also defined or
imported there, is left alone.
"""

from __future__ import annotations

import posixpath

from memory_lsp.index.facts import Import

PARTIAL = ("partial", "functools.partial")  # `f = partial(g, ...)`: calling f calls g


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _chain(node) -> tuple[list[str], object] | None:
    """`a = b = value` (nested assignments) -> ([a, b], value node), names only."""
    names = []
    while node is not None and node.type == "assignment":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or left.type != "identifier" or right is None or node.child_by_field_name("type"):
            return None
        names.append(_text(left))
        node = right
    return (names, node) if node is not None else None


def _named(value) -> str | None:
    """The dotted name an alias's value is: `attrs`, `_make.attrs`, the function `partial` wraps."""
    if value.type in ("identifier", "attribute"):
        text = _text(value)
        return text if all(part.isidentifier() for part in text.split(".")) else None
    if value.type == "call" and _text(value.child_by_field_name("function")) in PARTIAL:
        args = value.child_by_field_name("arguments")
        first = next((a for a in args.named_children if a.type != "comment"), None) if args else None
        return _named(first) if first is not None and first.type in ("identifier", "attribute") else None
    return None


def alias_imports(path: str, assignments: list, imports: list[Import], top_level: set[str]) -> list[Import]:
    """The import rows module-level `assignments` (tree-sitter assignment nodes) amount to."""
    found: dict[str, tuple[int, str]] = {}
    seen: dict[str, int] = {}
    for node in assignments:
        chain = _chain(node)
        value = _named(chain[1]) if chain else None
        for name in chain[0] if chain else ():
            seen[name] = seen.get(name, 0) + 1
            if value and name != value and not name.startswith("__") and not value.rpartition(".")[2].startswith("__"):
                found[name] = (node.start_point[0] + 1, value)
    # a binding -> what an import binds it to: ("from", module, name) for `from m import x`, ("module",
    # m) for `import m as x`, ("modules", {"a.b", ...}) for `import a.b` (binding a)
    bound: dict[str, tuple] = {}
    for row in imports:
        if row.name == "*":
            continue
        if row.name:
            bound[row.alias or row.name] = ("from", row.module, row.name)
        elif row.alias:
            bound[row.alias] = ("module", row.module)
        else:
            top = row.module.split(".")[0]
            mods = bound[top][1] if bound.get(top, ("",))[0] == "modules" else set()
            bound[top] = ("modules", mods | {row.module})
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    own = "." if stem == "__init__" else "." + stem
    out = []
    for name, (line, value) in found.items():
        if seen[name] > 1 or name in top_level or name in bound:
            continue
        first, *rest = value.split(".")
        how = bound.get(first)
        target = None
        if how is None:
            target = (own, first) if first in top_level and not rest else None  # the file's own function
        elif how[0] == "from":
            target = (how[1], how[2]) if not rest else None  # `x.y` of an imported object: not an import
        elif how[0] == "module":
            target = (how[1], rest[0]) if len(rest) == 1 else None  # `import m as x`: `x.f` is m's f
        elif rest and ".".join([first, *rest[:-1]]) in how[1]:
            target = (".".join([first, *rest[:-1]]), rest[-1])  # `import a.b`: `a.b.f` is a.b's f
        if target is not None:
            out.append(Import(line, target[0], target[1], name))
    return out


# what a module-level value holds for its module's code to call later: structlog's `_BUILTIN_DEFAULT_PROCESSORS
# = [merge_contextvars, add_log_level, ...]`, a dict of handlers; not an alias (`s = attrs`: an import, above)
_HOLDING = {"list", "tuple", "set", "dictionary", "pair", "argument_list", "keyword_argument", "call",
            "parenthesized_expression", "expression_list", "conditional_expression", "boolean_operator"}


def held_values(assignments: list, known: set[str]) -> list[tuple]:
    """The functions and classes module-level `assignments` hold inside a container or a call's
    arguments, as call references of the module (start byte, "call", name, receiver, line, receiver):
    whatever the module's code later takes from the value runs them. Only names `known` (the file's
    top-level definitions and import bindings) or attributes of them: a plain variable is no reference."""
    out: list[tuple] = []
    for node in assignments:
        value = node
        while value is not None and value.type == "assignment":
            value = value.child_by_field_name("right")
        if value is None or value.type not in _HOLDING or _named(value) is not None:  # `partial(f, ...)`: an alias
            continue
        stack = [value]
        while stack:
            item = stack.pop()
            if item.type == "call":  # the call is a reference already: what it is handed is held
                stack += [a for a in (item.child_by_field_name("arguments"),) if a is not None]
            elif item.type == "pair" or item.type == "keyword_argument":
                stack += [v for v in (item.child_by_field_name("value"),) if v is not None]
            elif item.type in _HOLDING:
                stack += item.named_children
            elif item.type in ("identifier", "attribute"):
                named = _held_name(item)
                if named is not None and (named[0] or named[1]).split(".")[0] in known:
                    out.append((item.start_byte, "call", named[1], named[0], item.start_point[0] + 1, named[0]))
    return out


def _held_name(node) -> tuple[str | None, str] | None:
    """(receiver, name) of a dotted name that is no dunder and no constant-looking name."""
    text = _text(node)
    receiver, _, name = text.rpartition(".")
    if not all(p.isidentifier() for p in text.split(".")) or name.startswith("__") or name.isupper():
        return None
    return receiver or None, name
