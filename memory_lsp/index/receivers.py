"""Receiver types: what the object of `x.f()` is, from what the file itself says about `x`.

The query captures bindings (`@bind`: `x = Foo(...)`, `x: Foo`, a typed or plain parameter,
`with Foo() as x`, `self.x = Foo(...)`, `self.x = x` (what x is), a literal, and `isinstance(x,
Foo)` for the lines it guards); this module keeps them per scope and gives each call reference an
`rtype`:
  a type name as written ("Foo", "mod.Foo"): graph resolution looks the method up in that class
      and its bases; no name-only guess when the name comes from an outside import;
  "builtin": a builtin or standard container, string or literal: never linked by name;
  "super": `super().f()`, `super(Foo, self).f()` in Foo: the next class up from the enclosing one;
  "->Owner.f", "->f": what a function of another file returns (index/returns.py);
  "local": a bare `f()` where f is a local name (a parameter, a pytest fixture, a name assigned a call, a
      literal or an annotation): not a call of a function named f;
  None: nothing known (name-only guesses stay allowed).
"""

from __future__ import annotations

import builtins
import re
from typing import NamedTuple

from memory_lsp.index import elements, exprtext, rebound

BUILTIN_CALLS = frozenset(
    "set dict list tuple frozenset str bytes bytearray int float complex bool open iter sorted reversed "
    "enumerate zip map filter range memoryview".split())
BUILTIN_TYPES = BUILTIN_CALLS | frozenset(
    "List Dict Set FrozenSet Tuple Sequence MutableSequence Mapping MutableMapping Iterable Iterator "
    "Generator AbstractSet MutableSet Deque DefaultDict OrderedDict Counter deque defaultdict Text "
    "AnyStr None bytes".split())
# what some standard-library calls make (`_key_re = re.compile(...)`, then `_key_re.match(s)`; `log =
# logging.getLogger(...)`, then `log.info(...)`): a class from outside, whose methods are never a
# workspace method guessed by name (werkzeug: 14 guesses at `.match` of compiled patterns)
PYTHON_FACTORIES = {"re.compile": "re.Pattern", "re.match": "re.Match", "re.search": "re.Match",
                    "re.fullmatch": "re.Match", "logging.getLogger": "logging.Logger", "socket.socket": "socket.SocketType"}
# a bare call of one of these, not defined in the file nor bound there, is Python's (`set()`)
BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))
# what a string's or bytes' methods give is Python's too (str, bytes, int, bool, a list or tuple of
# str); of the other builtins' methods only list's and tuple's `count` and `index` share their names (an int)
STRING_METHODS = frozenset(n for n in dir(str) + dir(bytes) if not n.startswith("_"))
LITERAL_START = re.compile(r"""^(?:[rRbBfFuU]{0,2}['"]|[\[{]|\d)""")
_CONSTRUCTED = re.compile(r"^([A-Za-z_][\w.]*)\(.*\)$", re.S)
_PRIORITY = {"type": 4, "call": 3, "cast": 3, "iter": 3, "either": 3, "callee": 3, "literal": 2, "param": 1,
             "assign": 1} | dict.fromkeys(elements.TARGET_SLOTS, 3)  # a tuple target's name ranks as `for x in`
CONFLICT = "?"
UNTYPED = frozenset(("builtin", "local", "super"))  # rtypes that name no class
DEFER = "()"  # a binding to a call whose type is what that call returns (`x = self._clone()`): index/returns.py
ANY_OF = "|"  # a name bound to several calls (`c = self._chain()`, then `c = c.annotate()`): typed if all agree
ELEMENT = "[]"  # a name bound to an element of an expression (`for x in items`), or, after a name, what
# the elements of that name are (`items: list[Foo]` binds `items[]` to Foo): index/returns.py
WHERE = "\x1e"  # after a DEFER bound to `self.x` in a method: the method (`self.sslobj = ssl_context.wrap_bio()`
# reads its parameter `ssl_context` there, wherever `self.sslobj` is used)
EITHER = "\x1d"  # a name bound to one of several values (`cls = template_class or self.template_class`,
# `a if flag else b`), each after this: typed when they agree (index/returns.py); `None` says nothing
RETURNED = "->"  # what another file's function returns: `->Environment.from_string` (a method of the class
# the file names Environment), `->env.from_string` (a fixture's or module's), `->make_env` (an
# imported function); store/return_calls.py looks it up


