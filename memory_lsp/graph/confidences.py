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


def coded(table: np.ndarray, values) -> tuple[np.ndarray, np.ndarray]:
    """(`table` with the values of `values` it lacks appended, each value's code in it)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    distinct, inverse = np.unique(bits, return_inverse=True)
    known = table.view(np.uint64)
    grown = np.concatenate([known, distinct[~np.isin(distinct, known)]])
    order = np.argsort(grown)
    code_of_distinct = order[np.searchsorted(grown, distinct, sorter=order)]
    return grown.view(np.float64), code_of_distinct[inverse.reshape(-1)].astype(code_type(len(grown)))
