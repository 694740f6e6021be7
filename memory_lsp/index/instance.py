"""The instance inside a Python method: the name it goes by, what its class body holds, and what
an attribute a method binds to another value's attribute calls.

A method's first parameter is the instance whatever it is called (click's `Context.invoke(__self,
callback, ...)` keeps `self` free for a keyword argument), and a classmethod's is the class
(`klass`, `mcs`). The rest of the index reads a receiver named `self` or `cls`, so a method whose
first parameter has another name has that name rewritten in its calls and bindings, and in the
functions nested in it, before they are typed.
"""

from __future__ import annotations

import re

from memory_lsp.index import receivers
from memory_lsp.index.facts import Ref
from memory_lsp.python_protocol import PROTOCOL

_IMPLICIT_CLASS = frozenset(("__new__", "__init_subclass__", "__class_getitem__"))
_PLAIN = frozenset(("self", "cls"))
_NO_CLASS = frozenset(("Callable", "Any", "object",  # annotations of a callable whose class says nothing
                       # Python's class factories: calling what they give makes an instance (`Point = namedtuple(...)`)
                       "namedtuple", "make_dataclass", "NewType", "TypedDict", "new_class", "type"))


def other_name(node, name: str) -> tuple[re.Pattern, str] | None:
    """For a method's definition node: (a pattern finding its first parameter's name, "self" or
    "cls") when that parameter is not called self or cls; None for a staticmethod or a method
    without parameters."""
    params = node.child_by_field_name("parameters")
    first = params.named_children[0] if params is not None and params.named_child_count else None
    if first is not None and first.type == "typed_parameter":
        first = first.named_children[0] if first.named_child_count else None
    if first is None or first.type != "identifier":
        return None
    text = first.text.decode("utf-8", "replace")
    if text in _PLAIN:
        return None
    around = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else None
    decorators = [d.text.decode("utf-8", "replace").lstrip("@").strip()
                  for d in (around.named_children if around is not None else ()) if d.type == "decorator"]
    if "staticmethod" in decorators:
        return None
    to = "cls" if "classmethod" in decorators or name in _IMPLICIT_CLASS else "self"
    return re.compile(r"(?<![\w.])" + re.escape(text) + r"\b"), to


def renamed(item, alias: tuple[re.Pattern, str]):
    """A call reference (pos, kind, name, receiver, line, whole), a binding or a return (pos, how,
    text) with the instance renamed in it; None for the binding of the parameter itself."""
    pattern, to = alias
    if isinstance(item, receivers.Binding):
        if pattern.fullmatch(item.name):
            return None
        return item._replace(text=pattern.sub(to, item.text)) if item.text else item
    if len(item) == 3:
        return item[0], item[1], pattern.sub(to, item[2])
    pos, kind, name, receiver, line, whole = item
    return (pos, kind, name, pattern.sub(to, receiver) if receiver else receiver, line,
            pattern.sub(to, whole) if whole else whole)


def through_held(call: tuple, held: dict, defined: set, self_names) -> tuple:
    """`self.context_class(...)` where the class body says `context_class = Context` (and defines
    no method of that name) calls `Context`: the reference is rewritten to the name held, resolved
    like a call written in the file. What a subclass puts there instead is not followed (as a
    method's override is not for `self.m()`)."""
    (pos, kind, name, receiver, line, _whole), top, cls = call
    value = held.get((cls, name)) if receiver in self_names else None
    if value is None or value == "None" or (cls, name) in defined:  # None: a subclass's value is called
        return call
    owner, _, called = value.rpartition(".")
    return (pos, kind, called, owner or None, line, owner or None), top, cls


def bound_type(value: str | None, scopes, chain: list, cls: str | None, typer, rules) -> str | None:
    """What `self.x(...)` is when a method bound `self.x` to an attribute of another value
    (jinja2's LRUCache: `self._remove = self._queue.remove`, `self._queue` a deque): Python's
    ("builtin") when that value is; else None (nothing known)."""
    owner = value.rpartition(".")[0] if value else ""
    return "builtin" if owner and rules.rtype(scopes, chain, cls, "", owner, False, typer) == "builtin" else None


def attributes_set(refs: list, assigned: dict, self_names) -> list:
    """A `selfset` row per attribute of the instance that a method of its class assigns (`self.converter =
    converter`) and an untyped call of that class reads (`self.converter(value)`): such a call runs what the
    class assigned (most often a callable its maker handed in), not any class or function its file imports
    (test selection's dispatch rule: store/test_reads.py). `assigned`: (class, attribute) -> the first line
    assigning it."""
    found = {(r.src_class, r.name): assigned[(r.src_class, r.name)] for r in refs
             if r.kind == "call" and r.rtype is None and r.receiver in self_names and (r.src_class, r.name) in assigned}
    return [Ref("selfset", cls, cls, name, None, line) for (cls, name), line in sorted(found.items())]


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def implied(chain: list, cls: str | None, name: str, receiver: str | None, rtype: str | None, line: int, typer, rules,
            args: list | None, imports: list) -> list[tuple[str, str, str | None]]:
    """(name, receiver, rtype) of the calls a Python call makes beside its own: an instance's
    `__call__` (`called`), and the method a builtin of PROTOCOL runs on its one argument, a name or an
    attribute of one (`str(field)`: `field.__str__()`) when the file types it or imports it by name
    (`bool(missing)`, a module variable of another file: store/var_calls.py)."""
    if rules is not receivers:
        return []
    out = [("__call__", *via)] if (via := called(chain, cls, name, receiver, rtype, line, typer, rules)) else []
    if receiver is None and name in PROTOCOL and args and len(args) == 1 and args[0][0] is None \
            and _DOTTED.fullmatch(args[0][1]):
        arg = args[0][1]
        typ = rules.rtype(typer.scopes, chain, cls, PROTOCOL[name], arg, False, typer, line)
        if typ and typ not in receivers.UNTYPED and typ != receivers.CONFLICT \
                or typ is None and any(arg == (i.alias or i.name) for i in imports):
            out.append((PROTOCOL[name], arg, typ))
    return out


def called(chain: list, cls: str | None, name: str, receiver: str | None, rtype: str | None, line: int, typer,
           rules) -> tuple[str, str | None] | None:
    """`app(environ, start_response)` where the file types `app` (`rtype` "local") as an instance (`app
    = App()`, `app: App`, `app = self._makeOne()`): (receiver, type) of the call `app.__call__(...)`
    it runs; `self()` in a method (wtforms' `def __str__(self): return self()`): ("self", None),
    `self.__call__()`. None where the name holds a class (`cls: type[Foo]`: the call makes one), or a
    value the file does not type, Python's own, a TypeVar or `Callable`."""
    if name == "self" and receiver is None and rtype is None and cls is not None:
        return "self", None
    if rtype != "local" or typer.class_of(chain, name) is not None:
        return None
    typ = rules.rtype(typer.scopes, chain, cls, "__call__", name, False, typer, line)
    if not typ or typ in receivers.UNTYPED or typ == receivers.CONFLICT or typ in typer.typevars:
        return None
    return None if typ.rsplit(".", 1)[-1].removeprefix(receivers.RETURNED) in _NO_CLASS else (name, typ)
