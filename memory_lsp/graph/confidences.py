"""Edge confidences as codes. An index holds a handful of distinct confidences (about nine: the
resolution strategies' and the name guesses' shares of them), so the impact graph keeps each
edge's, each step's and each call site's as a byte into a table of the values (its
`confidences`), not a float64 (~14 MB at 11,000 files). Exact: a value is told apart by its bits,
so the table gives back the very float64 read; a filter compares the table's values and then
picks by code.

A graph that follows an edit extends the last graph's table (the values it lacks appended), so
the codes of the rows it keeps still hold and are copied as they are.
"""

from __future__ import annotations

import numpy as np

NONE = np.zeros(0, dtype=np.float64)  # the table before any value


def code_type(n_values: int) -> type:
    """The narrowest unsigned integer that numbers a table of `n_values`."""
    return np.uint8 if n_values <= 1 << 8 else np.uint16 if n_values <= 1 << 16 else np.uint32


FEW = 32  # distinct values told apart by passes over the column; past that, one sort


def coded(table: np.ndarray, values) -> tuple[np.ndarray, np.ndarray]:
    """(`table` with the values of `values` it lacks appended, each value's code in it). A column
    holds a handful of values: one pass over it per value holds a byte and a flag a row, where a
    sort held ~32 bytes a row (+60 MB at 11,282 files' call sites, the graph load's peak)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    if len(table) + FEW + 1 > 1 << 8:  # the passes append up to FEW + 1 values, each coded in a byte
        return _sorted(table, bits)
    grown = table.view(np.uint64).tolist()
    code_of = {v: i for i, v in enumerate(grown)}
    codes = np.zeros(len(bits), dtype=np.uint8)
    left = np.ones(len(bits), dtype=bool)
    for _ in range(FEW + 1):
        first = int(left.argmax()) if len(left) else 0
        if not len(left) or not left[first]:
            return np.array(grown, dtype=np.uint64).view(np.float64), codes
        value = int(bits[first])
        if value not in code_of:
            code_of[value] = len(grown)
            grown.append(value)
        same = bits == bits[first]
        codes[same] = code_of[value]
        left[same] = False
    return _sorted(table, bits)  # more than FEW values


def _sorted(table: np.ndarray, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct, inverse = np.unique(bits, return_inverse=True)
    known = table.view(np.uint64)
    grown = np.concatenate([known, distinct[~np.isin(distinct, known)]])
    order = np.argsort(grown)
    code_of_distinct = order[np.searchsorted(grown, distinct, sorter=order)]
    return grown.view(np.float64), code_of_distinct[inverse.reshape(-1)].astype(code_type(len(grown)))
