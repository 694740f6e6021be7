"""Classes made by `type(name, (Base,), ns)`: a module-level `X = type("X", (Base, Mixin), ns)`,
and `X = make(...)` where a function of the file returns such a call (structlog's
`BoundLoggerFilteringAtInfo = _make_filtering_bound_logger(INFO)`, made on BoundLoggerBase). Each is
a class of the index at its assignment, inheriting those bases (index/extract.py: tags.scm finds
the makers, extract.py keeps the module-level assignments)."""

from __future__ import annotations


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def bases(classes) -> list:
    """The names and attributes in a `type()` call's tuple of bases."""
    return [c for c in classes.named_children if c.type in ("identifier", "attribute")]


def made_class(node, makers: dict[str, list[str]]) -> tuple[str, list[tuple]] | None:
    """The module-level assignment `node` as such a class: (X, its inherit rows as extract.py
    keeps them: start byte, X, base, line), else None. `makers`: function -> the bases it makes."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    callee = right.child_by_field_name("function") if right is not None and right.type == "call" else None
    if left.type != "identifier" or callee is None or callee.type != "identifier":
        return None
    name, made_by = _text(left), _text(callee)
    if made_by in makers:
        return name, [(right.start_byte, name, base, node.start_point[0] + 1) for base in makers[made_by]]
    args = [a for a in right.child_by_field_name("arguments").named_children if a.type != "comment"]
    if made_by != "type" or len(args) < 2 or args[1].type != "tuple":
        return None
    return name, [(b.start_byte, name, _text(b), b.start_point[0] + 1) for b in bases(args[1])]
