"""Call and base-class resolution: how a reference becomes a CALLS or INHERITS edge, how sure
each strategy is, and which references an incremental run resolves again.

precise (0.9-0.95): `self.f()` inside a class -> that class's method (also a bare `f()` where
  the language lets methods call siblings without `this`); a definition in the same file; an
  imported name; a name reached through an imported module (`mod.f()`).
typed (0.9; 0.85 when found in a base): a receiver whose class the file says (index/receivers.py:
  `x = Foo()`, `x: Foo`, a parameter's annotation, `self.x = Foo()`, `with Foo() as x`) or a class
  named as the receiver (`Foo.f()`): that class's method, else the nearest base's; `self.f()`
  not defined in its class: its bases' (self_inherited); `super().f()`: the bases' only (super);
  a receiver typed by what a call of the file's own returns (index/returns.py); a module-level
  variable another file defines with a class (`current_app.f()`: module_var, store/var_calls.py);
  a test's pytest fixture parameter: the class its fixture returns or yields (`env.f()`:
  fixture_var, store/fixture_calls.py); what another file's function returns (`t =
  env.from_string(s); t.render()`: returned, store/return_calls.py); a base written as an attribute
  of a typed value (`class B(obj.attr)`): the class the attribute's annotation names (returned,
  store/inherit_marks.py), never guessed by name.
by name, only where nothing precise matched and the receiver's type is unknown: the name is
  defined elsewhere in the workspace: unique 0.5, up to 3 definitions 0.5/n each (@overload
  stubs are one; on an untyped Python receiver a name of a dict, list, set, str, bytes or file
  method counts one more: `x.items()` may well be a dict's); more, a receiver bound to an external import (`os.path.join`), a builtin or
  typed receiver, `self`, or a local name (a parameter): never guessed. In Java, which declares
  every type, a guess is half that (a call the index could not type is a chain it cannot follow,
  and such guesses were right 7-27% of the time against javac: bench/bench_java_calls.py), so
  none is listed by default.
A test's parameter names a pytest fixture: USES_FIXTURE (0.9), never CALLS.
Imports are resolved earlier, per language family, by index/resolvers/. The statements are in
store/edges.py.
"""

from __future__ import annotations

import io

from memory_lsp.index import languages
from memory_lsp.store import calls, edges, module_exports
from memory_lsp.store.db import Store
from memory_lsp.store.allocator import Purging, release_freed_memory

CONFIDENCE = edges.CallConfidence(self_receiver=0.95, implicit_self=0.9, same_file=0.9, imported=0.9,
                                  module_attr=0.9, by_name=0.5, typed=0.9, inherited=0.85, fixture=0.9)
MAX_NAME_CANDIDATES = 3
# methods of Python's containers and files: `x.items()`, `f.read()` on a receiver of unknown type
# is as likely a dict's or a file's as the one workspace method of that name (false name_unique
# guesses on requests: 22 of 23, click: 30 of 31): counted as one more candidate
PYTHON_BUILTIN_METHODS = tuple(sorted({n for t in (dict, list, set, str, bytes, io.IOBase, io.TextIOBase, io.BytesIO)
                                       for n in dir(t) if not n.startswith("_")}))
# and of every JavaScript object, array, string, number, function and regex: `maximum.toString()`,
# `keys.map()` on an untyped receiver. Not Map's and Set's (get, set, has, add...) nor a promise's
# (then, catch): a workspace's registries, caches and schemas define those often enough to be meant
JS_BUILTIN_METHODS = tuple(sorted("""
    toString valueOf hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString
    at concat copyWithin every fill filter find findIndex findLast findLastIndex flat flatMap forEach
    includes indexOf join lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice
    toReversed toSorted toSpliced unshift
    charAt charCodeAt codePointAt endsWith localeCompare match matchAll normalize padEnd padStart repeat replace
    replaceAll search split startsWith substring toLowerCase toUpperCase trim trimEnd trimStart
    apply bind call toFixed toPrecision test exec""".split()))
BUILTIN_METHODS = {(".py", ".pyi"): PYTHON_BUILTIN_METHODS,
                   (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"): JS_BUILTIN_METHODS}
# a changed name can reach a reference in a file that does not import the change only by name
# alone, and only when it is rare enough (definitions beyond this are never resolved by name)
RARE_NAME_LIMIT = MAX_NAME_CANDIDATES * 8


def resolve_all(store: Store, cur) -> None:
    release_freed_memory()  # what the writes freed, before DuckDB takes its share
    # one DuckDB thread: under the memory limit two threads' partitions spilled more; resolution took
    # 2.5-5.4 s instead of 4.2-8.7 s on the stdlib (BENCHMARKS.md z)
    with store.bulk(), store.single_threaded(), store.memory_for_references(cur):
        _resolve(store, Purging(cur), None)  # each statement's freed memory handed back as it ends


def resolve_again(store: Store, cur, rebound: set[str], names: set[str]) -> None:
    """Resolve again the references a change can affect: all of the `rebound` files; in files
    that import a rebound file, those named one of `names` or a local name an import binds one
    of them to (`from m import f as g; g()`), and so on through the modules re-exporting them;
    anywhere, those named a rare name or one some edge was resolved to by name alone (its count
    may have grown past the limit in this run)."""
    if not names:  # lines moved, no symbol changed: only the rebound files' own references
        _resolve(store, cur, edges.RefScope(rebound, set(), set(), set()))
        return
    importers = edges.importers_of(store, cur, rebound) | rebound
    local = set(names)
    # a name re-exported (`from .a import get` in a package's __init__, and its own importers')
    # resolves through each module on the way (store/module_exports.py follows REEXPORT_HOPS of them)
    files, bound, seen = rebound, names, set(rebound)
    for _ in range(module_exports.REEXPORT_HOPS):
        rows = edges.bindings_into(store, cur, files, bound)
        files, bound = {path for path, _ in rows}, {binding for _, binding in rows}
        if not rows or bound <= local and files <= seen:
            break
        local |= bound
        seen |= files
        importers |= edges.importers_of(store, cur, files) | files
    by_name = edges.names_defined_at_most(store, cur, names, RARE_NAME_LIMIT) \
        | edges.names_resolved_by_name(store, cur, names) | edges.fixture_names(store, cur, names)
    _resolve(store, cur, edges.RefScope(rebound, local, importers, by_name))


def _resolve(store: Store, cur, scope: edges.RefScope | None) -> None:
    registry = languages.registry().values()
    self_names = sorted({s for lang in registry for s in lang.self_names})
    implicit = [lang.name for lang in registry if lang.implicit_self]
    calls.resolve_refs(store, cur, self_names, implicit, CONFIDENCE, MAX_NAME_CANDIDATES, scope, languages.families(),
                       BUILTIN_METHODS)
