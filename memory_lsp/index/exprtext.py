"""Reading an expression's text as written: where a call's arguments start, the last attribute,
the parts of a list outside brackets, the class of `type[Foo]`, the lines an isinstance check holds
for. Shared by the receiver rules of every language (index/receivers*.py, index/returns.py,
index/elements.py) and index/extract.py."""

from __future__ import annotations

import functools
import re


def top_split(text: str, sep: str, angle: bool = False) -> list[str]:
    """`text` split at `sep` outside brackets; with `angle`, TypeScript's `<>` too (`A<B | C> | D`
    -> ["A<B | C>", " D"])."""
    opening, closing = ("<([{", ">)]}") if angle else ("([{", ")]}")
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing and not (ch == ">" and text[i - 1: i] == "="):  # `=>` closes nothing
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def from_end(text: str):
    """(index, character, bracket depth after it) from the last character back: a closing
    bracket opens a level, an opening one closes it."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            depth -= 1
        yield i, ch, depth


def split_call(text: str) -> tuple[str, str] | None:
    """`a.b(x).c(y, z)` -> ("a.b(x).c", "y, z"): the callee and the arguments of the outer call."""
    return _split_outer(text, "(", ")")


def split_subscript(text: str) -> tuple[str, str] | None:
    """`self.tags[key]` -> ("self.tags", "key"): the value and the index of the outer subscript."""
    return _split_outer(text, "[", "]")


def _split_outer(text: str, opening: str, closing: str) -> tuple[str, str] | None:
    """(what comes before the last bracket pair, what is inside it) when `text` ends with one."""
    if not text.endswith(closing):
        return None
    for i, ch, depth in from_end(text):
        if ch in "([{" and depth == 0:
            return (text[:i].strip(), text[i + 1:-1]) if ch == opening and i else None
    return None


def split_attr(callee: str) -> tuple[str, str]:
    """`self._chain().filter` -> ("self._chain()", "filter"); `f` -> ("", "f")."""
    for i, ch, depth in from_end(callee):
        if ch == "." and depth == 0:
            return callee[:i].strip(), callee[i + 1:].strip()
    return "", callee


_WORDS = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[()\[\]{}]|\b(?:or|if|else|lambda)\b)""")


def either_values(text: str) -> list[str]:
    """The values `a or b` and `a if c else b` can be (the condition left out; a nested one's too),
    split outside brackets and strings; [] when a lambda makes the reading unsure."""
    values, depth, start, condition = [], 0, 0, False
    for m in _WORDS.finditer(text):
        word = m.group(0)
        if word in "([{" and len(word) == 1:
            depth += 1
        elif word in ")]}" and len(word) == 1:
            depth -= 1
        elif depth == 0 and word in ("or", "if", "else") and not (condition and word == "or"):
            if not condition:
                values.append(text[start:m.start()].strip())
            condition, start = word == "if", m.end()
        elif depth == 0 and word == "lambda":
            return []
    values.append(text[start:].strip())
    return [v for v in values if v]


_NO_CLASS = frozenset(("None", "True", "False", "NotImplemented", "Ellipsis"))
_CLASS_NAME = re.compile(r"(?:[a-z_]\w*\.)*_?[A-Z]\w*[a-z]\w*")  # `Foo`, `core.TyperCommand`; not a CONSTANT, not `self.x`


def either_class(text: str) -> str | None:
    """The one class named outright among the values `a or b` can be (`info.cls or TyperCommand`): the
    value's class when the others are what the file cannot read, so a call of the name makes one; else None."""
    named = {v for v in either_values(text) if _CLASS_NAME.fullmatch(v) and v not in _NO_CLASS
             and not v.startswith(("self.", "cls."))}
    return named.pop() if len(named) == 1 else None


