"""What a call returns, from the file alone: the type of `self._chain().filter` 's receiver.

A function's return type is its annotation (`-> "QuerySet"`, `-> Self`), else what all of its
`return` statements agree on: `self`, `self.__class__(...)`, `cls(...)`, `type(self)(...)` (its
own class), `Foo(...)`, a call of a function or method of this file whose type is known, or a
local bound to one of those (`obj = self._clone(); ...; return obj`). Only definitions of this
file are followed (a method through the bases this file defines too): a type never depends on
another file, so re-indexing one file keeps every other file's types (incremental == full).
A call of another file's function is typed by a mark saying which function it calls, as this
file names it (`->Environment.from_string`, `->make_env`: receivers.RETURNED), one such hop
only; the graph resolves the mark (store/return_calls.py).
A `return None` says nothing; any other return whose type is unknown, or two that differ,
leave the function untyped.
"""

from __future__ import annotations

from memory_lsp.index import exprtext, receivers
from memory_lsp.index.iterated import CYCLE, DOTTED as _DOTTED, MAX_DEPTH as _MAX_DEPTH, Iterated

DEFER, ANY_OF, ELEMENT, RETURNED, EITHER = receivers.DEFER, receivers.ANY_OF, receivers.ELEMENT, receivers.RETURNED, receivers.EITHER
# `-> Any` types nothing: the function's returns do (structlog's `get_logger() -> Any` returns a `BoundLoggerLazyProxy`)
ANY = frozenset(("Any", "typing.Any", "t.Any", "typing_extensions.Any"))
APPLIED = "()"  # after a mark: the result of calling what that function returns (a decorator factory's)
_OWN_CLASS = frozenset(("self.__class__", "cls", "type(self)", "self.__class__.__new__"))
_CASTS = frozenset(("cast", "typing.cast", "t.cast"))
_NOT_OWNERS = receivers.BUILTIN_NAMES | {"self", "cls"}  # `self.x` is typed by receivers.rtype, not here
_NO_METHODS = frozenset(("object", "Generic", "Protocol"))  # bases a `super()` call looks past
_ENUMS = ("Enum", "Flag")  # the endings of enum.Enum's kinds' names: Enum, IntEnum, StrEnum, Flag, IntFlag
_DJANGO_MANAGERS = frozenset(("Manager", "BaseManager"))


def _django_manager(callee: str) -> str | None:
    """The queryset class of `models.Manager.from_queryset(BookQuerySet)`, a manager class Django
    makes with that queryset's methods (its own being Django's Manager's or BaseManager's)."""
    call = exprtext.split_call(callee)
    if call is None or not _DOTTED(call[1].strip()):
        return None
    manager, name = exprtext.split_attr(call[0])
    return call[1].strip() if name == "from_queryset" and manager.rsplit(".", 1)[-1] in _DJANGO_MANAGERS else None


def names_class(typ: str | None) -> bool:
    """A type as written that may name a class: not builtin, unknown, conflicting or another file's mark."""
    return bool(typ) and typ not in receivers.UNTYPED and typ not in (receivers.CONFLICT, CYCLE) \
        and not typ.startswith(RETURNED)


def gives_type(typ: str | None) -> bool:
    """A function's or attribute's type worth a row for other files: a class as written, or Python's
    own ("builtin": a call on it is never a workspace method guessed by name)."""
    return names_class(typ) or typ == "builtin"


