"""Columnar ingestion: a table's rows handed over as one list (or array) per column.

Index workers build their batches column by column (index/batch.py), so the process that owns
the database turns each column into one numpy array (a C loop, no Python tuple per row) and
DuckDB reads the arrays as a registered view. DuckDB keeps the object a view was registered with
until the transaction ends (a dropped view stays in its catalog for the transaction's snapshot), so
the dict is emptied after the insert: else an index run, one transaction, held every row it wrote
as Python objects until its commit (~190 MB on the stdlib).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def insert_columns(cur, table: str, columns: Sequence[str], types: Sequence[str],
                   values: Sequence[Sequence]) -> None:
    """INSERT INTO table (columns) the rows given as one sequence per column (equal lengths).

    A type is a cast target, or an expression around the column such as "unhex({})"."""
    if not values or not len(values[0]):
        return
    arrays = {f"c{i}": v if isinstance(v, np.ndarray) else np.array(v, dtype=object)
              for i, v in enumerate(values)}
    view = f"_bulk_{table}"
    cur.register(view, arrays)
    try:
        select = ", ".join(t.format(f"c{i}") if "{}" in t else f"c{i}::{t}" for i, t in enumerate(types))
        cur.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM {view}")
    finally:
        cur.unregister(view)
        arrays.clear()
