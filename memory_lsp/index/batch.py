"""A batch of parse results packed for the writer: one list per column of each code table.

Workers pack what they parsed (index/indexer.py `_parse_batch`), so the process that owns the
database gets columns DuckDB ingests as they are (store/ingest.py) instead of a Python tuple per
row, and the per-row work (ids, search prefixes, redaction of the chunks' text) runs in the
workers, in parallel. The writer keeps a small summary per file (what re-resolution needs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from memory_lsp.index.facts import FileFacts, Import
from memory_lsp.store import code

# table -> (its columns as store/code.py declares them, the index of its `path` column)
TABLES = {"files": (code.FILE_COLUMNS, 0), "symbols": (code.SYMBOL_COLUMNS, 1), "refs": (code.REF_COLUMNS, 0),
          "chunks": (code.CHUNK_COLUMNS, 1), "mentions": (code.MENTION_COLUMNS, 0)}


class FileSummary(NamedTuple):
    """What the writer needs of a parsed file besides its rows."""

    path: str
    hash: str
    is_test: bool
    mutations: int
    imports: list[Import]
    shape: code.FileShape  # what other files' edges depend on (the writer compares it with the old one)


@dataclass
class Batch:
    files: list[FileSummary] = field(default_factory=list)
    skips: list[tuple] = field(default_factory=list)  # (path, reason, size)
    tables: dict[str, list[list]] = field(default_factory=dict)  # table -> one list per column

    def extend(self, other: "Batch") -> None:
        """Append another batch's files, skips and rows (fewer, bigger inserts: each costs ~5 ms)."""
        self.files += other.files
        self.skips += other.skips
        for table, cols in other.tables.items():
            for mine, theirs in zip(self.tables.setdefault(table, [[] for _ in cols]), cols):
                mine.extend(theirs)

    def rows(self) -> int:
        """How many rows the batch holds, all tables together."""
        return sum(len(cols[0]) for cols in self.tables.values() if cols)

    def without(self, paths: set[str]) -> "Batch":
        """The same batch without the rows of `paths` (files touched but unchanged)."""
        if not paths:
            return self
        tables = {}
        for table, cols in self.tables.items():
            where = TABLES[table][1]
            keep = [i for i, p in enumerate(cols[where]) if p not in paths]
            tables[table] = [[col[i] for i in keep] for col in cols]
        return Batch([f for f in self.files if f.path not in paths], self.skips, tables)


def pack(results: list, mtimes: dict[str, float], redact: Callable[[str], str] | None = None) -> Batch:
    """FileFacts and skips (anything else with path, reason, size) -> one Batch."""
    batch = Batch(tables={t: [[] for _ in spec[0][0]] for t, spec in TABLES.items()})
    files, symbols, refs, chunks, mentions = (batch.tables[t] for t in TABLES)
    for r in results:
        if not isinstance(r, FileFacts):
            batch.skips.append((r.path, r.reason, r.size))
            continue
        p = r.path
        batch.files.append(FileSummary(p, r.hash, r.is_test, r.mutations, r.imports, shape_of(r)))
        for col, v in zip(files, (p, r.lang, r.hash, r.size, mtimes.get(p), r.loc, r.is_test,
                                  ",".join(r.notes), ",".join(r.side_effects), r.mutations)):
            col.append(v)
        if r.symbols:
            qual, name, kind, start, end, parent, fp = zip(*r.symbols)
            _extend(symbols, [f"{p}::{q}" for q in qual], [p] * len(qual), name, qual, kind, start, end, parent, fp)
        if r.refs:
            kind, src, cls, name, recv, line, rtype = zip(*r.refs)
            _extend(refs, [p] * len(kind), kind, [f"{p}::{s}" if s else p for s in src], cls, name, recv, line,
                    rtype)
        if r.chunks:
            qual, kind, start, end, text = zip(*r.chunks)
            _extend(chunks, [f"{p}::{q}:{s}" for q, s in zip(qual, start)], [p] * len(qual), kind, qual, start,
                    end, [f"{p} | {k} {q} | lines {s}-{e}" for k, q, s, e in zip(kind, qual, start, end)],
                    [redact(t) for t in text] if redact else text)
        if r.mentions:
            heading, line, token = zip(*r.mentions)
            _extend(mentions, [p] * len(heading), heading, line, token)
    return batch


def shape_of(f: FileFacts) -> code.FileShape:
    """A parsed file's shape, as store/code.py reads it back from the rows."""
    inherits = [(f"{f.path}::{r.src}" if r.src else f.path, r.src_class, r.name, r.receiver, r.rtype)
                for r in f.refs if r.kind == "inherit"]
    returns = [code.shape_return(r.kind, f"{f.path}::{r.src}" if r.src else f.path, r.name, r.rtype, r.receiver)
               for r in f.refs if r.kind in code.SHAPE_RETURNS]
    return code.FileShape(frozenset((i.module, i.name, i.alias) for i in f.imports), f.is_test, f.mutations > 0,
                          code.shape_rows((s.qualname, s.name, s.kind, s.parent) for s in f.symbols),
                          code.shape_rows(inherits), code.shape_rows(returns))


def _extend(columns: list[list], *values) -> None:
    for col, v in zip(columns, values):
        col.extend(v)
