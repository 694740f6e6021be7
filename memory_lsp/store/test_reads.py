"""Reads for test selection (graph/tests_reach.py) that the impact graph's columns do not hold.

A test's call that no CALLS edge resolves but whose receiver or name is bound by an import of a
workspace file (`attr.s(...)` where `s` is an alias the resolver cannot follow) still runs code
of that file: the test selection keeps the file-level rule for it. Also what graph/tests_held.py
asks: which symbols are classes, and which calls through a receiver only a name guess resolves.
"""

from __future__ import annotations

import numpy as np

_BLIND = """
    SELECT DISTINCT r.src, i.target AS module
    FROM refs r JOIN files t ON t.path = r.path AND t.is_test
         JOIN imports i ON i.path = r.path AND i.target IS NOT NULL AND i.target <> r.path
              AND i.binding = split_part(coalesce(r.receiver, r.name), '.', 1)
         JOIN files m ON m.path = i.target AND NOT coalesce(m.is_test, false)
    WHERE r.kind = 'call' AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
      AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path
                      AND e.line = r.line AND e.name = r.name)
    ORDER BY r.src, module"""


def unresolved_test_calls(cur) -> dict[str, np.ndarray]:
    """(src, module): the symbol of a test file around an unresolved call, and the workspace file
    that call goes through."""
    return cur.execute(_BLIND).fetchnumpy()


_DISPATCH = """
    SELECT DISTINCT r.src, r.path
    FROM refs r JOIN files f ON f.path = r.path AND NOT coalesce(f.is_test, false)
    WHERE r.kind = 'call' AND r.receiver IN ('self', 'cls') AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
      AND r.name NOT IN (SELECT name FROM symbols)
      AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path
                      AND e.line = r.line AND e.name = r.name)
    ORDER BY r.src"""


_UNTYPED = """
    SELECT DISTINCT r.src, r.name, r.receiver IN ('self', 'cls') AS on_self
    FROM refs r
    WHERE r.kind = 'call' AND r.receiver IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
      AND r.name IN (SELECT name FROM symbols WHERE kind = 'method')  -- the rule asks about methods only
      AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path AND e.line = r.line
                      AND e.name = r.name AND coalesce(e.strategy, '') NOT IN ('name_unique', 'name_ambiguous'))
    ORDER BY r.src, r.name"""


def unresolved_calls(cur) -> dict[str, dict[str, np.ndarray]]:
    """`tests`: as `unresolved_test_calls`; `dispatch`: (src, path) of the code's calls through an
    attribute of self named like nothing defined (`self.config_class(...)`): a class or function
    held in an attribute, which may be any the file imports; `classes`: (id) of every class;
    `untyped`: (src, name, on_self) of the calls through a receiver (`x.m()`, `self.m()`) that only
    a name guess, or nothing, resolves (what may run a method of an instance: graph/tests_reach.py)."""
    return {"tests": unresolved_test_calls(cur), "dispatch": cur.execute(_DISPATCH).fetchnumpy(),
            "classes": cur.execute("SELECT DISTINCT id FROM symbols WHERE kind = 'class' ORDER BY id").fetchnumpy(),
            "untyped": cur.execute(_UNTYPED).fetchnumpy()}
