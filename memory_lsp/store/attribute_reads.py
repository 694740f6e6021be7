"""Where a name is read as an attribute (`request.accept_languages`, `handler=self.on_close`): the
code chunks' text searched for it, for what the graph cannot say. The index keeps calls, not reads,
so a property or a method handed on as a callback has no edge from the code that reads it, and
`impact` would answer "0 dependents". A read found by name is not typed: an attribute of the same
name on another class matches too, so the answer says "by name" (workspace/queries.py `impact`).
"""

from __future__ import annotations

import re

READS_SHOWN = 50  # readers listed per answer; the rest counted


def _read_at(name: str) -> re.Pattern:
    """`.name` not followed by more of a name or by a call's parenthesis (a call is an edge already);
    group 1: the dotted name it is read from, when it is one (`ds` in `ds.name`)."""
    return re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?\." + re.escape(name) + r"(?![\w(])")


def _in_dotted_string(line: str, read: re.Match) -> bool:
    """`"django.db.models"`: a dotted name written in a string, no read (an f-string's `{x.name}` is one)."""
    return read.start() > 0 and line[read.start() - 1] in "\"'" and bool(read.group(1))


def readers(cur, name: str, path: str, qualname: str) -> tuple[list[tuple[str, str, list[int]]], int]:
    """(path, qualname, lines) of the functions, methods and classes reading `.name` in the files of
    `path`'s language, each read given to the innermost chunk around it: the first READS_SHOWN by
    path and first line, and how many there are in all. `path::qualname` (the symbol asked about)
    is no reader of its own."""
    after = r"\." + re.escape(name) + r"([^\w(]|$)"  # RE2 has no look-ahead: what may follow the name, spelled out
    rows = cur.execute("""
        SELECT c.path, c.name, c.start_line, c.end_line, c.text FROM chunks c JOIN files f ON f.path = c.path
        WHERE f.lang = (SELECT lang FROM files WHERE path = ?) AND c.kind <> 'section' AND contains(c.text, ?)
          AND regexp_matches(c.text, ?)
        ORDER BY c.path, c.start_line, c.end_line DESC""", [path, "." + name, after]).fetchall()
    pattern, modules = _read_at(name), _module_names(cur, {r[0] for r in rows})
    found: dict[tuple[str, int], tuple[int, str]] = {}  # (path, line) -> (the chunk's span, its qualname)
    for at, inside, start, end, text in rows:
        for i, line in enumerate(text.split("\n")):
            # `ds.name` with `ds` a module the file imports: a submodule or a module's value, no attribute
            if any(m.group(1) not in modules.get(at, ()) and not _in_dotted_string(line, m)
                   for m in pattern.finditer(line)):
                key, span = (at, start + i), end - start
                if key not in found or span < found[key][0]:  # a nested function's read is its own
                    found[key] = (span, inside)
    lines: dict[tuple[str, str], list[int]] = {}
    for (at, line), (_, inside) in sorted(found.items()):
        lines.setdefault((at, inside), []).append(line)
    lines.pop((path, qualname), None)
    reads = sorted(((at, inside, found) for (at, inside), found in lines.items()), key=lambda r: (r[0], r[2][0]))
    return reads[:READS_SHOWN], len(reads)


def _module_names(cur, paths: set[str]) -> dict[str, set[str]]:
    """Per file, the names its imports bind to a module (`import re`, `from . import datastructures as ds`)."""
    if not paths:
        return {}
    found: dict[str, set[str]] = {}
    for path, binding in cur.execute("SELECT path, binding FROM imports WHERE (name IS NULL OR is_module) AND path IN "
                                     f"({', '.join('?' * len(paths))})", sorted(paths)).fetchall():
        found.setdefault(path, set()).add(binding)
    return found
