"""A file's symbols as the index lists them (store/code.py `symbols_of`), answered from a graph's
columns. A lens, a hover or a file's diagnostics then ask DuckDB nothing: each such query scanned
the symbols table, and the blocks it read stayed in DuckDB's cache until the server settled (+12 MB
for 200 files at 11,282 files: the warm server's peak, BENCHMARKS.md cj)."""

from __future__ import annotations

from memory_lsp.store.code import SymbolRow
from memory_lsp.store.graph_reads import SYMBOL_NO_LINE


def symbols_of(g, path: str) -> list[SymbolRow] | None:
    """The symbols of `path` in file order, as `code.symbols_of` gives them (ties in start line in
    table order); None for a file the graph does not hold."""
    f = g.node_id(path)
    if f is None or not g.is_file[f]:
        return None
    rows = g.file_symbol_row[g.file_symbol_ptr[f]:g.file_symbol_ptr[f + 1]]
    names, calls, kinds, skip = g.names, g.calls, g.sym_kinds, len(path) + 2  # an id is path::qualname
    out = []
    for node, call, kind, start, end in zip(g.sym_node[rows].tolist(), g.sym_call[rows].tolist(),
                                            g.sym_kind[rows].tolist(), g.sym_start[rows].tolist(),
                                            g.sym_end[rows].tolist()):
        ident = names[node]
        out.append(SymbolRow(ident, calls[call] if call >= 0 else None, ident[skip:], kinds[kind] or None,
                             None if start == SYMBOL_NO_LINE else start, None if end == SYMBOL_NO_LINE else end))
    return out
