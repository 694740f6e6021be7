"""A Python function's classes handed on by name, as its `call` rows: `map(Pattern, lines)`,
`Thread(target=Worker)`, `factory = Pattern` (then handed on: pathspec's `GitIgnoreSpec.from_lines`).
Whoever takes the class calls it, so it runs where the function runs (test selection walks the edge,
graph/tests_reach.py) and the function depends on it (impact). Without the row, pathspec's tests doing
`list(map(GitWildMatchPattern, lines))` were not selected for the pattern's file (recall 0.8).

Only a name written as a class is (`Pattern`, `util.Pattern`; not `PATTERN`, `None`) that the file
defines at its top level or imports (`known_names`): a lowercase name is a local's, a variable's or a
function's, and an imported variable's row, unresolved, would be a test's blind call through its
module (store/test_reads.py: marshmallow's `bool(missing)` selected 8 more files); a function handed
on (`key=by_name`) is no row yet. Inside a function: module-level code runs at import, and a class
body's `response_class = Response` is a dispatch (graph/tests_through.py). Found in the text, as
index/reads.py finds reads (a query matching every argument cost ~2.8 s on the stdlib; this ~0.7 s of
~26 s of extraction): an argument (`(` or `,` before, `,` or `)` after) of a call whose callee may call
it (`isinstance(x, Foo)`, `super(Foo, self)`, `patch.object(Foo, "m")` run nothing of Foo), or an
assignment's whole right side; not in a triple-quoted string, after a comment's `#`, in a tuple or a
list (`except (A, B)`, `isinstance(x, (A, B))`), nor a class's bases.
"""

from __future__ import annotations

import re

from memory_lsp.index.facts import FileFacts, Import, Ref, Symbol
from memory_lsp.index.reads import _class_of, _innermost_by_line, _triple_quoted

# callees that look at what they are handed without calling it
LOOKING = frozenset(("isinstance", "issubclass", "super", "type", "cast", "getattr", "hasattr", "setattr",
                     "delattr", "id", "repr", "str", "print", "hash", "vars", "dir", "callable", "len", "object",
                     "patch", "raises", "warns", "TypeVar", "NewType", "assert_type", "reveal_type", "Annotated",
                     "deprecated", "property", "staticmethod", "classmethod"))
FUNCTIONS = ("function", "method")
LOOK_BACK = 300  # bytes looked back over for a call's open parenthesis
_NAME = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_."
_OPENER = rb"([(,=])\s*"  # `(`, `,`, `=` (an assignment's or a keyword's), then white space or new lines
_OPERATOR = tuple(bytes([c]) for c in b"=!<>+-*/%&|^@:")  # before an `=` that assigns nothing
_CLOSER = rb"(?![\w.])[ \t]*(?=[,)#;]|\r?\n|$)"  # then `,`, `)` or the line's end
# a class's name after an opener, or a module's `util.Pattern`: a name starting lowercase (most arguments) fails at once
_CLASS = re.compile(_OPENER + rb"((?!None\b|True\b|False\b)[A-Z]\w*|[a-z_]\w*\.[A-Z]\w*)" + _CLOSER)


def known_names(symbols: list[Symbol], imports: list[Import]) -> set[str]:
    """The names a handed class's may start with: the file's top-level definitions and what it imports by name
    (`from x import Pattern`, `from . import util` for `util.Pattern`; not `import os`)."""
    return {s.name for s in symbols if s.parent is None and s.kind in FUNCTIONS + ("class",)} | \
        {i.alias or i.name for i in imports if i.name and i.name != "*"}


def handed_names(data: bytes, facts: FileFacts) -> list[Ref]:
    """The `call` rows of one Python file's handed names (its definitions nested, its imports read: extract.py)."""
    known = known_names(facts.symbols, facts.imports)
    matches = [m for m in _CLASS.finditer(data) if m.group(2).partition(b".")[0].decode() in known
               and not m.group(2).rpartition(b".")[2].isupper()] if known else []  # not a local's, no constant
    if not matches:
        return []
    owner = _innermost_by_line(facts.symbols, data.count(b"\n") + 2)
    by_qual = {s.qualname: s for s in facts.symbols}
    quoted = _triple_quoted(data)
    found: dict[tuple, Ref] = {}
    q, line, last = 0, 1, 0
    for m in matches:
        at, opener = m.start(2), m.group(1)
        if opener == b"=" and data[m.start(1) - 1:m.start(1)] in _OPERATOR:
            continue  # `x == Foo`, `x += Foo`
        while q < len(quoted) and quoted[q][1] <= at:
            q += 1
        if q < len(quoted) and quoted[q][0] <= at:
            continue  # a docstring's prose
        line += data.count(b"\n", last, at)
        last = at
        s = owner[line]
        if s is None or s.kind not in FUNCTIONS or 0 <= data.find(b"#", data.rfind(b"\n", 0, at) + 1, at):
            continue
        if not (opener == b"=" and _alone_after(data, m.end(2)) or _handed_to_a_call(data, m.start(1))):
            continue  # `x = Foo, Bar`; a type check's or a tuple's
        receiver, _, name = m.group(2).decode().rpartition(".")
        key = (s.qualname, name, receiver or None)
        if key not in found:
            found[key] = Ref("call", s.qualname, _class_of(s, by_qual, ("class",)), name, receiver or None, line)
    return list(found.values())


def _alone_after(data: bytes, at: int) -> bool:
    """The assignment's value ends at `at`: the line ends (or a comment or `;` starts) there."""
    rest = data[at:data.find(b"\n", at) if data.find(b"\n", at) >= 0 else len(data)].strip()
    return not rest or rest[:1] in (b"#", b";")


def _handed_to_a_call(data: bytes, at: int) -> bool:
    """Whether the `(` or `,` at `at` opens or separates the arguments of a call that may call what it is
    handed: its open parenthesis (looked back for over LOOK_BACK bytes) follows a callee's name or a call's
    result, and the callee looks at nothing (LOOKING) and is no `class` statement."""
    depth, i, low = 0, at, max(0, at - LOOK_BACK)
    while i >= low:
        c = data[i]
        if c in b")]}":
            depth += 1
        elif c in b"([{":
            if depth == 0:
                break
            depth -= 1
        i -= 1
    else:
        return False
    if data[i] != ord("("):
        return False  # a list, a dict or a set of them
    head = data[max(0, i - LOOK_BACK):i].rstrip(b" \t")
    callee = head[len(head.rstrip(_NAME)):]
    if not callee:
        return head[-1:] in (b")", b"]")  # a call's result called: `make()(Foo)`
    before = head[:len(head) - len(callee)].rstrip(b" \t")
    return callee.rsplit(b".", 1)[-1].decode() not in LOOKING and not before.endswith(b"class")
