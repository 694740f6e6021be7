"""A Python function's reads of an attribute (`request.accept_languages`, `handler=self.on_close`):
what runs a property, or hands a method on, without a call. Test selection asks which functions
read a method's name (graph/tests_read.py): a property runs where it is read, not wherever its
class is made.

Found in the text, not by the tags query: a query match per attribute cost ~2.6 s of CPU on the
stdlib (375,000 matches, each checked against its parent), a query for the docstrings alone ~1.9 s,
this scan ~0.8 s (of ~17 s of extraction). A read is `.name` after a name, `)` or `]`, not followed
by more of a name or by `(` (a call is a `call` row), in a function or a class: module-level code
runs at import, whoever imports it. Not in a triple-quoted string (a docstring's prose), after a
comment's `#`, on an import line or of a quoted dotted name (`"os.path"`); a read written in
another string counts (an f-string's `{x.name}` is one): a step more for test selection. One
`attr` row per reader, name and receiver (`self` or `cls`, else none), at its first line; no
dunders (`__name__`: store/module_getattr.py reads those) and no capitalised names (`ast.Name`:
classes, constants). The rows take no resolution pass, and an edit that changes only them (and
moves lines) keeps its edges (store/moved_lines.py).
"""

from __future__ import annotations

import re

from memory_lsp.index.facts import Ref, Symbol

_READ = re.compile(rb"\.([a-z_][A-Za-z0-9_]*)(?![\w(])")
_AFTER = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_)]")
_NAME = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_."
_SELF_END = b"fs"  # how `self` and `cls` end
MAX_CHAIN = 200  # a dotted name longer than this before a read is not looked back over for a quote


def attribute_reads(data: bytes, symbols: list[Symbol], class_kinds: tuple[str, ...]) -> list[Ref]:
    """The `attr` rows of one Python file (`symbols`: its definitions, as extract.py nests them)."""
    if not symbols:
        return []
    owner = _innermost_by_line(symbols, data.count(b"\n") + 2)
    by_qual = {s.qualname: s for s in symbols}
    quoted = _triple_quoted(data)
    found: dict[tuple, Ref] = {}
    # the line of the read, where it starts and ends, its comment's `#` and whether it imports: each
    # worked out once per line, so that a file of one long line (generated code) costs its length once
    line, last, q, start, end, comment, imports = 1, 0, 0, 0, -1, -1, False
    for m in _READ.finditer(data):
        at = m.start()
        if at == 0 or data[at - 1] not in _AFTER:
            continue
        name = m.group(1)
        if name.startswith(b"__") and name.endswith(b"__"):
            continue
        while q < len(quoted) and quoted[q][1] <= at:
            q += 1
        if q < len(quoted) and quoted[q][0] <= at:
            continue  # a docstring's prose (`werkzeug.middleware`)
        if at > end:  # a line not seen yet
            line += data.count(b"\n", last, at)
            newline = data.rfind(b"\n", last, at)
            start = newline + 1 if newline >= 0 else start
            end = data.find(b"\n", at)
            end = len(data) if end < 0 else end
            comment = data.find(b"#", start, end)
            imports = data[start:start + 200].lstrip().startswith((b"from ", b"import "))
        last = at
        s = owner[line]
        if s is None or imports or 0 <= comment < at or _quoted_name(data, start, at):
            continue
        receiver = _self_before(data, at) if data[at - 1] in _SELF_END else None
        key = (s.qualname, name, receiver)
        if key not in found:
            found[key] = Ref("attr", s.qualname, _class_of(s, by_qual, class_kinds), name.decode(), receiver, line)
    return list(found.values())


def _triple_quoted(data: bytes) -> list[tuple[int, int]]:
    """The spans of the triple-quoted strings (docstrings), in order: each opening quote to the next
    of its kind (a quote inside another string's text is taken for one: a read more or less)."""
    spans, at = [], 0
    double, single = data.find(b'"""'), data.find(b"'''")  # two scans for a literal: a regex of both was slower
    while double >= 0 or single >= 0:
        start, quote = (double, b'"""') if single < 0 or 0 <= double < single else (single, b"'''")
        end = data.find(quote, start + 3)
        at = len(data) if end < 0 else end + 3
        spans.append((start, at))
        double = data.find(b'"""', at) if double >= 0 else -1
        single = data.find(b"'''", at) if single >= 0 else -1
    return spans


def _quoted_name(data: bytes, start: int, at: int) -> bool:
    """Whether the read at `at` (its line starting at `start`) is of a dotted name in quotes (`"os.path"`,
    :meth:`x.y`): the name's chain, looked back over at most MAX_CHAIN bytes, opens with a quote."""
    head = data[max(start, at - MAX_CHAIN):at].rstrip(_NAME)
    return head[-1:] in (b'"', b"'", b"`")


def _self_before(data: bytes, at: int) -> str | None:
    """`self` or `cls` when the read at `at` is from it (`self.x`, not `myself.x` or `a.self.x`)."""
    for word in ("self", "cls"):
        start = at - len(word)
        if start >= 0 and data[start:at] == word.encode() and (start == 0 or data[start - 1] not in _NAME):
            return word
    return None


def _innermost_by_line(symbols: list[Symbol], lines: int) -> list[Symbol | None]:
    """Per line (from 1), the innermost definition around it: each one written over its lines
    after those around it (a nested definition starts later, or on the same line and ends sooner)."""
    owner: list[Symbol | None] = [None] * (lines + 1)
    for s in sorted(symbols, key=lambda s: (s.start_line, -s.end_line)):
        end = min(s.end_line, lines)
        owner[s.start_line:end + 1] = [s] * (end + 1 - s.start_line)
    return owner


def _class_of(s: Symbol, by_qual: dict[str, Symbol], class_kinds: tuple[str, ...]) -> str | None:
    """The class a definition is in (itself for a class): a method's `self`."""
    while s is not None and s.kind not in class_kinds:
        s = by_qual.get(s.parent) if s.parent else None
    return s.qualname if s is not None else None
