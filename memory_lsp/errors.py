"""Errors a user meets: each carries one clear line of text."""


class UserError(Exception):
    """Bad input from the user (unknown path, symbol, argument): exit code 2 in the CLI."""


class IndexBusy(UserError):
    """Another process owns the index database (DuckDB allows one process per file)."""


class IndexClosed(Exception):
    """A read met an index that was closed under it (its folder closed, or the damaged file set
    aside and a new one opened): the question is to be asked again, of what is open now. Raised
    as store.cursor.StoreClosed; the server answers it with ContentModified (server/guard.py)."""
