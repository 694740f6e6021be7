"""Receiver types for Java: index/receivers.py's ideas where Java declares them.

Java says what every name is: the tags query captures local variables (`Foo x = ...`, `var x =
new Foo()`), parameters, catch and for-each variables, fields (`private Foo x;`, bound as
`self.x`) and `this.x = new Foo()`. A call's receiver is then typed from them:
  "Foo" (as written, generics dropped): the class or interface is looked up (the file's own, an
      import, or a class of the calling file's package: store/calls.py) and the method found in
      it or its bases;
  "builtin": a primitive, an array, a `java.lang` class (`String`, `Object`, `Integer`...), any
      type written `java.`/`javax.`, or a literal: never linked to a workspace method by name;
  "super": `super.f()`; None: nothing known (a receiver that is a chain or a call, a type
      parameter, a class named for a static call: the store's to find).
A bare name not declared in the method is a field of the class, of a base this file defines, or
of a class around it (`next.match()` in a nested class extending Node). An element of a declared
container or array is its type argument (`items.get(i)` on `List<Foo>`, `formats[i]` on
`Format[]`). One step on another value is a mark of what it reads (`uri.getScheme()` ->
`->URI.getScheme`), which closes guesses when that class comes from outside.
No return types yet: `make().run()` stays untyped (name guesses allowed, as before).
"""

from __future__ import annotations

import re

from memory_lsp.index import exprtext, receivers

PRIMITIVES = frozenset("boolean byte char short int long float double void".split())
# java.lang, which every file sees without an import (a workspace class so named would shadow it:
# rare enough that these close guesses)
JAVA_LANG = frozenset(
    "Object String StringBuilder StringBuffer CharSequence Integer Long Short Byte Double Float Boolean "
    "Character Number Math StrictMath System Class ClassLoader Thread Runnable Throwable Exception "
    "RuntimeException Error Iterable Comparable AutoCloseable Enum Record Void Process Runtime "
    "IllegalArgumentException IllegalStateException NullPointerException UnsupportedOperationException "
    "IndexOutOfBoundsException ClassCastException InterruptedException ReflectiveOperationException "
    "ClassNotFoundException NoSuchMethodException NoSuchFieldException".split())
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*")
_LITERAL_START = re.compile(r"""^(?:['"]|\d)""")
_CAST = re.compile(r"^\(\s*\(\s*([A-Za-z_$][\w$.]*(?:<.*>)?(?:\[\])*)\s*\)\s*[A-Za-z_$][\w$.]*\s*\)$", re.S)
_INDEXED = re.compile(r"^((?:this\s*\.\s*)?[A-Za-z_$][\w$]*)\s*\[.*\]$", re.S)
# methods that give an element of a container declared `List<Foo>`, `Iterator<Foo>`, `Optional<Foo>`
# (the last type argument: `Map<K, V>.get` gives a V), and a map entry's key
ELEMENT_METHODS = frozenset(
    "get next previous poll peek pop remove element getFirst getLast first last take elementAt firstElement "
    "lastElement nextElement orElse orElseThrow orElseGet getValue getOrDefault pollFirst pollLast "
    "removeFirst removeLast peekFirst peekLast".split())
_NEW = re.compile(r"^new\s+([A-Za-z_$][\w$.]*)\s*(?:<.*>)?\s*\(.*\)$", re.S)


def annotation_type(text: str) -> str | None:
    """A declared type as the class it names: `Foo<Bar>` -> Foo, `com.x.Foo` as written;
    primitives, arrays, `java.lang` and `java.*`/`javax.*` types -> "builtin"; a type parameter
    (`T`), a wildcard, a union of catch types -> None."""
    t = text.strip()
    if t.endswith("]") or t.endswith("..."):
        return "builtin"
    base = t.split("<", 1)[0].strip()
    if base in PRIMITIVES:
        return "builtin"
    if not _NAME.fullmatch(base):
        return None  # `A | B` in a catch, `? extends T`
    base = re.sub(r"\s+", "", base)
    if base.startswith(("java.", "javax.")):
        return "builtin"
    last = base.rsplit(".", 1)[-1]
    if last in JAVA_LANG and "." not in base:
        return "builtin"
    if len(last) == 1 or not last[:1].isupper():
        return None  # `T`; lower case names no class
    return base


def binding_type(kind: str, text: str | None) -> str | None:
    """A declared type kept whole when it has type arguments or is an array (`List<Foo>`,
    `Foo[]`: what its elements are, `resolved` gives the class); else the class it names."""
    if kind in ("type", "call"):  # a declared type, or the class of `new Foo<>(...)`
        typ = annotation_type(text or "")
        whole = re.sub(r"\s+", "", text or "")
        return whole if typ is not None and kind == "type" and ("<" in whole or whole.endswith("]")) else typ
    if kind == "literal":
        return "builtin"
    return None


def returned_type(text: str, typevars: frozenset = frozenset()) -> str | None:
    """A method's declared return type as the class it names (index/returns.py asks)."""
    return resolved(binding_type("type", text))


def applied_type(text: str, typevars: frozenset = frozenset()) -> str | None:
    return None  # Java has no decorator factories


def resolved(declared: str | None) -> str | None:
    """The class a binding names (`List<Foo>` -> List, `Foo[]` -> builtin)."""
    if declared is None or declared == receivers.CONFLICT:
        return None
    return annotation_type(declared) if "<" in declared or declared.endswith("]") else declared


