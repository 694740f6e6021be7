"""Where a name is read as an attribute (`request.accept_languages`, `handler=self.on_close`): the
code chunks' text searched for it, for what the graph cannot say. The index keeps calls, not reads,
so a property or a method handed on as a callback has no edge from the code that reads it, and
`impact` would answer "0 dependents". A read found by name is not typed: an attribute of the same
name on another class matches too, so the answer says "by name" (workspace/queries.py `impact`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

READS_SHOWN = 50  # readers listed per answer; the rest counted
OTHERS_SHOWN = 10  # other classes named that define the name too


class Reads(NamedTuple):
    shown: list[tuple[str, str, list[int]]]  # (path, qualname, lines) of the first READS_SHOWN readers
    total: int  # readers in all
    # other classes (not the method's, a base or a subclass of it) with a method of the name, the first
    # OTHERS_SHOWN: the readers may read theirs
    others: list[str]


def _read_at(name: str) -> re.Pattern:
    """`.name` not followed by more of a name or by a call's parenthesis (a call is an edge already);
    group 1: the dotted name it is read from, when it is one (`ds` in `ds.name`)."""
    return re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?\." + re.escape(name) + r"(?![\w(])")


def _written_about(line: str, read: re.Match) -> bool:
    """A read only written about: a dotted name in a string or a reference (`"django.db.models"`,
    :meth:`Response.stream`; an f-string's `{x.name}` is a read), in a comment, or a doctest's line."""
    before = line[:read.start()]
    return (bool(read.group(1)) and before[-1:] in "\"'`") or "#" in before or line.lstrip().startswith((">>>", "..."))


def readers(cur, name: str, path: str, qualname: str) -> Reads:
    """The functions, methods and classes reading `.name` in the files of `path`'s language, each read
    given to the innermost chunk around it, by path and first line. `path::qualname` (the method
    asked about) is no reader of its own."""
    after = r"\." + re.escape(name) + r"([^\w(]|$)"  # RE2 has no look-ahead: what may follow the name, spelled out
    rows = cur.execute("""
        SELECT c.path, c.name, c.start_line, c.end_line, c.text FROM chunks c JOIN files f ON f.path = c.path
        WHERE f.lang = (SELECT lang FROM files WHERE path = ?) AND c.kind <> 'section' AND contains(c.text, ?)
          AND regexp_matches(c.text, ?)
        ORDER BY c.path, c.start_line, c.end_line DESC""", [path, "." + name, after]).fetchall()
    pattern, modules = _read_at(name), _module_names(cur, {r[0] for r in rows})
    family = _family(cur, f"{path}::{qualname.rpartition('.')[0]}")
    other = _other_classes(cur, family, {(r[0], r[1]) for r in rows})
    found: dict[tuple[str, int], tuple[int, str]] = {}  # (path, line) -> (the chunk's span, its qualname)
    for at, inside, start, end, text in rows:
        for i, line in enumerate(text.split("\n")):
            # `ds.name` with `ds` a module the file imports: a submodule or a module's value, no attribute;
            # `self.name` in a class neither the method's, nor a base or a subclass of it: another class's
            if any(m.group(1) not in modules.get(at, ()) and not _written_about(line, m)
                   and not (m.group(1) in ("self", "cls") and (at, inside) in other)
                   for m in pattern.finditer(line)):
                key, span = (at, start + i), end - start
                if key not in found or span < found[key][0]:  # a nested function's read is its own
                    found[key] = (span, inside)
    lines: dict[tuple[str, str], list[int]] = {}
    for (at, line), (_, inside) in sorted(found.items()):
        lines.setdefault((at, inside), []).append(line)
    lines.pop((path, qualname), None)
    reads = sorted(((at, inside, found) for (at, inside), found in lines.items()), key=lambda r: (r[0], r[2][0]))
    others = [r[0] for r in cur.execute("""
        SELECT DISTINCT s.path || '::' || s.parent FROM symbols s JOIN files f ON f.path = s.path
        WHERE s.name = ? AND s.kind = 'method' AND f.lang = (SELECT lang FROM files WHERE path = ?)
        ORDER BY 1""", [name, path]).fetchall() if r[0] not in family]
    return Reads(reads[:READS_SHOWN], len(reads), others[:OTHERS_SHOWN])


def _module_names(cur, paths: set[str]) -> dict[str, set[str]]:
    """Per file, the names its imports bind to a module (`import re`, `from . import datastructures as ds`)."""
    if not paths:
        return {}
    found: dict[str, set[str]] = {}
    for path, binding in cur.execute("SELECT path, binding FROM imports WHERE (name IS NULL OR is_module) AND path IN "
                                     f"({', '.join('?' * len(paths))})", sorted(paths)).fetchall():
        found.setdefault(path, set()).add(binding)
    return found


def _family(cur, owner: str) -> set[str]:
    """The class `owner` (an id), its bases and its subclasses, at any depth (INHERITS)."""
    return {r[0] for r in cur.execute("""
        WITH RECURSIVE inherits AS (SELECT src, dst FROM edges WHERE kind = 'INHERITS'),
        up(id) AS (SELECT ? UNION SELECT i.dst FROM inherits i JOIN up ON i.src = up.id),
        down(id) AS (SELECT ? UNION SELECT i.src FROM inherits i JOIN down ON i.dst = down.id)
        SELECT id FROM up UNION SELECT id FROM down""", [owner, owner]).fetchall()}


def _other_classes(cur, family: set[str], readers: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The readers (path, qualname) inside a class outside `family` (`_family`): there `self` is no
    instance of the method's class."""
    around = {(p, q): [f"{p}::{q[:i]}" for i in range(len(q)) if q[i] == "."] for p, q in readers}
    wanted = sorted({c for ids in around.values() for c in ids})
    if not wanted:
        return set()
    marks = ", ".join("?" * len(wanted))
    classes = {r[0] for r in cur.execute(f"SELECT id FROM symbols WHERE kind = 'class' AND id IN ({marks})",
                                         wanted).fetchall()}
    # the innermost class around the reader is what `self` is
    return {key for key, ids in around.items()
            if (inner := [c for c in ids if c in classes]) and inner[-1] not in family}
