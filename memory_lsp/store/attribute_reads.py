"""Where a name is read as an attribute (`request.accept_languages`, `handler=self.on_close`): the
code chunks' text searched for it, for what the graph cannot say. The index keeps calls, not reads,
so a property or a method handed on as a callback has no edge from the code that reads it, and
`impact` would answer "0 dependents". A read found by name is not typed: an attribute of the same
name on another class matches too, so the answer says "by name" (workspace/queries.py `impact`).
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

READS_SHOWN = 50  # readers listed per answer; the rest counted
OTHERS_SHOWN = 10  # other classes named that define the name too
# chunks searched per statement: DuckDB keeps the text it read cached up to its limit (RSS +195 MB for all of it
# at 11,282 files), so the search goes a slice of the table at a time, the cache handed back after each (+70 MB)
SLICE_ROWS = 65_536


class Syntax(NamedTuple):
    """What the search needs of the target's language (index/languages.py's registry, handed in)."""

    lang: str
    comment: str  # what starts a comment to the end of the line
    self_names: tuple[str, ...]  # the names a method calls its instance by


class Reads(NamedTuple):
    shown: list[tuple[str, str, list[int]]]  # (path, qualname, lines) of the first READS_SHOWN readers
    total: int  # readers in all
    # other classes (not the method's, a base or a subclass of it) with a method of the name, the first
    # OTHERS_SHOWN: the readers may read theirs
    others: list[str]


def _read_at(name: str) -> re.Pattern:
    """`.name` not followed by more of a name or by a call's parenthesis (a call is an edge already)."""
    return re.compile(r"\." + re.escape(name) + r"(?![\w(])")


def matches(text: str, pattern: re.Pattern, written: tuple[str, ...] = ()):
    """Per match of `pattern` in `text`: its line's index (from 0), its line's text before it, and where it
    starts. With `written`, the strings every match starts with: tried only where one starts (Python's `re`
    tries a pattern opening with a look-behind at every character: 4x slower on the stdlib)."""
    line, last = 0, 0
    for start in _starts(text, pattern, written) if written else (m.start() for m in pattern.finditer(text)):
        line, last = line + text.count("\n", last, start), start
        yield line, text[text.rfind("\n", 0, start) + 1:start], start


def _starts(text: str, pattern: re.Pattern, written: tuple[str, ...]):
    """Where `pattern` matches at an occurrence of one of `written` (no two matches overlap: one
    starting inside another follows a name's character, which the look-behind refuses)."""
    at = set()
    for w in written:
        i = text.find(w)
        while i >= 0:
            at.add(i)
            i = text.find(w, i + 1)
    return (i for i in sorted(at) if pattern.match(text, i))


def _read_from(before: str) -> str:
    """The dotted name a read is from (`self` in `self.name`, `a.b` in `a.b.name`; "" after a call or a
    subscript), `before`: its line up to the read."""
    i = len(before)
    while i and (before[i - 1].isalnum() or before[i - 1] in "_."):
        i -= 1
    chain = before[i:]
    return "" if chain[:1] in (".", "") or chain[0].isdigit() else chain


def written_about(before: str, chain: str, comment: str) -> bool:
    """A read only written about: a dotted name in a string or a reference (`"django.db.models"`,
    :meth:`Response.stream`; an f-string's `{x.name}` is a read), in a comment, or a doctest's line."""
    quoted = bool(chain) and before[:len(before) - len(chain)][-1:] in "\"'`"
    return quoted or comment in before or before.lstrip().startswith((">>>", "..."))


