"""Citations that follow the code: anchor a citation when a memory is written, re-resolve it later.

A citation keeps the path, the qualified symbol, the line range and a fingerprint of the cited
code (whitespace-insensitive hash of the symbol's syntax subtree, or of the cited lines).
Resolution against today's code gives one of three states:
  valid     the code is there, unchanged (maybe moved: lines shifted, file renamed, symbol renamed)
  drifted   the code is there but changed: the memory needs review
  orphaned  the code is gone
Symbols are found by name first, then by fingerprint anywhere in the workspace.

Writing a memory never needs the index database (another process may own it): anchoring parses
the cited file directly. Re-resolution after an index run asks the index (`workspace.lookup.IndexLookup`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from memory_lsp.errors import UserError
from memory_lsp.index import extract, languages
from memory_lsp.memory import shapes
from memory_lsp.memory.model import Citation

_SPEC = re.compile(r"^(?P<path>.+?)(?:::(?P<symbol>[^:]+(?:::[^:]+)*?))?(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")


class CodeLookup(Protocol):
    def exists(self, path: str) -> bool: ...
    def symbols(self, path: str) -> list[tuple]: ...  # (qualname, start, end, fingerprint)
    def by_fingerprint(self, fp: str) -> list[tuple]: ...  # (path, qualname, start, end)
    def renamed_to(self, path: str, content_hash: str | None) -> str | None: ...
    def lines(self, path: str) -> list[bytes] | None: ...
    def content_hash(self, path: str) -> str | None: ...
    def shape(self, path: str, start: int, end: int) -> tuple[str, list[int]] | None: ...  # shapes.py
    def named(self, name: str) -> list[tuple]: ...  # (path, qualname, start, end) of symbols called `name`


def parse_spec(spec: str) -> tuple[str, str | None, int | None, int | None]:
    """`path`, `path::Qualified.Name`, `path:START-END` or `path:LINE` -> parts."""
    m = _SPEC.match(spec.strip())
    if not m or not m["path"]:
        raise UserError(f"bad citation {spec!r}: use path, path::Symbol or path:START-END")
    start = int(m["start"]) if m["start"] else None
    end = int(m["end"]) if m["end"] else start
    if start is not None and (start < 1 or end < start):
        raise UserError(f"bad line range in citation {spec!r}: lines start at 1 and END >= START")
    return m["path"], m["symbol"], start, end


def anchor(lookup: CodeLookup, path: str, symbol: str | None, start: int | None, end: int | None) -> Citation:
    """A citation for today's code, or a UserError saying what is wrong with it."""
    lines = lookup.lines(path)
    if lines is None:
        raise UserError(f"cannot cite {path}: no such file in the workspace")
    if symbol:
        found = _find_symbol(lookup.symbols(path), symbol)
        if found is None:
            known = ", ".join(q for q, *_ in lookup.symbols(path)[:10]) or "none"
            raise UserError(f"no symbol {symbol} in {path} (defined there: {known})")
        qualname, s, e, fp = found
        shape, sketch = lookup.shape(path, s, e) or (None, None)
        return Citation(path, qualname, s, e, fp, shape, sketch)
    if start is not None:
        if end > len(lines):
            raise UserError(f"cannot cite {path}:{start}-{end}: the file has {len(lines)} lines")
        return Citation(path, None, start, end, _window_fingerprint(lines, start, end))
    return Citation(path, None, None, None, lookup.content_hash(path))


def resolve(c: Citation, lookup: CodeLookup) -> Citation:
    """Set `state` and `current` on the citation from today's code; returns it."""
    c.state, c.current = _resolve(c, lookup)
    return c


def moved(c: Citation) -> bool:
    """Did resolution find the cited code under another path or name (worth an event)?"""
    return c.current is not None and (c.current["path"], c.current["symbol"]) != (c.path, c.symbol)


def reanchored(c: Citation, lookup: CodeLookup) -> Citation:
    """The citation pointed at where its code is now, with today's fingerprint (accepts a drift)."""
    where = c.current or c.to_event()
    return anchor(lookup, where["path"], where.get("symbol"), where.get("start_line"), where.get("end_line"))


def _resolve(c: Citation, lookup: CodeLookup) -> tuple[str, dict | None]:
    if c.kind == "file":
        path = c.path if lookup.exists(c.path) else lookup.renamed_to(c.path, c.fingerprint)
        return ("valid", _where(path)) if path else ("orphaned", None)
    if c.kind == "range":
        return _resolve_range(c, lookup)
    found = _find_symbol(lookup.symbols(c.path), c.symbol) if lookup.exists(c.path) else None
    if found:  # still where it was: unchanged, changed, or changed only in comments and annotations
        same = found[3] == c.fingerprint or _same_shape(c, lookup, c.path, found[1], found[2])
        return "valid" if same else "drifted", _where(c.path, *found[:3])
    same_code = lookup.by_fingerprint(c.fingerprint) if c.fingerprint else []
    if same_code:  # moved or renamed: prefer the same name, then the same file
        best = min(same_code, key=lambda r: (_last(r[1]) != _last(c.symbol), r[0] != c.path, r[0], r[1]))
        return "valid", _where(*best)
    return _found_again(c, lookup)