class Binding(NamedTuple):
    pos: int  # start byte, to find the scope
    name: str  # `x`, or `self.x` for an attribute of the instance
    kind: str  # type | call | literal | param | assign
    text: str | None  # the annotation or the called expression
    line: int
    until: int | None = None  # a narrowing's last line (`isinstance(x, Foo)` guards line..until)


def annotation_type(text: str) -> str | None:
    """`Optional["Foo"]`, `Foo | None`, `'Foo'` -> Foo; containers -> "builtin"; else None."""
    t = text.strip().strip("'\"").strip()
    for _ in range(3):
        m = elements.WRAPPERS.match(t)
        if not m:
            break
        t = exprtext.top_split(m.group(1), ",")[0].strip().strip("'\"")
    parts = [p.strip() for p in (exprtext.top_split(t, "|") if "|" in t else (t,)) if p.strip() not in ("None", "")]
    if t.startswith(("Union[", "typing.Union[")) and t.endswith("]"):
        parts = [p.strip() for p in exprtext.top_split(t[t.index("[") + 1:-1], ",") if p.strip() not in ("None", "")]
    if len(parts) > 1:  # `str | bytes` is Python's (never a workspace method by name); `A | B` is neither
        agreed = {annotation_type(p) for p in parts} - {"builtin"} or {"builtin"}  # `IO[bytes] | list[bytes]`: an IO's
        return agreed.pop() if len(agreed) == 1 else None  # method where a list has none (a list's: the graph finds none)
    if len(parts) != 1 or parts[0] != t:  # one part left may be wrapped too: `type[Foo] | None`
        return annotation_type(parts[0]) if len(parts) == 1 else None
    t = t.strip("'\"")
    base = t.split("[", 1)[0]
    last = base.rsplit(".", 1)[-1]
    if last in BUILTIN_TYPES:
        return "builtin"
    if "[" in t and not t.endswith("]"):
        return None  # a bracket never closed (`Union[str` of a split gone wrong): no class
    if not re.fullmatch(r"[A-Za-z_][\w.]*", base) or not last.lstrip("_")[:1].isupper():
        return None
    return base


_CALLABLE = re.compile(r"^(?:typing\.|t\.|collections\.abc\.)?Callable\[(.*)\]$", re.S)


def member_mark(typ: str | None, member: str) -> str | None:
    """What reading `member` of a value of type `typ` gives, as a mark another file's rows resolve
    (`->Flask.json`, `->URI.getScheme`): only when `typ` names a class (not Python's own, unknown,
    conflicting or another mark: one hop only)."""
    return RETURNED + typ + "." + member if typ and typ not in UNTYPED and typ != CONFLICT \
        and not typ.startswith(RETURNED) else None


def base_marks(refs: list, based: list, scopes: Scopes, returns) -> None:
    """`class B(obj.attr)` where the file types obj (`serializer: Serializer`): the base is what that
    attribute of obj's class holds, its inherit row marked as a call on `obj.attr` is (`->Serializer.signer`,
    store/inherit_marks.py). `based`: (index into `refs`, scope chain, class, obj, attr, line). An obj
    the file does not bind (a module, a class: `Base.Inner`) gives no mark."""
    for i, chain, cls, owner, attr, line in based:
        typ = scopes.narrowed_at(chain, owner, line) or rtype(scopes, chain, cls, "", owner, False, returns, line)
        mark = member_mark(typ, attr)
        if mark is not None:
            refs[i] = refs[i]._replace(rtype=mark)


def _members(text: str) -> list[str]:
    """The members of `Union[A, B]` or `A | B` (None left out); else [text]."""
    t = text.strip().strip("'\"").strip()
    m = re.match(r"^(?:typing\.|t\.)?Union\[(.*)\]$", t, re.S)
    parts = exprtext.top_split(m.group(1), ",") if m else exprtext.top_split(t, "|")
    return [p.strip("'\" ") for p in parts if p.strip("'\" ") not in ("None", "")]


