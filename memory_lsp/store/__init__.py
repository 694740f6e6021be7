"""The DuckDB store: the only package that talks to DuckDB."""

from memory_lsp.store.db import SCHEMA_VERSION, Store

__all__ = ["SCHEMA_VERSION", "Store"]
