"""Receiver types for TypeScript and JavaScript: index/receivers.py's ideas with this family's syntax.

The tags queries capture the same bindings (`@bind`): `const x = new Foo()`, `x: Foo` (a typed
parameter, variable or class field), `constructor(private x: Foo)`, `this.x = new Foo()`, a plain
parameter or variable (a local name, no function). A call's receiver is then typed from them:
  "Foo" (as written, generics and `| undefined` dropped): the class or interface is looked up and
      the method found in it or its bases (store/calls.py, as for Python);
  "builtin": a primitive, array, tuple, function or standard library type (annotated, or made
      by `new Set()`, `new Map()`...), a literal, or one of the
      language's globals (`Object.keys`, `JSON.parse`, `Math.max`...) not rebound in the file:
      never linked to a workspace method by name;
  "super": `super.f()`; "local": a bare `f()` where f is a parameter or a variable that is not a
      function; None: nothing known.
A callback's parameter is what the function it is passed to declares it to be: in
`operate((source, subscriber) => subscriber.next())`, where `operate(init: (source: Observable<T>,
subscriber: Subscriber<R>) => void)`, subscriber is a Subscriber (a mark `->operate(0,1)`: the
second parameter of the first argument; `new Foo(cb)` marks `->Foo.constructor(0,0)`); each
function writes what its function-typed parameters give their callbacks (`paramtype` rows,
`callback_parameters`), read by store/return_calls.py as a return type is.
What a function or method returns, as annotated, types one step: `foo.bar().go()` (a mark
`->Foo.bar`, `this.bar()` `->Cls.bar`, `makeBar()` `->makeBar` or, for the file's own function,
its annotation), resolved by store/return_calls.py as Python's are; a longer chain stays untyped
(name guesses allowed, as before).
"""

from __future__ import annotations

import re

from memory_lsp.index import exprtext, receivers
from memory_lsp.index.facts import Ref

LANGS = frozenset(("typescript", "tsx", "javascript"))
BUILTIN_TYPES = frozenset(
    "string number boolean bigint symbol any unknown never void object undefined null this "
    "String Number Boolean BigInt Symbol Object Function Array ReadonlyArray Map ReadonlyMap Set "
    "ReadonlySet WeakMap WeakSet WeakRef Promise PromiseLike Record Partial Required Readonly Pick Omit "
    "Date RegExp Error TypeError RangeError Iterable Iterator IterableIterator AsyncIterable "
    "AsyncIterator Generator AsyncGenerator ArrayLike ArrayBuffer DataView Uint8Array Int8Array "
    "Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array".split())
# (no DOM or Node names, `Request`, `Event`, `Buffer`...: a workspace defines its own as often)
# globals a receiver can name: calls on them are the runtime's. Only names a module would not
# export (imports are not among the bindings read here: `crypto`, `process` may be the workspace's)
GLOBALS = frozenset(
    "Object Array JSON Math Reflect Promise Number String Boolean Symbol Date console globalThis "
    "Intl Atomics BigInt".split())
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_LITERAL_START = re.compile(r"""^(?:['"`\[{]|\d)""")
_FUNCTION_TYPE = re.compile(r"^(?:new\s*)?(?:<[^>]*>\s*)?\(.*\)\s*=>", re.S)
_NEW = re.compile(r"^new\s+([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*\(.*\)$", re.S)


def annotation_type(text: str) -> str | None:
    """`Foo<T> | undefined` -> Foo; arrays, tuples, primitives and the standard library ->
    "builtin"; a type parameter (`T`), a function or object type, a union of classes -> None."""
    parts = [p.strip() for p in exprtext.top_split(text.strip(), "|", angle=True)]
    parts = [p for p in parts if p not in ("undefined", "null", "void", "")]
    if len(parts) != 1:
        return None
    t = parts[0]
    if t.startswith("readonly "):
        t = t[len("readonly "):].strip()
    if t.endswith("[]") or t.startswith("[") or (t[:1] in "'\"`" or t[:1].isdigit()):
        return "builtin"  # arrays, tuples, literal types
    if _FUNCTION_TYPE.match(t):
        return "builtin"  # `(value: T) => R`: its only methods are Function's (`project.call(...)`)
    base = t.split("<", 1)[0].strip()
    if not _NAME.fullmatch(base):
        return None  # function types, object types, keyof/typeof, intersections...
    if base in BUILTIN_TYPES:
        return "builtin"
    last = base.rsplit(".", 1)[-1]
    if len(last) == 1 or not last[:1].isupper():
        return None  # `T` is a type parameter; lower case is no class here
    return base


def binding_type(kind: str, text: str | None) -> str | None:
    if kind == "callee":  # a callback's parameter: `callback_slot`'s text
        return None if not text else receivers.RETURNED + text
    if kind == "type":
        return annotation_type(text or "")
    if kind == "call":  # the constructor of `new Foo(...)`; `new Set()`, `new Map()`: the standard library's
        return None if not text else "builtin" if text in GLOBALS or text in BUILTIN_TYPES else text
    if kind == "literal":
        return "builtin"
    return None


def returned_type(text: str, typevars: frozenset = frozenset()) -> str | None:
    """A function's return annotation as the class it names (index/returns.py asks)."""
    return annotation_type(text)


def applied_type(text: str, typevars: frozenset = frozenset()) -> str | None:
    return None


