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
from typing import Callable, NamedTuple

from memory_lsp.store.attribute_reads import Reads, Syntax, by_reader, matches, slices, written_about

_STATEMENT = re.compile(r"\s*(from|import|class)\s")  # an import, or a class's bases (INHERITS edges already)
# Python's docstrings and other long strings (prose), read in order with the strings and comments a `"""` may
# stand in (tomllib's `src.startswith('"""', pos)`), which end on their line
_TRIPLE = re.compile(r'("""|\'\'\')(.*?)\1|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*', re.S)
_IMPORTS = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t]*\([^)]*\)", re.M)  # `from m import (\n a,\n)`


MODULE_LEVEL = 2**31  # a use outside every chunk: the file's own, wider than any chunk


def users(cur, name: str, path: str, syntax: Syntax, release: Callable[[], object] | None = None,
          module_text: Callable[[str, list[str], str], str | None] | None = None) -> Reads:
    """The functions, methods and classes using `path::name` (a module-level function or class) as a
    value in its own file and in the files that import it. With `module_text` (a file's text when its content
    hash is the one given, the index's; "" when it holds none of the words given; else None: the caller reads
    the disk), their module-level code too, as the file's own uses (qualname None); the files it gives no
    text for are searched in their chunks' text, `release` handing DuckDB's cache back after each slice."""
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
    patterns = {at: _used_at(bindings.get(at, set()), modules.get(at, set()), name) for at in files}
    files = [at for at in files if patterns[at] is not None]
    # each file read whole once, from the disk where its text is the index's (then its module-level
    # code too, a decorator's arguments or an assignment, in no chunk); else its chunks' text
    texts: dict[str, str] = {}
    if module_text is not None and files:
        hashes = dict(cur.execute("SELECT path, hash FROM files WHERE path = ANY(?::VARCHAR[])", [files]).fetchall())
        texts = {at: text for at in files if at in hashes
                 and (text := module_text(at, words, hashes[at])) is not None}
    found = {at: spots for at, text in texts.items() if (spots := _spots(text, patterns[at], syntax))}
    reads = []  # (path, qualname, the chunk's span, line)
    if found:  # a line's chunks (a class's ends before its first member), the innermost its reader
        spans: dict[str, list[tuple[str, int, int]]] = {}
        for at, inside, start, end in cur.execute("""SELECT path, name, start_line, end_line FROM chunks
                                                     WHERE kind <> 'section' AND path = ANY(?::VARCHAR[])""",
                                                  [sorted(found)]).fetchall():
            spans.setdefault(at, []).append((inside, start, end))
        # a value a module-level container holds is the module's reference already (index/aliases.py
        # `held_values`), a dependent in the graph's answer: another file's (its own file is no dependent)
        held = set(cur.execute("SELECT src, line FROM edges WHERE kind = 'CALLS' AND dst = ? AND src = src_path "
                               "AND src <> ?", [f"{path}::{name}", path]).fetchall())
        for at, spots in found.items():
            for line in (i + 1 for i in _not_prose(texts[at], spots, syntax, spans.get(at, []))):
                around = [(inside, end - start, line) for inside, start, end in spans.get(at, ()) if start <= line <= end]
                reads += [(at, *r) for r in around] or \
                    ([(at, None, MODULE_LEVEL, line)] if (at, line) not in held else [])
    unread = [at for at in files if at not in texts]
    for low, high in slices(cur) if unread else ():  # a slice at a time, the text read handed back after each
        for at, inside, start, end, text in cur.execute(f"""
                SELECT path, name, start_line, end_line, text FROM chunks
                WHERE rowid > ? AND rowid <= ? AND kind <> 'section' AND path = ANY(?::VARCHAR[])
                  AND ({' OR '.join(['contains(text, ?)'] * len(words))})""", [low, high, unread, *words]).fetchall():
            reads += [(at, inside, end - start, start + i)
                      for i in _not_prose(text, _spots(text, patterns[at], syntax), syntax, [])]
        if release is not None:
            release()
    shown, total = by_reader(reads, (path, name))
    return Reads(shown, total, [])


def _spots(text: str, use: _Use, syntax: Syntax) -> list[tuple[int, int]]:
    """(line from 0, offset) of each use in `text` that is no import, base or one-line string or comment."""
    return [(line, start) for line, before, start in matches(text, use.pattern, use.written)
            if not _STATEMENT.match(before) and _used(before, syntax.comment)]


def _not_prose(text: str, spots: list[tuple[int, int]], syntax: Syntax, spans: list[tuple[str, int, int]]):
    """The lines of `spots` in no docstring or other long string, nor among the names an import in parentheses
    lists. A long string is told by reading the strings and comments in order, from where the definition
    around the spot starts (the outermost of `spans`, which no string holds), or the module-level code it
    is in: the text before says nothing of it, and the text after is not read."""
    if syntax.lang != "python":
        yield from (line for line, _ in spots)
        return
    regions: dict[int, list[tuple[int, int]]] = {}  # the line (from 1) a region starts at -> its spots
    for line, start in spots:
        inside = [a for _, a, b in spans if a <= line + 1 <= b]
        regions.setdefault(min(inside) if inside else 1 + max((b for _, _, b in spans if b <= line), default=0),
                           []).append((line, start))
    for first, here in regions.items():
        line, start = min(here)
        lo, hi = _line_start(text, start, line + 1 - first), max(start for _, start in here)
        prose = []
        for r in (_TRIPLE, _IMPORTS):
            for m in r.finditer(text, lo):
                if m.start() > hi:
                    break
                if r is _IMPORTS or m[1]:
                    prose.append(m.span())
        yield from (line for line, start in here if not any(a <= start < b for a, b in prose))


def _line_start(text: str, start: int, back: int) -> int:
    """Where the line `back` lines above the one holding offset `start` begins."""
    at = text.rfind("\n", 0, start)
    for _ in range(back):
        if at < 0:
            break
        at = text.rfind("\n", 0, at)
    return at + 1


class _Use(NamedTuple):
    """How a use is written: the names it may be written as, and the pattern a use matches where one starts."""

    written: tuple[str, ...]
    pattern: re.Pattern


def _used_at(bare: set[str], modules: set[str], name: str) -> _Use | None:
    """A bound name, or `m.name` with `m` bound to the module, not called, not assigned to, not a
    keyword argument's name, not a decorator (a decorator is a call), not another object's attribute."""
    written = tuple(sorted(bare)) + tuple(f"{m}.{name}" for m in sorted(modules))
    if not written:
        return None
    return _Use(written, re.compile(r"(?<![\w.@])(?:" + "|".join(map(re.escape, written)) + r")(?![\w(])(?!\s*=[^=])"))


def _used(before: str, comment: str) -> bool:
    """Not only written (`before`: its line up to it): not in a comment or a doctest, not inside a string
    on its line (an odd number of quotes before it), not the name a `def` or `class` defines."""
    return not (written_about(before, "", comment) or before.count('"') % 2 or before.count("'") % 2
                or before.rstrip().endswith(("def", "class")))