class Returns(Iterated):
    """Return types of one file's functions, worked out when first asked (memoised); what iterating
    or indexing a value gives: index/iterated.py."""

    def __init__(self, scopes: receivers.Scopes, defined: set, classes: set, bases: dict, context: dict,
                 typevars: frozenset = frozenset(), rules=receivers, makers: dict | None = None):
        self.scopes = scopes
        self.makers = makers or {}  # a function returning `type(name, (Base,), ns)` -> the bases (extract.py)
        self.rules = rules  # the language's reading of an annotation (index/receivers_java.py for Java)
        self.typevars = typevars  # the file's module-level TypeVars: no class an annotation names
        self.defined = defined  # {(parent qualname or None, name)}
        self.classes = classes  # qualnames of the file's classes
        self.bases = bases  # class qualname -> base names as written
        self.context = context  # function qualname -> (scope chain, enclosing class)
        self.annotation: dict[str, str] = {}
        self.values: dict[str, list[str]] = {}
        self.yields: dict[str, list[str]] = {}
        self._memo: dict[str, str | None] = {}
        self._active: set = set()  # bindings being worked out (`c = c.annotate()` names itself)
        self._attrs: dict[str, set[str]] | None = None  # class -> the names bound in it (`attributes`)
        self.lineages: dict[str, list[str]] = {}  # the language rules' memo: class -> its bases here
        self._classes_returned: dict | None = None  # `_getters`, once every return is added

    def add(self, func: str | None, kind: str, text: str) -> None:
        if func is not None and kind == "type":
            if text.strip() != "None" or func not in self.annotation:  # a property's setter (`-> None`) after its getter
                self.annotation[func] = text
        elif func is not None:
            (self.yields if kind == "yield" else self.values).setdefault(func, []).append(text)

    def of(self, func: str, depth: int = 0) -> str | None:
        """The type `func` returns (a type name as this file writes it), or None."""
        if func in self._memo:
            return self._memo[func]
        if func not in self.context:
            return None
        self._memo[func] = None  # a recursive function: unknown while it is being worked out
        chain, cls = self.context[func]
        found = None
        text = self.annotation.get(func, "").strip().strip("'\"")
        if func in self.annotation and text not in ANY:
            found = cls if text in ("Self", "typing.Self", "typing_extensions.Self", "this") else \
                self.rules.returned_type(self.annotation[func], self.typevars)
        else:
            found = self._agree([self.expr(v, chain, cls, depth + 1) for v in self.values.get(func, ()) if v != "None"])
        self._memo[func] = found
        return found

    def class_of(self, chain: list, name: str) -> tuple[str, list] | None:
        """Foo when `name` holds the class Foo itself, and the scopes Foo is read in: annotated or cast `type[Foo]`
        (Scopes.class_of), or bound to a call of a getter of this file (`cls = self._getTargetClass()`: `return Foo`)."""
        made = self.scopes.class_of(chain, name)
        return made if made is not None else self._getter_class(chain, name)

    def _getter_class(self, chain: list, name: str) -> tuple[str, list] | None:
        """`class_of`'s second way: the class a getter of this file returns, `name` bound to its call."""
        hit = self.scopes.lookup(chain, name) if self._getters() else None
        if hit is None or not (hit[1] or "").startswith(DEFER) or not chain or chain[0] not in self.context \
                or (chain[0], name) in self._active:
            return None
        self._active.add((chain[0], name))  # `make = make()` asks for itself
        try:  # (at the depth limit: the callee is a function of this file or nothing, no expression typed on the way)
            func, _ = self._called(hit[1][len(DEFER):].split(receivers.WHERE)[0], chain, self.context[chain[0]][1], _MAX_DEPTH)
        finally:
            self._active.discard((chain[0], name))
        return self._getters().get(func)

    def calls_too(self, chain: list, name: str) -> tuple[str, list] | None:  # and a getter's class (`class_of`)
        return self.scopes.calls_too(chain, name) or self._getter_class(chain, name)

    def _getters(self) -> dict[str, tuple[str, list]]:
        """This file's functions whose every return is one class named as written, unannotated (`return
        Foo`, Foo no name bound in them, named like a class: receivers.call_type), or a class `type()` makes
        on one base (wtforms' tests: `def make_form(**fields): return type("F", (Form,), fields)`, a Form):
        function -> (Foo, the scopes it is read in)."""
        if self._classes_returned is None:
            self._classes_returned = {func: (bases[0], list(self.context[func][0])) for func, bases in self.makers.items()
                                      if len(set(bases)) == 1 and func in self.context}
            for func, values in self.values.items():
                named = {v.strip() for v in values if v.strip() != "None"}
                chain = self.context.get(func, ((),))[0]
                if len(named) == 1 and func not in self.annotation and (v := named.pop()) == receivers.call_type(v) \
                        and self.scopes.lookup(chain, v) is None:
                    self._classes_returned[func] = (v, list(chain))
        return self._classes_returned

    def applied(self, func: str) -> str | None:
        """What calling the Callable `func` returns gives, by its annotation (a decorator factory:
        `def group(...) -> Callable[[F], Group]`, then `@group() def cli()` makes cli a Group)."""
        text = self.annotation.get(func)
        return self.rules.applied_type(text, self.typevars) if text else None

    def fixture(self, func: str) -> str | None:
        """What a pytest fixture `func` gives a test: what it returns, or for a generator
        (`yield app`; `-> Iterator[App]`) what it yields."""
        if func not in self.context:
            return None
        if func in self.annotation:  # `-> Iterator[App]` on a generator; `-> list[App]` gives a list
            return (receivers.element_type(self.annotation[func]) if func in self.yields else None) or self.of(func)
        if func not in self.yields:
            return self.of(func)
        chain, cls = self.context[func]
        return self._agree([self.expr(v, chain, cls, 1) for v in self.yields[func] if v != "None"])

    def expr(self, text: str, chain: list, cls: str | None, depth: int = 0) -> str | None:
        """The type of an expression: `self`, a name bound in `chain`'s scopes, or a call."""
        text = text.strip()
        if depth > _MAX_DEPTH:
            return None
        if text in ("self", "cls"):
            return cls
        call = exprtext.split_call(text)
        if call is None:
            if not text.isidentifier():
                return None
            hit = self.scopes.lookup(chain, text)
            typ = hit[1] if hit else None
            if typ and typ.startswith((DEFER, ANY_OF, ELEMENT, EITHER)):
                return self.bound(typ, chain, cls, depth + 1)
            return None if typ == receivers.CONFLICT else typ
        if call[0] in _CASTS and (None, call[0]) not in self.defined:  # `typing.cast(Foo, x)` is a Foo
            return receivers.annotation_type(call[1].split(",", 1)[0])
        func, typ = self._called(call[0], chain, cls, depth)
        return self.of(func, depth + 1) if func else typ

    def _called(self, callee: str, chain: list, cls: str | None, depth: int) -> tuple[str | None, str | None]:
        """What `callee(...)` calls: (a function of this file, None), or (None, the type the call makes when no
        function of this file is called: a class, a mark naming another file's function (RETURNED), or None)."""
        if made := self.class_of(chain, callee):  # `cls: type[Foo]`: `cls()` makes a Foo
            return None, made[0]
        if callee in _OWN_CLASS:
            return None, cls
        if callee.endswith(")"):  # `click.group()(cli)`: what calling another file's function's result gives
            inner = exprtext.split_call(callee)  # `self._getTargetClass()(**kw)`: makes the class it returns
            if inner and self._getters() and (getter := self._called(inner[0], chain, cls, depth + 1)[0]) in self._getters():
                return None, self._getters()[getter][0]
            queryset = _django_manager(callee)
            if queryset:
                return None, queryset
            made = self.expr(callee, chain, cls, depth + 1)
            applied = made is not None and made.startswith(RETURNED) and not made.endswith(APPLIED)
            return None, made + APPLIED if applied else None
        inner, name = exprtext.split_attr(callee)
        if cls is not None and inner.startswith("super(") and (exprtext.split_call(inner) or ("",))[0] == "super":
            return self._next_in_bases(cls, name)
        if not inner:
            if (None, name) in self.defined and name not in self.classes:
                return name, None
            made = receivers.call_type(name)
            # a name of no function around (nor bound there, nor Python's): an imported function
            elsewhere = made is None and name not in receivers.BUILTIN_NAMES and \
                not any((q, name) in self.defined for q in chain) and self.scopes.lookup(chain, name) is None
            return None, RETURNED + name if elsewhere else made
        if name == "as_manager" and _DOTTED(inner) and (inner in self.classes or receivers.call_type(inner) == inner) \
                and self.scopes.lookup(chain, inner) is None and self.method(inner, name) is None:
            return None, inner  # Django's `BookQuerySet.as_manager()`: a manager with the queryset's methods
        if inner.isidentifier() and (held := self.class_of(chain, inner)) is not None:  # `cls = self._getTargetClass()`
            owner = held[0]  # then `cls.from_bytes()`: not the enclosing class's, though named cls
        elif inner in ("self", "cls") and cls is not None:
            owner = cls
        elif inner in self.classes:  # `Foo.create()`
            owner = inner
        elif self.rules is receivers and receivers.LITERAL_START.match(inner):  # `", ".join(parts)`
            owner = "builtin"
        elif inner.endswith("]") and (held := self.item(inner, chain, cls)) is not None:
            owner = held  # `rest[end + 1:].lstrip()`, `self.tags[key].to_python()`
        else:
            owner = self.expr(inner, chain, cls, depth + 1) if inner.endswith(")") or inner.isidentifier() else \
                self._own_attribute(inner, chain, cls)
            if owner is None:
                made = receivers.call_type(callee) if "(" not in callee else None
                # `env.from_string()` on a parameter (a fixture), `mod.f()`: the graph knows
                named = made is None and _DOTTED(inner) and inner.split(".", 1)[0] not in _NOT_OWNERS
                return None, RETURNED + callee if named else made
        if owner == CYCLE:
            return None, CYCLE
        if owner == "builtin" and self._string_method(name):  # `value.strip()`: Python's str
            return None, "builtin"
        if owner in receivers.UNTYPED or owner == receivers.CONFLICT or owner.startswith(RETURNED):
            return None, None  # one hop to another file only
        found = self.method(owner, name)
        # a class this file names but does not define, or a method its bases here do not: another file's
        return (found, None) if found else (None, RETURNED + owner + "." + name)

    def _own_attribute(self, inner: str, chain: list, cls: str | None) -> str | None:
        """`self.form` in `self.form.setlistdefault(key)`: the type of an attribute or property of the
        instance, as a call on it would have (receivers.rtype)."""
        if self.rules is not receivers or cls is None or not inner.startswith("self.") or inner.count(".") != 1:
            return None
        return receivers.rtype(self.scopes, chain, cls, "", inner, False, self)

    def _string_method(self, name: str) -> bool:
        """A method of Python's str or bytes (on a value typed Python's, what it gives is Python's)."""
        return self.rules is receivers and name in receivers.STRING_METHODS

    def _next_in_bases(self, cls: str, name: str) -> tuple[str | None, str | None]:
        """What `super().name` calls in `cls`: the method of the first base that has it, this
        file's (a function), else a mark on the first base another file defines; (None, None) when a
        base here without it has bases elsewhere (which of them has it is not this file's to say)."""
        for base in self.bases.get(cls, ()):
            if base.rsplit(".", 1)[-1] in _NO_METHODS:
                continue
            if base not in self.classes:
                return None, None if base in receivers.BUILTIN_NAMES else RETURNED + base + "." + name
            found = self.method(base, name)
            if found:
                return found, None
            if any(b not in self.classes for c in [base, *self.lineage(base)] for b in self.bases.get(c, ())):
                return None, None
        return None, None

    def bound(self, typ: str, chain: list, cls: str | None, depth: int = 0) -> str | None:
        """The type of a name bound to a call (DEFER), to one of several values (EITHER) or several
        times (ANY_OF), in `chain`."""
        key = (tuple(chain), typ)
        if key in self._active:
            return CYCLE
        self._active.add(key)
        try:
            alts = typ[1:].split("\x1f") if typ.startswith(ANY_OF) else [typ]
            return self._agree([self._deferred(a[len(DEFER):], chain, cls, depth) if a.startswith(DEFER) else
                                self.element(a[len(ELEMENT):], chain, cls, depth + 1) if a.startswith(ELEMENT) else
                                self._either(a[len(EITHER):], chain, cls, depth) if a.startswith(EITHER) else a
                                for a in alts], depth == 0)
        finally:
            self._active.discard(key)

    def _deferred(self, callee: str, chain: list, cls: str | None, depth: int) -> str | None:
        """What calling `callee` gives, read in the function it was bound in when it says (WHERE)."""
        callee, _, where = callee.partition(receivers.WHERE)
        if where in self.context:
            chain = self.context[where][0]
        return self.expr(callee + "()", chain, cls, depth + 1)

    def _either(self, values: str, chain: list, cls: str | None, depth: int) -> str | None:
        """What each of the values is (a name, `self.x`, a call, a literal), read where they were bound (WHERE), if agreed."""
        values, _, where = values.partition(receivers.WHERE)
        if where in self.context:
            chain = self.context[where][0]
        if depth > _MAX_DEPTH:
            return None
        return self._agree([receivers.rtype(self.scopes, chain, cls, "", v, False, self)
                            for v in values.split(EITHER)], False)

    @staticmethod
    def _agree(types: list, outermost: bool = True) -> str | None:
        """One type when every known one is it (a CYCLE agrees with all); else None."""
        seen = set(types) - {CYCLE}
        if not seen:
            return None if outermost else CYCLE
        return seen.pop() if len(seen) == 1 and None not in seen else None

    def attributes(self, cls: str) -> list[tuple[str, str, str]]:
        """(row kind, name, type) of the attributes `cls` types itself (`self.json: JSONProvider = ...`, `right:
        Expr` in its body, `self.current = Token(...)`), for other files' calls through an instance
        (`app.json.dumps()`, marked `->Flask.json` by receivers.rtype; store/return_calls.py reads
        the rows as a method's return, a property's being one), and what their elements are (`self.blocks:
        Registry[Block]`: an `elementtype` row, for `for b in parser.blocks`, marked `->Parser.blocks[]`)."""
        if self._attrs is None:  # each class's names, gathered once: one pass over the file's bindings
            self._attrs = {}
            for scope, n in self.scopes.table:
                if scope in self.classes:
                    self._attrs.setdefault(scope, set()).add(n[5:] if n.startswith("self.") else n)
        names = self._attrs.get(cls, ())
        typed = ((a, receivers.rtype(self.scopes, [cls], cls, "", "self." + a, False, self)) for a in sorted(names)
                 if a.isidentifier() and (cls, a) not in self.defined)
        # an enum's `RED = 1` is a member, an instance of the enum (`Color.RED.describe()`)
        members = any(b.rsplit(".", 1)[-1].endswith(_ENUMS) for b in self.bases.get(cls, ()))
        held = [(a, self._beside("self." + a, ELEMENT, [cls], cls)) for a in sorted(names)
                if a.isidentifier() and (cls, a) not in self.defined]
        return [("returntype", a, cls if members and t == "builtin" else t) for a, t in typed if gives_type(t)] + \
            [("elementtype", a, t) for a, t in held if gives_type(t)]

    def bases_elsewhere(self, cls: str) -> bool:
        """Whether `cls` or a base of it here names a base this file does not define (nor Python)."""
        return any(b not in self.classes and b not in receivers.BUILTIN_NAMES and b.rsplit(".", 1)[-1] not in _NO_METHODS
                   for c in [cls, *self.lineage(cls)] for b in self.bases.get(c, ()))

    def lineage(self, cls: str) -> list[str]:
        """The bases of `cls` this file defines, nearest first (breadth first, each once)."""
        out, todo = [], list(self.bases.get(cls, ()))
        while todo and len(out) < _MAX_DEPTH:
            base = todo.pop(0)
            if base in self.classes and base not in out and base != cls:
                out.append(base)
                todo.extend(self.bases.get(base, ()))
        return out

    def method(self, cls: str, name: str, depth: int = 0) -> str | None:
        """`cls.name` if this file defines it, else the first of its bases here that does."""
        if cls not in self.classes or depth > _MAX_DEPTH:
            return None
        if (cls, name) in self.defined:
            return f"{cls}.{name}"
        for base in self.bases.get(cls, ()):
            found = self.method(base, name, depth + 1)
            if found:
                return found
        return None