def returned_type(text: str, typevars: frozenset = frozenset()) -> str | None:
    """A function's annotation as the type its call gives: `annotation_type`, and of a Union the one
    class left without its Callable members and type variables (click's `group` returns
    `t.Union[Group, t.Callable[[F], Group]]`: called with the function, a Group)."""
    members = _members(text)
    if len(members) == 1 and not _CALLABLE.match(members[0]):
        return annotation_type(text)
    left = [p for p in members if not _CALLABLE.match(p) and p not in typevars]
    return annotation_type(left[0]) if len(left) == 1 else None


def applied_type(text: str, typevars: frozenset = frozenset()) -> str | None:
    """What calling the Callable a function returns gives (`@click.group()`: `group()` returns
    `t.Callable[[F], Group]`, applied to the function a Group), when one class."""
    results = set()
    for member in _members(text):
        m = _CALLABLE.match(member)
        if m:
            args = [a.strip() for a in exprtext.top_split(m.group(1), ",")]
            if len(args) == 2:
                results |= {r for r in _members(args[1]) if r not in typevars}
    return annotation_type(results.pop()) if len(results) == 1 else None


def element_type(text: str, inner: str | None = None) -> str | None:
    """`list[Foo]`, `Optional[Sequence[Foo]]` -> Foo: what iterating yields, when a class or Python's
    ("builtin": `list[str]`) (`inner`: element_text's)."""
    inner = elements.element_text(text) if inner is None else inner
    return annotation_type(inner.split(",")[0]) if inner and "[" not in inner else None


def call_type(callee: str) -> str | None:
    """The type a call to `callee` makes: a builtin constructor, or a class named like one."""
    if callee in BUILTIN_CALLS:
        return "builtin"
    if callee in PYTHON_FACTORIES:
        return PYTHON_FACTORIES[callee]
    last = callee.rsplit(".", 1)[-1]
    if re.fullmatch(r"[A-Za-z_][\w.]*", callee) and last.lstrip("_")[:1].isupper():
        return callee
    return None


def binding_type(kind: str, text: str | None) -> str | None:
    if kind in ("type", "cast"):
        return annotation_type(text or "")
    if kind == "call":
        return call_type(text or "") or (DEFER + text if text else None)
    if kind == "literal":
        return "builtin"
    if kind == "iter" or kind in elements.TARGET_SLOTS:  # a tuple target's name: its slot (index/elements.py)
        return ELEMENT + elements.slot_of(kind) + text if text else None
    if kind == "either":
        values = [v for v in exprtext.either_values(text or "") if v != "None"]
        return EITHER + EITHER.join(values) if values else None
    return None


