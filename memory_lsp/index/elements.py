"""What iterating an annotated container gives (`list[Foo]`, and a class of one type argument,
`Registry[Foo]`: `element_text`), slot by slot: `for k, v in pairs` with `pairs:
list[tuple[Key, Item]]` binds k to Key and v to Item; `for name, item in table.items()` with `table:
dict[str, Item]` binds item to Item (`.values()` gives the values, `.keys()` and the mapping itself
the keys); `for i, x in enumerate(items)` and `for a, b in zip(xs, ys)` bind x, a and b to elements
of the arguments, `for i, (k, v) in enumerate(pairs)` k and v to the slots of pairs' elements.
index/receivers.py keeps these types beside the annotated name (`pairs[]0`, `table{}1`);
index/iterated.py reads them for a name bound by a `for` (a tuple target's names carry their slot,
`10` for the first name of a tuple in the second place).
"""

from __future__ import annotations

import re

from memory_lsp.index import exprtext

# what holds one type without being it (`Optional[Foo]`), and what is iterated as a container of its argument
WRAPPERS = re.compile(r"^(?:typing\.|t\.)?(?:Optional|Final|ClassVar|Annotated|Type|type)\[(.*)\]$", re.S)
_ITERABLES = re.compile(r"^(?:[\w.]+\.)?(?:Iterator|Iterable|Generator|AsyncIterator|AsyncIterable|AsyncGenerator|"
                        r"list|List|Sequence|MutableSequence|set|Set|frozenset|FrozenSet|Collection|Deque|deque)\[(.*)\]$", re.S)
# a class of one type argument (markdown's `util.Registry[Treeprocessor]`, whose `__iter__` gives `_T`): iterated or
# indexed, that argument, as a container's; not Python's forms that hold no elements
_GENERIC = re.compile(r"^([A-Za-z_][\w.]*)\[(.*)\]$", re.S)
_NO_ELEMENTS = frozenset(
    "Awaitable Coroutine Future Task ContextManager AsyncContextManager AbstractContextManager Type type Literal "
    "ContextVar ReferenceType ref cached_property partial TypeGuard TypeIs Required NotRequired ReadOnly Unpack "
    "Concatenate Callable Union Optional Annotated ClassVar Final".split())
SLOT = "\x1c"  # in an element binding, before the slot of a tuple target's name (`for k, v in x`: 0, 1)
MAPPING = "{}"  # after a name: its mapping's keys (0) and values (1)
_MAPPINGS = re.compile(r"^(?:[\w.]+\.)?(?:dict|Dict|Mapping|MutableMapping|OrderedDict|DefaultDict|defaultdict)"
                       r"\[(.*)\]$", re.S)
_TUPLES = re.compile(r"^(?:typing\.|t\.)?(?:tuple|Tuple)\[(.*)\]$", re.S)
VIEWS = {"items": None, "values": "1", "keys": "0"}  # a mapping's method -> the slot it iterates (None: both)
# the bind kinds of tags.scm's tuple targets -> their slot, a slot of a slot for a tuple in a tuple
TARGET_SLOTS = {"first": "0", "second": "1", "second_first": "10", "second_second": "11"}


def split_slot(text: str) -> tuple[str, str]:
    """(the slot, the iterated text) of an element binding's text (`slot_of`'s prefix, then the text)."""
    if not text.startswith(SLOT):
        return "", text.strip()
    digits = len(text) - 1 - len(text[1:].lstrip("0123456789"))
    return text[1:1 + digits], text[1 + digits:].strip()


def slot_of(kind: str) -> str:
    """What a binding of `kind` ("iter", or a tuple target's "first" or "second") puts before the iterated text."""
    return SLOT + TARGET_SLOTS[kind] if kind in TARGET_SLOTS else ""


def type_args(text: str) -> list[str]:
    """`Key | None, dict[str, Item]` -> the two, split at the commas outside brackets."""
    return [a.strip() for a in exprtext.top_split(text, ",") if a.strip()]


def slots(annotation: str, element: str | None, element_suffix: str, annotation_type) -> dict[str, str]:
    """Suffixes to keep beside a name annotated `annotation` -> the class each slot is (or "builtin",
    Python's: `dict[str, list]`'s values): a tuple
    element's (`element`: the text iterating gives, if any) after `element_suffix`, a mapping's
    keys and values after MAPPING. `annotation_type` reads one type as written."""
    out = {}
    tuple_of = _TUPLES.match(element.strip()) if element else None
    mapping = _MAPPINGS.match(annotation.strip().strip("'\""))
    for suffix, match in ((element_suffix, tuple_of), (MAPPING, mapping)):
        args = type_args(match.group(1)) if match else []
        for i, arg in enumerate(args[:2] if suffix == element_suffix or len(args) == 2 else ()):
            typ = annotation_type(arg)
            if typ:
                out[suffix + str(i)] = typ
    return out


def element_text(text: str) -> str | None:
    """`list[Foo]`, `Optional[Sequence[tuple[A, B]]]`, `util.Registry[Foo]` -> what iterating it yields, as written."""
    t = text.strip().strip("'\"").strip()
    m = WRAPPERS.match(t)
    while m and not _ITERABLES.match(t):
        t = exprtext.top_split(m.group(1), ",")[0].strip().strip("'\"")
        m = WRAPPERS.match(t)
    m = _ITERABLES.match(t) or _GENERIC.match(t)
    if m is None or m.re is _GENERIC and (m.group(1).rsplit(".", 1)[-1] in _NO_ELEMENTS or len(type_args(m.group(2))) != 1):
        return None
    return m.group(m.re.groups)