# how alike (estimated Jaccard of token pairs) code must be to be the cited code, moved and changed:
# with its own qualified name elsewhere, or with its last name only (another class, same file)
SAME_NAME_LIKENESS = 0.3
OTHER_NAME_LIKENESS = 0.5


def _found_again(c: Citation, lookup: CodeLookup) -> tuple[str, dict | None]:
    """Code that moved to another file or class and perhaps changed: the same shape anywhere it
    could be (valid), else the most alike definition above a threshold (drifted), else orphaned."""
    if not c.shape or shapes.strict():
        return "orphaned", None
    here = [(c.path, *row[:3]) for row in lookup.symbols(c.path)] if lookup.exists(c.path) else []
    candidates = list(dict.fromkeys(here + [tuple(r) for r in lookup.named(_last(c.symbol))]))
    scored = []
    for path, qualname, start, end in candidates:
        found = lookup.shape(path, start, end)
        if found is None:
            continue
        if found[0] == c.shape:  # renamed, or moved with only annotations and comments changed
            return "valid", _where(path, qualname, start, end)
        # a dunder (`__init__`, `__getattr__`) names a protocol, not a piece of code
        same_name = (qualname == c.symbol or _last(qualname) == _last(c.symbol)) and not _last(qualname).startswith("__")
        score = shapes.likeness(c.sketch, found[1])
        if score >= (SAME_NAME_LIKENESS if same_name else OTHER_NAME_LIKENESS):
            scored.append((score + (0.2 if qualname == c.symbol else 0.0), path, qualname, start, end))
    if not scored:
        return "orphaned", None
    _, *best = max(scored)
    return "drifted", _where(*best)


def _same_shape(c: Citation, lookup: CodeLookup, path: str, start: int, end: int) -> bool:
    if not c.shape or shapes.strict():
        return False
    found = lookup.shape(path, start, end)
    return found is not None and found[0] == c.shape


def _resolve_range(c: Citation, lookup: CodeLookup) -> tuple[str, dict | None]:
    lines = lookup.lines(c.path)
    if lines is None:
        return "orphaned", None
    size = c.end_line - c.start_line + 1
    candidates = [s for s in range(1, len(lines) - size + 2)
                  if _window_fingerprint(lines, s, s + size - 1) == c.fingerprint]
    if candidates:  # the nearest copy of the cited lines
        s = min(candidates, key=lambda s: abs(s - c.start_line))
        return "valid", _where(c.path, None, s, s + size - 1)
    if not lines:
        return "orphaned", None
    s = min(c.start_line, len(lines))
    return "drifted", _where(c.path, None, s, min(c.end_line, len(lines)))


def _find_symbol(symbols: list[tuple], wanted: str) -> tuple | None:
    """By qualified name; a bare name is accepted when only one symbol has it."""
    for row in symbols:
        if row[0] == wanted:
            return row
    named = [row for row in symbols if _last(row[0]) == wanted]
    return named[0] if len(named) == 1 else None


def _last(qualname: str | None) -> str:
    return (qualname or "").rsplit(".", 1)[-1]


def _where(path, symbol=None, start=None, end=None) -> dict:
    return {"path": path, "symbol": symbol, "start_line": start, "end_line": end}


def _window_fingerprint(lines: list[bytes], start: int, end: int) -> str:
    return extract.fingerprint(b"\n".join(lines[start - 1:end]))


class FileLookup:
    """Today's code read straight from the files (no index): for writing while the index is busy."""

    def __init__(self, root: Path, overrides: dict[str, bytes] | None = None):
        self.root = root
        self.overrides = overrides or {}  # editor buffers by relative path
        self._symbols: dict[str, list[tuple]] = {}
        self._shapes: dict[str, dict] = {}

    def _read(self, path: str) -> bytes | None:
        if path in self.overrides:
            return self.overrides[path]
        full = self.root / path
        try:
            return full.read_bytes() if full.is_file() else None
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return self._read(path) is not None

    def lines(self, path: str) -> list[bytes] | None:
        data = self._read(path)
        return None if data is None else data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")

    def content_hash(self, path: str) -> str | None:
        data = self._read(path)
        return None if data is None else extract.content_hash(data)

    def symbols(self, path: str) -> list[tuple]:
        if path not in self._symbols:
            data, lang = self._read(path), languages.classify(path)
            rows = []
            if data is not None and lang:
                facts = extract.extract(path, data, lang)
                rows = [(s.qualname, s.start_line, s.end_line, s.fingerprint) for s in facts.symbols]
            self._symbols[path] = rows
        return self._symbols[path]

    def shape(self, path: str, start: int, end: int) -> tuple[str, list[int]] | None:
        if path not in self._shapes:
            data, lang = self._read(path), languages.classify(path)
            self._shapes[path] = shapes.definitions(data, lang) if data is not None and lang else {}
        return None if shapes.strict() else self._shapes[path].get((start, end))

    def named(self, name: str) -> list[tuple]:
        return []  # needs the index: without it only the cited file is searched

    def by_fingerprint(self, fp: str) -> list[tuple]:
        return []  # needs the index; without it a moved symbol shows as orphaned until the next run

    def renamed_to(self, path: str, content_hash: str | None) -> str | None:
        return None
