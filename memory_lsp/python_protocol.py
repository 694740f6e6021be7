"""What Python's builtins call: a fact of the language that the index (index/instance.py) and the
store (store/calls.py, store/test_reads.py) share, kept outside both (neither layer may import the
other's side of it, and the index's workers never load DuckDB)."""

# builtins that call a method of their one argument: index/instance.py writes `bool(x)` as the call
# `x.__bool__()` too. Such a method is never guessed by name (any class has it, Python's own too), and an
# unresolved one is no test's blind call through an import (store/test_reads.py)
PROTOCOL = {"bool": "__bool__", "len": "__len__", "str": "__str__", "repr": "__repr__", "iter": "__iter__",
            "next": "__next__", "hash": "__hash__", "reversed": "__reversed__", "abs": "__abs__", "bytes": "__bytes__"}
PROTOCOL_METHODS = tuple(sorted(PROTOCOL.values()))  # the methods alone, for the store's statements
