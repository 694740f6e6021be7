"""What iterating or indexing a value gives, read from the file alone (index/returns.py's `Returns`
holds these as a part of its own): `for x in items` with `items: list[Foo]`, `for k, v in
table.items()`, `for i, x in enumerate(items)` (index/elements.py keeps the slots beside a name), `self.tags[key]`;
and for what another file's function returns or another class's attribute holds
(`self.treeprocessors = build_treeprocessors(self)`, then `for t in self.treeprocessors`), a mark of
its elements (`->build_treeprocessors[]`), which the graph reads from that function's `elementtype`
row (store/return_calls.py).
"""

from __future__ import annotations

import re

from memory_lsp.index import elements, exprtext, receivers

ELEMENT, RETURNED = receivers.ELEMENT, receivers.RETURNED
DOTTED = re.compile(r"[A-Za-z_][\w.]*").fullmatch
CYCLE = "\x00"  # a name whose type is being worked out: left out of the agreement (the other calls decide)
MAX_DEPTH = 64  # nested calls in one expression and hops between functions (a cycle stops at the memo)
_PAIRING = frozenset(("enumerate", "zip"))  # Python's functions whose items pair their arguments' elements
_NAMED = re.compile(r"(?:self\.)?[A-Za-z_]\w*").fullmatch  # a name, or an attribute of the instance


def _marks(typ: str | None) -> bool:
    """A mark of another file's function or attribute whose elements may be read: not of a call's result or elements."""
    return bool(typ) and typ.startswith(RETURNED) and not typ.endswith((")", ELEMENT))


class Iterated:
    """The element and item reading of index/returns.py's `Returns`: it gives `scopes`, `annotation`,
    `rules`, `defined`, `expr`, `_called` and `_string_method`."""

    def elements(self, func: str) -> str | None:
        """What iterating what `func` returns gives, by its annotation (`-> util.Registry[Treeprocessor]`)."""
        text = self.annotation.get(func) if self.rules is receivers else None
        return receivers.element_type(text) if text else None

    def element(self, text: str, chain: list, cls: str | None, depth: int = 0) -> str | None:
        """What iterating `text` yields (`for x in text`): the elements of a name or `self.x`
        annotated `list[Foo]`, or of a call of this file's function annotated `-> Iterator[Foo]`;
        for a tuple target's name (`for k, v in text`: its slot first), that slot of each element,
        or of a mapping's `items()` (index/elements.py)."""
        slot, text = elements.split_slot(text)
        if _NAMED(text):
            return self._beside(text, ELEMENT + slot, chain, cls) or (None if slot else (  # a mapping's keys
                self._beside(text, elements.MAPPING + "0", chain, cls) or self._marked(text, chain, cls)))
        call = exprtext.split_call(text)
        if call is None and not slot and DOTTED(text):  # `for p in md.treeprocessors`
            return self._marked(text, chain, cls)
        owner, view = exprtext.split_attr(call[0]) if call and not call[1].strip() else ("", "")
        if view in elements.VIEWS and _NAMED(owner) and (elements.VIEWS[view] is None) == bool(slot):
            return self._beside(owner, elements.MAPPING + (elements.VIEWS[view] or slot), chain, cls)
        # `for i, x in enumerate(items)`: x an element of items; `for a, b in zip(xs, ys)`: of xs, of ys
        pairing = call and call[0] in _PAIRING and (None, call[0]) not in self.defined  # Python's, not a namesake here
        args = elements.type_args(call[1]) if pairing and slot and depth <= MAX_DEPTH else []
        at = int(slot[0]) - (call[0] == "enumerate") if args else -1  # (enumerate's `start` is no iterable)
        if 0 <= at < len(args) and (call[0] == "zip" or at == 0) and "=" not in args[at]:
            return self.element((elements.SLOT + slot[1:] if slot[1:] else "") + args[at], chain, cls, depth + 1)
        if slot:
            return None
        func, made = self._called(call[0], chain, cls, depth + 1) if call and depth <= MAX_DEPTH else (None, None)
        if func in self.annotation:
            return receivers.element_type(self.annotation[func])
        if _marks(made):  # `for t in build_treeprocessors(md)`: what iterating another file's function's result gives
            return made + ELEMENT
        # `for part in value.split(",")`, `head, _, tail = value.partition(";")`: a string's parts are strings
        return made if made == "builtin" and self._string_method(exprtext.split_attr(call[0])[1]) else None

    def _marked(self, text: str, chain: list, cls: str | None) -> str | None:
        """What iterating or indexing a name, `self.x` or `x.a` gives when it holds what another file's function
        returns or another class's attribute is (`self.treeprocessors = build_treeprocessors(self)`): a mark of
        its elements (`->build_treeprocessors[]`), which the graph reads from the function's `elementtype` row."""
        typ = receivers.rtype(self.scopes, chain, cls, "", text, False, self)
        return typ + ELEMENT if _marks(typ) else None

    def item(self, text: str, chain: list, cls: str | None) -> str | None:
        """What `x[k]` is (`self.tags[key].to_python()`): a value of a name or `self.x` annotated
        as a mapping (`dict[str, Foo]`), an element of one annotated as a list (`list[Foo]`), or of
        what another file's function returns or another class's attribute holds (`_marked`); a
        slice of a list is no element."""
        split = exprtext.split_subscript(text)
        if split is not None and ":" in exprtext.top_split(split[1], ",")[0]:  # a slice: of Python's value, the same
            typ = self.expr(split[0], chain, cls) if self.rules is receivers and split[0].isidentifier() else None
            return typ if typ in ("builtin", CYCLE) else None
        if split is None or not DOTTED(split[0]):
            return None
        if not _NAMED(split[0]):  # `parser.blocks[0]`
            return self._marked(split[0], chain, cls)
        return self._beside(split[0], elements.MAPPING + "1", chain, cls) or self._beside(split[0], ELEMENT, chain, cls) \
            or self._marked(split[0], chain, cls)

    def _beside(self, name: str, suffix: str, chain: list, cls: str | None) -> str | None:
        """What the scopes keep beside a name or `self.x` (its elements, a slot of them)."""
        hit = self.scopes.lookup(chain, name + suffix) if name.isidentifier() else \
            self.scopes.lookup([cls], name + suffix) or self.scopes.lookup([cls], name[5:] + suffix)
        return hit[1] if hit and hit[1] != receivers.CONFLICT else None