class Scopes:
    """Bindings by (scope qualname or None for the module, name); the strongest kind wins, two types of one strength cancel out."""

    def __init__(self, typing=None):
        self.table: dict[tuple, tuple[int, str | None]] = {}
        self._type = typing or binding_type  # another language's reading of a binding (receivers_ts)
        self._python = self._type is binding_type  # `items: list[Foo]` (what elements are) is Python's annotation
        self.lines: dict[tuple, list[tuple[int, int, str | None]]] = {}  # key -> (line, rank, type) of each binding
        self.narrowed: dict[tuple, list[tuple[int, int, str]]] = {}  # key -> (first, last line, type): isinstance
        self.defaults: dict[tuple, str] = {}  # (function, parameter) -> its default, a name or `mod.f` as written
        self.classes: dict[tuple, str] = {}  # (function or class, name) -> Foo of its annotation or cast `type[Foo]`: a call makes a Foo
        self.declared: set[tuple] = set()  # names an annotation types: it wins over what an alias's value is
        self.bounds: dict[str, str] = {}  # a module's TypeVar -> its bound, as written

    def add(self, scope: str | None, name: str, kind: str, text: str | None, line: int | None = None,
            where: str | None = None, until: int | None = None) -> None:
        """`where`: the function a binding of an attribute (`self.x`) sits in, whose names its call reads;
        `until`: a narrowing's last line (the name is the type only from `line` to there)."""
        if kind == "narrow":  # `isinstance(x, (str, bytes))` reads as `str | bytes`
            typ = self._type("type", " | ".join(exprtext.top_split(text[1:-1], ",")) if text[:1] == "(" else text)
            typ = text if typ is None and self._python and re.fullmatch(r"[A-Za-z_][\w.]*", text or "") and not any(
                (q, text.split(".")[0]) in self.table for q in (scope, None)) else typ  # a class, lowercase too: `datetime`
            if typ is not None and line is not None and until is not None:
                self.narrowed.setdefault((scope, name), []).append((line, until, typ))
            return
        if kind == "default":  # `key=keys.methodkey`: what a call of the parameter calls when none is passed
            self.defaults[(scope, name)] = text or ""
            return
        if kind == "typevar":  # `T = TypeVar("T", bound="Base")`: a `type[T]` made is a Base
            self.bounds[name] = (text or "").strip("'\"")
            return
        if kind == "factory":  # `groups = defaultdict(list)`: its values are what the factory makes
            made, key = call_type(text or ""), (scope, name + elements.MAPPING + "1")
            old = self.table.get(key)
            self.table[key] = (3, made if old is None or old[1] == made else CONFLICT)
            return
        if kind == "either" and name in (text or "") and name in exprtext.either_values(text or ""):
            return  # `x = x or Foo()`: x is also what it was (a parameter, say), which the table does not keep
        key, rank, typ = (scope, name), _PRIORITY[kind], self._type(kind, text)
        if kind == "call" and typ == text and (scope, text) in self.table:  # `F = make_form(); form = F()`: what
            typ = DEFER + text  # the local F makes, not a class named F (index/returns.py `class_of`)
        if kind in ("type", "cast") and self._python and typ and (made := exprtext.class_of_type(text or "")):
            self.classes[key] = made
        elif kind == "either" and self._python and (made := exprtext.either_class(text or "")):
            self.classes.setdefault(key, made)  # `cls = info.cls or TyperCommand`: `cls(...)` makes a TyperCommand
        if kind == "type" and self._python:  # `self.signer: type[Other] = signer`: Other, whatever signer is
            if key not in self.declared and (self.table.get(key) or (0,))[0] == 4:
                del self.table[key]  # an alias's, made first
            self.declared.add(key)
        if where is not None and typ is not None and typ.startswith((DEFER, EITHER)):
            typ += WHERE + where
        if line is not None:
            self.lines.setdefault(key, []).append((line, rank, typ))
        if kind == "type" and self._python and (scope, name + ELEMENT) not in self.table:
            element = element_type(text or "", inner := elements.element_text(text or ""))  # inner: for the slots too
            if element:
                self.table[(scope, name + ELEMENT)] = (rank, element)
            for suffix, slot in elements.slots(text or "", inner, ELEMENT, annotation_type).items():
                self.table[(scope, name + suffix)] = (rank, slot)  # (not `typ`: the name's own, below)
        old = self.table.get(key)
        if old is None or rank > old[0]:
            self.table[key] = (rank, typ)
        elif rank == old[0] and typ != old[1] and rank == 3 and old[1] not in (None, CONFLICT) and typ:
            alts = set(old[1][1:].split("\x1f")) if old[1].startswith(ANY_OF) else {old[1]}
            self.table[key] = (rank, ANY_OF + "\x1f".join(sorted(alts | {typ})))
        elif rank == old[0] and typ != old[1] and rank >= 3:
            self.table[key] = (rank, CONFLICT)

    def alias(self, scope: str | None, name: str, where: str | None, other: str, line: int | None = None) -> None:
        """`name` (in `scope`) is bound to what `other` is in the scope `where` at `line` (an isinstance check's type
        there first), its elements to `other`'s (`self.loaders = loaders`); not a name an annotation types."""
        if (where, other) in self.defaults:  # `self.fmt = fmt`, `fmt=_format`: `self.fmt()` calls _format (calls_too)
            self.defaults.setdefault((scope, name), self.defaults[(where, other)])
        if (scope, name) in self.declared:
            return
        elements = self.table.get((where, other + ELEMENT))
        if elements is not None:
            old = self.table.get((scope, name + ELEMENT))
            self.table[(scope, name + ELEMENT)] = elements if old is None or old[1] == elements[1] else (old[0], CONFLICT)
        narrowed = self.narrowed_at([where], other, line) if self.narrowed else None
        hit = (5, narrowed) if narrowed is not None else self.table.get((where, other))
        if hit is not None and hit[1] not in (None, CONFLICT):
            old = self.table.get((scope, name))
            self.table[(scope, name)] = (4, hit[1] if old is None or old[0] < 4 or old[1] == hit[1] else CONFLICT)

    def calls_too(self, chain: list[str | None], name: str) -> tuple[str, list] | None:
        """What a call of `name` (bound in the nearest scope of `chain`) calls too: a parameter's default
        (`key=keys.methodkey`) or Foo of `type[Foo]` (a Foo made); and the scopes around, where it is read."""
        if not self.defaults and not self.classes:  # (asked for every bare call: most files have neither)
            return None
        at = next((i for i, q in enumerate(chain) if (q, name) in self.table or (q, name) in self.defaults), None)
        default = self.defaults.get((chain[at], name)) if at is not None else None
        return (default, chain[at + 1:]) if default else self.class_of(chain, name)

    def class_of(self, chain: list[str | None], name: str) -> tuple[str, list] | None:
        """Foo when `name` (bound in the nearest scope of `chain`) is annotated or cast `type[Foo]`
        (a TypeVar's bound for `type[T]`), and the scopes Foo is read in."""
        at = next((i for i, q in enumerate(chain) if (q, name) in self.table), None) if self.classes else None
        made = self.classes.get((chain[at], name)) if at is not None else None
        if made in self.bounds:  # `cls: type[T]`: T's bound, read at the module's level
            return self.bounds[made], [None]
        return (made, chain[at + 1:]) if made else None

    def narrowed_at(self, chain: list[str | None], name: str, line: int | None) -> str | None:
        """The type an isinstance check of the calling function says `name` is at `line` (the innermost's)."""
        ranges = self.narrowed.get((chain[0], name)) if line is not None and chain and self.narrowed else None
        inside = [r for r in ranges if r[0] <= line <= r[1]] if ranges else None
        return max(inside, key=lambda r: (r[0], -r[1]))[2] if inside else None  # latest start, then nearest end

    def lookup(self, chain: list[str | None], name: str, line: int | None = None) -> tuple[int, str | None] | None:
        """What `name` is in the nearest scope of `chain` binding it; at `line`, a name bound to
        several types in the calling function itself is the last of its strongest bindings above
        (`t = env.get_template(...)`, then `t = env.from_string(...)`: each `t.render()` after the one
        above it; a module's name may be rebound before the function runs); in lines an isinstance
        check of the calling function guards, the type it checks (the innermost check's)."""
        narrowed = self.narrowed_at(chain, name, line) if self.narrowed else None  # (most files check nothing)
        if narrowed is not None:
            return 5, narrowed
        for scope in chain:
            hit = self.table.get((scope, name))
            if hit is not None:
                if line is not None and scope == chain[0] and (hit[1] == CONFLICT or (hit[1] or "").startswith(ANY_OF)):
                    bound = [b for b in self.lines.get((scope, name), ()) if b[0] <= line and b[1] == hit[0]]
                    # one bound above first: `rv = rv.make_conditional()` calls what rv was (the right side runs first)
                    above = [b for b in bound if b[0] < line] or bound
                    return (hit[0], max(above)[2]) if above else hit
                rebound = line is not None and scope == chain[0] and hit[0] == _PRIORITY["type"]  # annotated here
                return (self._rebound(scope, name, line) if rebound else None) or hit
        return None

    def _rebound(self, scope: str | None, name: str, line: int) -> tuple[int, str] | None:
        """What an annotated name bound again below its annotation is at `line` (index/rebound.py)."""
        return rebound.last_binding(self.lines.get((scope, name), ()), _PRIORITY["type"], name, line,
                                    lambda root: (scope, root) in self.table, (DEFER, ELEMENT))


