"""DuckDB's client tries `import pandas` for every parameter of a statement; without pandas installed, each try
searched sys.path again (~220 per edit followed on the stdlib). store/__init__.py makes the failed
import answer at once: a query's fetch searches for nothing."""

from __future__ import annotations

import importlib.util
import sys

import pytest


def test_a_statement_with_parameters_searches_for_no_module(tmp_path):
    from memory_lsp.store.db import Store

    if sys.modules.get("pandas") is not None or importlib.util.find_spec("pandas") is not None:
        pytest.skip("pandas is installed here: DuckDB imports it once")
    store = Store.open(tmp_path / "index.duckdb")
    searched = []

    class Spy:
        def find_spec(self, name, path=None, target=None):
            searched.append(name)
            return None

    sys.meta_path.insert(0, Spy())
    try:
        for _ in range(3):
            store.cursor().execute("SELECT ? AS a, ? AS b", ["x", [1, 2]]).fetchnumpy()  # parameters
    finally:
        sys.meta_path.remove(sys.meta_path[0])
        store.close()
    assert searched == []
