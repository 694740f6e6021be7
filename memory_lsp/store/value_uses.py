"""Where a module's function or class is used without being called, in the files that import it:
handed on (`post_migrate.connect(create_contenttypes)`, `sorted(key=path_level)`), checked against
(`isinstance(x, Foo)`, `except FooError:`), annotated with, read (`mod.CONST`-like `mod.func`). The
graph has edges for calls, so such a use had none and `impact` missed it: Django runs
`create_contenttypes` after every migration through that `connect`. Unlike a method's reads
(store/attribute_reads.py) these are typed by the import: only files binding the name to this
symbol (directly, or through one module re-exporting it), the module's own file, and `m.name` with `m`
bound to the module are searched, so the answer is small and its text read is the importers' only.
"""

from __future__ import annotations

import re
from typing import Callable

from memory_lsp.store.attribute_reads import Reads, Syntax, by_reader, matches, slices, written_about

_STATEMENT = re.compile(r"\s*(from|import|class)\s")  # an import, or a class's bases (INHERITS edges already)
_TRIPLE = re.compile(r'("""|\'\'\')(.*?)\1', re.S)  # Python's docstrings and other long strings: prose
_IMPORTS = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]*\([^)]*\)", re.M)  # `from m import (\n a,\n)`


MODULE_LEVEL = 2**31  # a use outside every chunk: the file's own, wider than any chunk


def users(cur, name: str, path: str, syntax: Syntax, release: Callable[[], object] | None = None,
          module_text: Callable[[str, list[str], str], str | None] | None = None) -> Reads:
    """The functions, methods and classes using `path::name` (a module-level function or class) as a
    value in its own file and in the files that import it. With `module_text` (a file's text when it holds
    one of the words given and its content hash is the one given, the index's, else None: the caller reads
    the disk), their module-level code too, as the file's own uses (qualname None). `release` hands
    DuckDB's cache back after each slice of chunks read."""
    # file -> the names it is bound to there: its own file's and its stub's beside it (`x.pyi` by `x.py`)
    bindings: dict[str, set[str]] = {path: {name}, **({path + "i": {name}} if path.endswith(".py") else {})}
    modules: dict[str, set[str]] = {}  # file -> the dotted names the module is reached by there
    hops = {path} | {r[0] for r in cur.execute("SELECT DISTINCT path FROM imports WHERE name = ? AND target = ?",
                                                [name, path]).fetchall()}  # it and the modules re-exporting it
    # a package above it, bound whole (`import requests`: `requests.cookies.CookieConflictError`)
    packages = {f"{path[:i]}/__init__.py": path[i + 1:].rsplit(".", 1)[0].replace("/", ".")
                for i in range(len(path)) if path[i] == "/"}
    packages.pop(path, None)
    wanted = sorted(hops | packages.keys())
    for at, binding, is_module, target in cur.execute(f"""
            SELECT path, binding, is_module, target FROM imports
            WHERE target IN ({', '.join('?' * len(wanted))}) AND (is_module OR name = ?)""",
                                                      [*wanted, name]).fetchall():
        if binding is None:  # `from m import *`: every name m offers, this one too where m has it
            if target in hops:
                bindings.setdefault(at, set()).add(name)
            continue
        if not is_module:
            bindings.setdefault(at, set()).add(binding)
            continue
        if target in hops:
            modules.setdefault(at, set()).add(binding)
        if target in packages:  # the package: the rest of the way to the module is written out
            modules.setdefault(at, set()).add(f"{binding}.{packages[target]}")
    files = sorted(bindings.keys() | modules.keys())
    words = sorted({b for found in bindings.values() for b in found} | {name})  # what a use must hold
    rows = []
    for low, high in slices(cur):  # a slice at a time, the text read handed back after each
        rows += cur.execute(f"""
            SELECT path, name, start_line, end_line, text FROM chunks
            WHERE rowid > ? AND rowid <= ? AND kind <> 'section' AND path = ANY(?::VARCHAR[])
              AND ({' OR '.join(['contains(text, ?)'] * len(words))})""", [low, high, files, *words]).fetchall()
        if release is not None:
            release()
    patterns = {at: _used_at(bindings.get(at, set()), modules.get(at, set()), name) for at in files}
    reads = []  # (path, qualname, the chunk's span, line)
    for at, inside, start, end, text in rows:
        reads += [(at, inside, end - start, start + i) for i in _uses_in(text, patterns[at], syntax)]
    if module_text is not None:  # module-level code is in no chunk (a decorator's arguments, an assignment)
        spans: dict[str, list[tuple[int, int]]] = {}
        for at, start, end in cur.execute("""SELECT path, start_line, end_line FROM chunks WHERE kind <> 'section'
                                              AND path = ANY(?::VARCHAR[])""", [files]).fetchall():
            spans.setdefault(at, []).append((start, end))
        hashes = dict(cur.execute("SELECT path, hash FROM files WHERE path = ANY(?::VARCHAR[])", [files]).fetchall())
        # a value a module-level container holds is the module's reference already (index/aliases.py
        # `held_values`), a dependent in the graph's answer: another file's (its own file is no dependent)
        held = set(cur.execute("SELECT src, line FROM edges WHERE kind = 'CALLS' AND dst = ? AND src = src_path "
                               "AND src <> ?", [f"{path}::{name}", path]).fetchall())
        for at in files:
            text = module_text(at, words, hashes[at]) if patterns[at] is not None and at in hashes else None
            if text is not None:
                reads += [(at, None, MODULE_LEVEL, i + 1) for i in _uses_in(text, patterns[at], syntax)
                          if not any(a <= i + 1 <= b for a, b in spans.get(at, ())) and (at, i + 1) not in held]
    shown, total = by_reader(reads, (path, name))
    return Reads(shown, total, [])


def _uses_in(text: str, pattern: re.Pattern | None, syntax: Syntax):
    """The lines (from 0) of `text` holding a use `pattern` finds that is no import, base, prose or string."""
    found = list(matches(text, pattern)) if pattern is not None else []
    if not found:
        return
    # docstrings, and the names an import in parentheses lists on lines of their own
    prose = [m.span() for r in (_TRIPLE, _IMPORTS) for m in r.finditer(text)] if syntax.lang == "python" else []
    for line, before, start in found:
        if not _STATEMENT.match(before) and _used(before, syntax.comment) and \
                not any(a <= start < b for a, b in prose):
            yield line


def _used_at(bare: set[str], modules: set[str], name: str) -> re.Pattern | None:
    """A bound name, or `m.name` with `m` bound to the module, not called, not assigned to, not a
    keyword argument's name, not a decorator (a decorator is a call), not another object's attribute."""
    names = [re.escape(b) for b in sorted(bare)] + [re.escape(m) + r"\." + re.escape(name) for m in sorted(modules)]
    if not names:
        return None
    return re.compile(r"(?<![\w.@])(?:" + "|".join(names) + r")(?![\w(])(?!\s*=[^=])")


def _used(before: str, comment: str) -> bool:
    """Not only written (`before`: its line up to it): not in a comment or a doctest, not inside a string
    on its line (an odd number of quotes before it), not the name a `def` or `class` defines."""
    return not (written_about(before, "", comment) or before.count('"') % 2 or before.count("'") % 2
                or before.rstrip().endswith(("def", "class")))