def rtype(scopes: Scopes, chain: list[str | None], cls: str | None, name: str, receiver: str | None,
          defined_here: bool, returns=None, line: int | None = None) -> str | None:
    """The receiver type of one call reference (module docstring) at `line`; `returns`
    (index/returns.py) types a call's result and a name bound to one."""
    if receiver is None:
        for scope in chain:
            if (scope, name) in scopes.table:
                # a parameter or local of the calling function (a pytest fixture's value, say) is
                # what it calls, even beside the module's def of that name; not beside its own def
                own = scope is not None and returns is not None and (scope, name) not in returns.defined
                return "local" if not defined_here or own else None
        return "builtin" if name in BUILTIN_NAMES and not defined_here else None
    if receiver == "super()" or receiver.startswith("super(") and cls is not None and re.fullmatch(  # Python 2's
            rf"super\(\s*{re.escape(cls.rpartition('.')[2])}\s*,\s*\w+\s*\)", receiver):  # spelling in Foo
        return "super"
    if LITERAL_START.match(receiver) or receiver.endswith(".__dict__"):
        return "builtin"
    if receiver.endswith(")") and returns is not None:  # `Foo(...).f()`, `self._chain().f()`
        return returns.expr(receiver, chain, cls)
    if receiver.endswith("]") and returns is not None:  # `self.tags[key].f()`, `items[0].f()`
        return returns.item(receiver, chain, cls)
    made = _CONSTRUCTED.match(receiver)
    if made:  # `Foo(...).f()`
        return call_type(made.group(1))
    if receiver.startswith("self.") and cls is not None and receiver.count(".") == 1:
        attr = receiver[5:]
        prop = returns.method(cls, attr) if returns is not None else None
        if prop is not None:  # `self.files.values()`: a property of the class or a base here (`-> FileMultiDict`)
            return returns.of(prop)
        hit = scopes.lookup([cls], "self." + attr) or scopes.lookup([cls], attr)
        for base in returns.lineage(cls) if returns is not None and hit is None else ():
            # set or annotated in a base class of this file (`right: Expr` in BinExpr, `self.right` in And)
            hit = scopes.lookup([base], "self." + attr) or scopes.lookup([base], attr)
            if hit is not None:
                break
        if hit is None and returns is not None and "." not in cls and returns.bases_elsewhere(cls):
            # `self.headers.get()` where a base in another file types it (`headers: Headers`): the
            # attribute of this class, found up its bases by the graph (store/return_calls.py)
            return member_mark(cls, attr)
    elif receiver.isidentifier():
        hit = scopes.lookup(chain, receiver, line)
        if hit is None and receiver in BUILTIN_NAMES and not (returns is not None and (None, receiver) in returns.defined):
            return "builtin"  # `object.__setattr__(...)`, `dict.fromkeys(...)`: Python's own class, not bound here
    else:
        return _attribute(scopes, chain, cls, receiver, returns, line)
    if hit is None or hit[1] in (None, CONFLICT):
        return None
    if hit[1].startswith((DEFER, ANY_OF, ELEMENT, EITHER)):  # a class held (`cls = self._getTargetClass()`: `cls.blank()`)
        return None if returns is None else (returns.class_of(chain, receiver) or (returns.bound(hit[1], chain, cls),))[0]
    return hit[1]