def element(declared: str | None, step: str | None) -> str | None:
    """What `step` (None: an index, `x[i]`) gives on a value declared `declared`: an array's
    element, a container's last type argument (`getKey` the first), when a class or Java's own."""
    if not declared:
        return None
    if step is None:
        return annotation_type(declared[:-2]) if declared.endswith("[]") else None
    if step not in ELEMENT_METHODS and step != "getKey" or "<" not in declared or not declared.endswith(">"):
        return None
    args = exprtext.top_split(declared[declared.index("<") + 1:-1], ",", angle=True)
    arg = (args[0] if step == "getKey" else args[-1]).strip()
    for prefix in ("?extends", "?super"):
        arg = arg[len(prefix):] if arg.startswith(prefix) else arg
    return annotation_type(arg) if arg and arg != "?" else None


def _declared(scopes: receivers.Scopes, chain: list, cls: str | None, name: str, line: int | None,
              returns=None) -> str | None:
    """What a name (`x`, `this.x`, a field used bare) is declared as, whole: a field of the class,
    of its bases in this file, or (used bare) of a class around it."""
    field = re.sub(r"^this\s*\.\s*", "", name)
    hit = scopes.lookup(chain, name, line) if name.isidentifier() else None
    if hit is None and cls is not None and field.isidentifier():
        around = _outer(cls) if field == name else []
        for owner in [cls] + _lineage(returns, cls) + around:
            hit = scopes.lookup([owner], "self." + field)
            if hit is not None:
                break
    return None if hit is None or hit[1] in (None, receivers.CONFLICT) else hit[1]


def _outer(cls: str) -> list[str]:
    """The classes around a nested one, nearest first (`Pattern.Node.Slice` -> Pattern.Node, Pattern)."""
    parts = cls.split(".")
    return [".".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)]


def _lineage(returns, cls: str) -> list[str]:
    """The bases of `cls` this file defines, nearest first; Java names a nested class by its own
    name (`extends Node` inside Pattern is Pattern.Node): the one nearest `cls` is meant."""
    if returns is None:
        return []
    if cls in returns.lineages:  # asked per reference: one pass over the file's classes per base
        return returns.lineages[cls]
    out, todo = [], [cls]
    while todo and len(out) < 8:
        here = todo.pop(0)
        for base in returns.bases.get(here, ()):
            base = base.split("<", 1)[0]
            found = sorted((q for q in returns.classes if q == base or q.endswith("." + base)),
                           key=lambda q: -len(_common(q, here)))
            if found and found[0] not in out and found[0] != cls:
                out.append(found[0])
                todo.append(found[0])
    returns.lineages[cls] = out
    return out


def _common(a: str, b: str) -> str:
    parts = []
    for x, y in zip(a.split("."), b.split(".")):
        if x != y:
            break
        parts.append(x)
    return ".".join(parts)


def rtype(scopes: receivers.Scopes, chain: list[str | None], cls: str | None, name: str, receiver: str | None,
          defined_here: bool, returns=None, line: int | None = None) -> str | None:
    """The receiver type of one call reference (module docstring); same signature as
    receivers.rtype (`returns`: the file's classes and bases, for a field a base declares)."""
    if receiver is None or receiver == "this":
        return None  # a method of the class: the store's implicit `this`
    if receiver == "super":
        return "super"
    if _LITERAL_START.match(receiver):
        return "builtin"
    cast = _CAST.match(receiver)
    if cast:  # `((ByteBuffer) b).order()`: the type it is cast to
        return annotation_type(cast.group(1))
    first = receiver.split(".", 1)[0]
    if first in JAVA_LANG and scopes.lookup(chain, first) is None:
        return "builtin"  # `Runtime.getRuntime().addShutdownHook()`, `System.out.println()`: java.lang's
    if receiver.endswith(".this") and receiver[:-5].isidentifier():  # `Outer.this.f()`
        return annotation_type(receiver[:-5])
    made = _NEW.match(receiver)
    if made:  # `new Foo().f()`
        return binding_type("call", made.group(1))
    indexed = _INDEXED.match(receiver)
    if indexed:  # `formats[i].format()`: an element of `Format[] formats`
        return element(_declared(scopes, chain, cls, indexed.group(1), line, returns), None)
    if receiver.isidentifier() or receiver.startswith("this.") and receiver[5:].isidentifier():
        return resolved(_declared(scopes, chain, cls, receiver, line, returns))
    own = exprtext.own_call(receiver)
    if own and cls is not None:  # `make().run()`: what this class's method returns
        return receivers.member_mark(cls, own)
    return _chain(scopes, chain, cls, receiver, line, returns)


def _chain(scopes: receivers.Scopes, chain: list, cls: str | None, receiver: str, line: int | None,
           returns=None) -> str | None:
    """`x.f(...)`, `Foo.make()`, `x.field` as a receiver: an element of a container (`items.get(i)`
    on `List<Foo> items` is a Foo), else a mark of the method or field it reads (`->URI.getScheme`:
    store/calls.py closes it when URI comes from outside, else a guess as before); a longer chain
    is typed only on Java's own type (Java's own)."""
    step = exprtext.first_step(receiver)
    if step is None:
        return None
    root, step, alone = step
    declared = _declared(scopes, chain, cls, root, line, returns)
    typ = cls if root == "this" else resolved(declared)
    if typ is None and root[:1].isupper() and root.isidentifier() and scopes.lookup(chain, root) is None:
        typ = root  # a class named for a static call: `Signal.getDeclaredConstructor(...)`
    if typ == "builtin" and not (declared or "").endswith(">"):
        return "builtin"
    if not alone:
        return None  # `a.b().c()`: what `.b()` gives is not known
    contained = element(declared, step)
    if contained is not None:
        return contained
    return receivers.member_mark(typ, step)
