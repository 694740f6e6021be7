"""Errors a user meets: each carries one clear line of text."""


class UserError(Exception):
    """Bad input from the user (unknown path, symbol, argument): exit code 2 in the CLI."""


class IndexBusy(UserError):
    """Another process owns the index database (DuckDB allows one process per file)."""