_STEP = re.compile(r"^((?:this\s*\.\s*)?[A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)\b")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def first_step(receiver: str) -> tuple[str, str, bool] | None:
    """A receiver read from its start (Java, TypeScript): `x.f(...)`, `this.x.f`, `Foo.make()` ->
    (root, step, whether the step is all there is after the root: `a.b().c()` has more)."""
    m = _STEP.match(receiver)
    if m is None:
        return None
    rest = receiver[m.end():].strip()
    if rest.startswith("("):
        call = top_split(rest, ".")
        rest = "".join(call[1:]) if call[0].endswith(")") and len(call) > 1 else ("" if call[0].endswith(")") else rest)
    return m.group(1), m.group(2), not rest


def own_call(receiver: str) -> str | None:
    """`make(...)` and nothing more: make (a function or method the caller sees by name); not
    `make()(x)`, a call of what make returns."""
    call = split_call(receiver)
    return call[0] if call and _NAME.fullmatch(call[0]) else None


def strip_generic(name: str) -> str:
    """`Stack<T>`, `List[int]` -> the name before its type arguments."""
    return name.split("<", 1)[0].split("[", 1)[0].strip()


_OWNER_PREFIX = re.compile(r"^(?:[*&\s]|'\w+\s*|mut\s|dyn\s)+")


def owner_name(text: str) -> str:
    """`*Stack[T]`, `&'a mut Foo<T>`, `fmt::Foo` -> the bare type name."""
    return re.split(r"::|\.", strip_generic(_OWNER_PREFIX.sub("", text)))[-1].strip()


_OPTIONAL = re.compile(r"^(?:typing\.|t\.)?Optional\[(.*)\]$", re.S)
_TYPE_OF = re.compile(r"^(?:typing\.|t\.)?(?:Type|type)\[\s*['\"]?([A-Za-z_][\w.]*)(?:\[.*\])?['\"]?\s*\]$", re.S)


def class_of_type(annotation: str) -> str | None:
    """Foo of a Python annotation `type[Foo]` (also `Type['Foo']`, `type[Foo] | None`,
    `Optional[type[Foo]]`, `type[Foo[str, str]]`): what the value is the class of; else None."""
    t = annotation.strip()
    if m := _OPTIONAL.match(t):
        t = m.group(1).strip()
    kept = [p.strip() for p in top_split(t, "|") if p.strip() not in ("None", "")] if "|" in t else [t]
    m = _TYPE_OF.match(kept[0]) if len(kept) == 1 else None
    return m.group(1) if m else None


@functools.lru_cache(maxsize=256)
def rebinding_line(name: str) -> re.Pattern:
    """A line that binds `name` again: an assignment whose targets name it (`x = ...`, `x, y = ...`,
    `x: T = ...`; not `self.x = ...`), a `for` over it, `as x`, `x :=`. A keyword argument `f(x=1)` reads as one too:
    the narrowing ends early, which types less, never wrongly."""
    n = re.escape(name)
    target = r"[\w\s,.()\[\]*]*"
    return re.compile(rf"^\s*{target}(?<!\.)\b{n}\b(?![.\[]){target}(?::[^=]*)?(?<![=!<>])=(?!=)|\bfor\b[^:]*\b{n}\b[^:]*\bin\b"
                      rf"|\bas\s+{n}\b|\b{n}\s*:=")


def narrowed_until(lines: list[bytes], name: str, first: int, last: int) -> int:
    """The last line of `first`..`last` an isinstance check still says what `name` is: the line
    before `name` is bound again (`md = self.storage_class(...)` after `assert isinstance(md, dict)`),
    or that line itself when an assignment binds it, whose right side reads the checked value first
    (webob's `expires = (expires - expires.utcoffset()).replace(tzinfo=None)`)."""
    rebinding = rebinding_line(name)
    for line in range(first + 1, min(last, len(lines)) + 1):
        found = rebinding.search(lines[line - 1].decode("utf-8", "replace"))
        if found:
            return line if "=" in found.group(0) and ":=" not in found.group(0) else line - 1
    return last
