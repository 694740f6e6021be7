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
A bare name not declared in the method is a field of the class (`field.run()` is `this.field`).
No return types yet: `make().run()` stays untyped (name guesses allowed, as before).
"""

from __future__ import annotations

import re

from memory_lsp.index import receivers

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
    if kind in ("type", "call"):  # a declared type, or the class of `new Foo<>(...)`
        return annotation_type(text or "")
    if kind == "literal":
        return "builtin"
    return None


def rtype(scopes: receivers.Scopes, chain: list[str | None], cls: str | None, name: str, receiver: str | None,
          defined_here: bool, returns=None, line: int | None = None) -> str | None:
    """The receiver type of one call reference (module docstring); same signature as
    receivers.rtype (`returns` unused: no return types for Java yet)."""
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
    if first in JAVA_LANG and first != receiver and scopes.lookup(chain, first) is None:
        return "builtin"  # `Runtime.getRuntime().addShutdownHook()`, `System.out.println()`: java.lang's
    made = _NEW.match(receiver)
    if made:  # `new Foo().f()`
        return binding_type("call", made.group(1))
    if receiver.startswith("this.") and receiver[5:].isidentifier():
        hit = scopes.lookup([cls], "self." + receiver[5:]) if cls is not None else None
    elif receiver.isidentifier():
        hit = scopes.lookup(chain, receiver, line)
        if hit is None and cls is not None:  # not declared in the method: a field of the class
            hit = scopes.lookup([cls], "self." + receiver)
    else:
        return None
    if hit is None or hit[1] in (None, receivers.CONFLICT):
        return None
    return hit[1]