_ATTRIBUTE = re.compile(r"^([A-Za-z_][\w.]*|.*\))\.([A-Za-z_]\w*)$", re.S)  # `x.a`, `F().a` (of what a call gives)


def _attribute(scopes: Scopes, chain: list, cls: str | None, receiver: str, returns, line: int | None = None) -> str | None:
    """`x.attr.f()` where the file types x (`app: Flask`, `self.stream = Stream()`, a call `F()`): a mark
    of the attribute of x's class (`->Flask.json`), which store/return_calls.py resolves as it does a
    method's return (index/returns.py `attributes`). An x the file does not type stays untyped: a
    module's attribute (`flask.g`) is the graph's to find (store/var_calls.py)."""
    m = _ATTRIBUTE.match(receiver)
    if m is None or returns is None:
        return None
    owner, attr = m.groups()
    # (the owner's narrowing only: the last binding above a line is no rule for `v.x` in a comprehension, whose
    # `for v in ...` comes after it)
    typ = scopes.narrowed_at(chain, owner, line) or rtype(scopes, chain, cls, "", owner, False, returns)
    if typ is None and owner.isidentifier() and owner not in BUILTIN_NAMES and scopes.lookup(chain, owner) is None:
        # `Book.objects.published()`: an attribute of a class itself, named like one (call_type)
        # and bound in no scope here (the file's class or an import): what its body binds there
        typ = call_type(owner)
    return member_mark(typ, attr)