def readers(cur, name: str, path: str, qualname: str, syntax: Syntax,
            release: Callable[[], object] | None = None,
            module_text: Callable[[str, list[str], str], str | None] | None = None,
            family: set[str] | None = None) -> Reads:
    """The functions, methods and classes reading `.name` in the files of `path`'s language (`syntax`),
    each read given to the innermost chunk around it, by path and first line. `path::qualname` (the
    method asked about) is no reader of its own. `release` hands DuckDB's cache back after each slice.
    In Python the files searched are those the index found reading the name (`attr` rows, index/reads.py),
    read whole from the disk by `module_text` (as store/value_uses.py's `users`) where their text is the
    index's: no scan of every chunk's text (~100 ms a method on the stdlib, most of an answer). `family`: the
    method's class, its bases and subclasses (by the edges table's INHERITS rows if not handed in)."""
    hits = _hits(cur, name, syntax, release, module_text)  # (path, qualname, start, end, line, before)
    modules = _module_names(cur, {h[0] for h in hits})
    family = family if family is not None else _family(cur, f"{path}::{qualname.rpartition('.')[0]}")
    other = _other_classes(cur, family, {(h[0], h[1]) for h in hits})
    reads = []  # (path, qualname, the chunk's span, line, the dotted name read from)
    for at, inside, start, end, line, before in hits:
        chain = _read_from(before)
        # `ds.name` with `ds` a module the file imports: a submodule or a module's value, no attribute;
        # `self.name` in a class neither the method's, nor a base or a subclass of it: another class's
        if not (chain in modules.get(at, ()) or written_about(before, chain, syntax.comment)
                or (chain in syntax.self_names and (at, inside) in other)):
            reads.append((at, inside, end - start, line, chain))
    # as is `x.name` where the function's calls through `x` are typed to other classes only
    typed = _typed_receivers(cur, {(f"{r[0]}::{r[1]}", r[4]) for r in reads if r[4] and r[4] not in syntax.self_names})
    kept = []
    for at, inside, span, line, chain in reads:
        classes = typed.get((f"{at}::{inside}", chain))
        if not classes or classes & family:
            kept.append((at, inside, span, line))
    shown, total = by_reader(kept, (path, qualname))
    others = [r[0] for r in cur.execute("""
        SELECT DISTINCT path || '::' || parent FROM symbols
        WHERE name = ? AND kind = 'method' AND path IN (SELECT path FROM files WHERE lang = ?)
        ORDER BY 1""", [name, syntax.lang]).fetchall() if r[0] not in family]
    if release is not None:  # what the last statements read (refs, edges, symbols)
        release()
    return Reads(shown, total, others[:OTHERS_SHOWN])


def _hits(cur, name: str, syntax: Syntax, release, module_text) -> list[tuple[str, str, int, int, int, str]]:
    """Each `.name` (not called) in a chunk of the language's files, once per chunk around it: (path, the
    chunk's qualname, its first and last line, the read's line, its line's text before it), by file and line."""
    after = r"\." + re.escape(name) + r"([^\w(]|$)"  # RE2 has no look-ahead: what may follow the name, spelled out
    pattern, written = _read_at(name), ("." + name,)
    # the files (and their content hashes) the index found reading the name
    reading = "SELECT path FROM refs WHERE kind = 'attr' AND name = ?"
    files = dict(cur.execute(f"SELECT path, hash FROM files WHERE path IN ({reading}) ORDER BY 1", [name]).fetchall()) \
        if syntax.lang == "python" and module_text is not None and _ATTR_ROW.fullmatch(name) else None
    hits = []
    texts: dict[str, str] = {}
    if files:
        texts = {at: text for at, indexed in files.items() if (text := module_text(at, list(written), indexed)) is not None}
        spans: dict[str, list[tuple[str, int, int]]] = {}
        for at, inside, start, end in cur.execute(f"""SELECT path, name, start_line, end_line FROM chunks
                                                      WHERE kind <> 'section' AND path IN ({reading})""",
                                                  [name]).fetchall():
            spans.setdefault(at, []).append((inside, start, end))
        for at, text in texts.items():
            for i, before, _ in matches(text, pattern, written):
                hits += [(at, inside, start, end, i + 1, before)
                         for inside, start, end in spans.get(at, ()) if start <= i + 1 <= end]
    unread = None if files is None else [at for at in files if at not in texts]
    for low, high in slices(cur) if unread is None else [(-1, None)] if unread else ():
        where, args = ("c.rowid > ? AND c.rowid <= ?", [low, high]) if unread is None else \
            ("c.path = ANY(?::VARCHAR[])", [unread])
        for at, inside, start, end, text in cur.execute(f"""
                SELECT c.path, c.name, c.start_line, c.end_line, c.text FROM chunks c JOIN files f ON f.path = c.path
                WHERE {where} AND f.lang = ? AND c.kind <> 'section' AND contains(c.text, ?) AND regexp_matches(c.text, ?)""",
                                                        [*args, syntax.lang, written[0], after]).fetchall():
            hits += [(at, inside, start, end, start + i, before) for i, before, _ in matches(text, pattern)]
        if release is not None:
            release()
    hits.sort(key=lambda h: (h[0], h[4], h[2], -h[3]))
    return hits


