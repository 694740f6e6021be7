"""The DuckDB store: the only package that talks to DuckDB."""

import importlib.util
import sys

# DuckDB's Python client tries `import pandas` for each parameter of a statement; where pandas
# is not installed, each try searches sys.path again (~0.2-0.5 ms; ~220 tries per edit followed on
# the stdlib). A None entry makes the same failed import answer at once; an installed pandas is left alone.
if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
    sys.modules["pandas"] = None

from memory_lsp.store.db import SCHEMA_VERSION, Store  # noqa: E402 - after the entry above

__all__ = ["SCHEMA_VERSION", "Store"]