def scopes() -> receivers.Scopes:
    return receivers.Scopes(binding_type)


def rtype(scopes: receivers.Scopes, chain: list[str | None], cls: str | None, name: str, receiver: str | None,
          defined_here: bool, returns=None, line: int | None = None) -> str | None:
    """The receiver type of one call reference (module docstring); same signature as
    receivers.rtype (`line` unused)."""
    if receiver is None:
        hit = scopes.lookup(chain, name)
        return "local" if hit is not None and not defined_here else None
    if receiver == "super":
        return "super"
    if _LITERAL_START.match(receiver):
        return "builtin"
    made = _NEW.match(receiver)
    if made:  # `new Foo().f()`
        return binding_type("call", made.group(1))
    if receiver.startswith("this.") and cls is not None and receiver[5:].isidentifier():
        hit = scopes.lookup([cls], "self." + receiver[5:])
    elif receiver.isidentifier() or _NAME.fullmatch(receiver) and "." not in receiver:
        hit = scopes.lookup(chain, receiver)
        if hit is None and receiver in GLOBALS:
            return "builtin"
    else:
        return _returned(scopes, chain, cls, receiver, returns)
    if hit is None or hit[1] in (None, receivers.CONFLICT):
        return None
    return hit[1]


def _returned(scopes: receivers.Scopes, chain: list, cls: str | None, receiver: str, returns) -> str | None:
    """What one call or property read gives (module docstring): the file's own function's
    annotation, else a mark naming what is read."""
    own = exprtext.own_call(receiver)
    if own is not None:  # `makeBar()`: the file's function, or an imported one (a mark)
        scope = next((q for q in chain if returns is not None and (q, own) in returns.defined), False)
        if scope is not False:
            return returns.of(f"{scope}.{own}" if scope else own)
        bound = scopes.lookup(chain, own) is not None
        return None if bound or own in GLOBALS or own in BUILTIN_TYPES else receivers.RETURNED + own
    step = exprtext.first_step(receiver)
    if step is None or not step[2]:
        return None  # `a.b().c()`: what `.b()` gives is not known
    root, name, _alone = step
    if root == "this":
        typ = cls
    else:
        typ = rtype(scopes, chain, cls, "", root, False)
        if typ is None and _NAME.fullmatch(root) and "." not in root and scopes.lookup(chain, root) is None:
            # a class named for a static call (`Foo.instance()`), or a module imported whole
            # (`import * as z`; `z.string().min()`: store/return_calls.py finds the module's function)
            typ = root
    if typ == "builtin":
        return "builtin"
    return receivers.member_mark(typ, name)


def callback_slot(passed_to, name) -> str | None:
    """The mark (without its prefix) of the callback parameter `name` (a tree-sitter node) in a
    call or `new` (`passed_to`): `operate(0,1)`, `Foo.constructor(0,0)`; None when the callee is
    no plain name."""
    callee = passed_to.child_by_field_name("constructor" if passed_to.type == "new_expression" else "function")
    if callee is None or callee.type != "identifier":
        return None
    param = name.parent
    function = param if param.type == "arrow_function" else param.parent.parent  # x => ... / (a, x) => ...
    j = 0 if function is param else _index(param.parent.named_children, param)
    k = _index(function.parent.named_children, function)
    text = callee.text.decode("utf-8", "replace")
    owner = ".constructor" if passed_to.type == "new_expression" else ""
    return None if j is None or k is None else f"{text}{owner}({k},{j})"


def callback_refs(symbols: list, defs: list) -> list[Ref]:
    """The `paramtype` rows of a file's functions and methods (`defs[i]` holds symbol i's node)."""
    return [Ref("paramtype", s.qualname, s.parent, s.name, slot, s.start_line, ptype)
            for s, d in zip(symbols, defs) if s.kind in ("function", "method")
            for slot, ptype in callback_parameters(d[4])]


def callback_parameters(definition) -> list[tuple[str, str]]:
    """What a function or method (its definition's node) declares its callbacks' parameters to
    be: ("k,j", type) for the j-th parameter of the k-th parameter's function type, when
    `annotation_type` makes a class or "builtin" of it. `this:` parameters are not counted."""
    if definition.type in ("variable_declarator", "public_field_definition"):
        definition = definition.child_by_field_name("value")
    params = definition.child_by_field_name("parameters") if definition is not None else None
    if params is None or b"=>" not in params.text:
        return []
    out = []
    for k, param in enumerate(_counted(params)):
        typ = param.child_by_field_name("type")
        fn = typ.named_children[0] if typ is not None and typ.named_children else None
        inner = fn.child_by_field_name("parameters") if fn is not None and fn.type == "function_type" else None
        for j, p in enumerate(_counted(inner) if inner is not None else ()):
            ann = p.child_by_field_name("type")
            t = annotation_type(ann.named_children[0].text.decode("utf-8", "replace")) \
                if ann is not None and ann.named_children else None
            if t is not None:
                out.append((f"{k},{j}", t))
    return out


def _counted(params) -> list:
    """The parameters a caller counts: not `this: T`, not comments."""
    return [p for p in params.named_children if p.type in ("required_parameter", "optional_parameter")
            and (p.child_by_field_name("pattern") is None or p.child_by_field_name("pattern").type != "this")]


def _index(nodes: list, node) -> int | None:
    ids = [n.id for n in nodes if n.type != "comment"]
    return ids.index(node.id) if node.id in ids else None