_ATTR_ROW = re.compile(r"[a-z_]\w*")  # a name index/reads.py keeps `attr` rows of (a capitalised one is a class's)


def by_reader(reads: list[tuple[str, str, int, int]], asked: tuple[str, str]) -> tuple[list, int]:
    """(path, qualname, the chunk's span, line) per read -> (path, qualname, lines) per reader, each read
    given to the innermost chunk around it (a nested function's read is its own), the symbol `asked`
    about (path, qualname) no reader of its own: the first READS_SHOWN by path and first line, and how many."""
    found: dict[tuple[str, int], tuple[int, str]] = {}  # (path, line) -> (the chunk's span, its qualname)
    for at, inside, span, line in reads:
        if (at, line) not in found or span < found[at, line][0]:
            found[at, line] = (span, inside)
    lines: dict[tuple[str, str], list[int]] = {}
    for (at, line), (_, inside) in sorted(found.items()):
        lines.setdefault((at, inside), []).append(line)
    lines.pop(asked, None)
    shown = sorted(((at, inside, found) for (at, inside), found in lines.items()), key=lambda r: (r[0], r[2][0]))
    return shown[:READS_SHOWN], len(shown)


def slices(cur) -> list[tuple[int, int]]:
    """(after, up to) row ids cutting the chunks into slices of about SLICE_ROWS rows (row ids have gaps
    where edits deleted rows: the cuts are quantiles)."""
    rows, top = cur.execute("SELECT count(*), coalesce(max(rowid), 0) FROM chunks").fetchone()
    parts = max(1, -(-rows // SLICE_ROWS))
    cuts = cur.execute(f"SELECT quantile_disc(rowid, [{', '.join(str(i / parts) for i in range(1, parts))}]) "
                       "FROM chunks").fetchone()[0] if parts > 1 else []
    bounds = [-1, *cuts, top]
    return list(zip(bounds, bounds[1:]))


# how a call's receiver was typed (graph/resolution.py): its class is the callee's (self's have their own rule)
TYPED = ("typed", "typed_inherited", "returned", "returned_inherited", "class_attr", "class_attr_inherited")


def _typed_receivers(cur, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    """(function id, receiver) -> the classes its calls through that receiver resolve into by its type,
    for the `wanted` pairs."""
    if not wanted:
        return {}
    ids, receivers = sorted({w[0] for w in wanted}), sorted({w[1] for w in wanted})
    found: dict[tuple[str, str], set[str]] = {}
    for src, receiver, owner in cur.execute(f"""
            SELECT r.src, r.receiver, s.path || '::' || s.parent FROM refs r
            JOIN edges e ON e.kind = 'CALLS' AND e.src = r.src AND e.line = r.line AND e.name = r.name
            JOIN symbols s ON s.id = e.dst
            WHERE r.kind = 'call' AND s.parent IS NOT NULL AND e.strategy IN ({', '.join('?' * len(TYPED))})
              AND r.src IN ({', '.join('?' * len(ids))}) AND r.receiver IN ({', '.join('?' * len(receivers))})""",
                                            [*TYPED, *ids, *receivers]).fetchall():
        if (src, receiver) in wanted:
            found.setdefault((src, receiver), set()).add(owner)
    return found


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
