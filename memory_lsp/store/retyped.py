"""Calls of other files whose receiver's class, or the method found in it, may be another after
a scoped run's change: they resolve again in that run, so that an incremental run ends where a
full one does (issue 13 item 1).

`names`: the names whose definitions the run added, removed or renamed, or whose function now
returns another type (graph/resolution.py, index/indexer.py). A call outside `_refs` resolves
again when
- its receiver is typed by a class so named (`x = Alpha(); x.get()`, Alpha renamed away: a guess
  by name again), or by a mark (store/return_calls.py) whose function, owner or returned class is;
- it is a call named so on a receiver whose class is known (a type, a mark, `super()`, `self`,
  a pytest fixture, a module variable): the method may now be found in another class of the
  receiver's bases, in a file the calling file does not import (`get` moved from `Env` to its
  base `Base` in another file).
Calls on fixtures and module variables whose class changes are store/fixture_calls.py's and
store/var_calls.py's.
"""

from __future__ import annotations

from memory_lsp.store.return_calls import MARK, PARTS
from memory_lsp.store.var_calls import requeue

_NOT_IN_REFS = "ANTI JOIN _refs x ON x.path = r.path AND x.line = r.line AND x.name = r.name AND x.kind = r.kind AND x.src = r.src"


def bring_dependents(cur, names: set[str], selfs: list[str]) -> None:
    """Add to `_refs` (deleting their CALLS edges) the calls the module docstring names."""
    if not names:
        return
    cur.execute("CREATE OR REPLACE TEMP TABLE _n AS SELECT unnest(?::VARCHAR[]) AS name", [sorted(names)])
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _dep AS
        WITH fns AS (SELECT name FROM _n UNION SELECT r.name FROM refs r
                     WHERE r.kind = 'returntype' AND regexp_extract(r.rtype, '[^.]*$') IN (SELECT name FROM _n)),
        m AS (SELECT *, {PARTS} FROM refs WHERE kind = 'call' AND starts_with(rtype, '{MARK}'))
        SELECT r.* EXCLUDE (mark, fname, owner) FROM m r {_NOT_IN_REFS}
        WHERE r.fname IN (SELECT name FROM fns) OR regexp_extract(r.owner, '[^.]*$') IN (SELECT name FROM _n)
        UNION SELECT r.* FROM refs r {_NOT_IN_REFS}
        WHERE r.kind = 'call' AND r.rtype NOT IN ('builtin', 'local', 'super') AND NOT starts_with(r.rtype, '{MARK}')
          AND regexp_extract(r.rtype, '[^.]*$') IN (SELECT name FROM _n)
        UNION SELECT r.* FROM refs r {_NOT_IN_REFS}  -- a method so named on a typed receiver
        WHERE r.kind = 'call' AND r.name IN (SELECT name FROM _n) AND r.receiver IS NOT NULL
          AND (r.rtype NOT IN ('builtin', 'local') OR r.rtype IS NULL AND r.receiver = ANY(?::VARCHAR[]))""",
                [list(selfs)])
    # on a fixture parameter, or on a module variable imported by name
    cur.execute(f"""
        INSERT INTO _dep
        SELECT r.* FROM refs r JOIN (SELECT DISTINCT src, name FROM edges WHERE kind = 'USES_FIXTURE') u
             ON u.src = r.src AND u.name = r.receiver {_NOT_IN_REFS}
        WHERE r.kind = 'call' AND r.name IN (SELECT name FROM _n) AND r.rtype IS NULL
        UNION SELECT r.* FROM refs r JOIN (SELECT DISTINCT i.path, i.binding FROM imports i
                                           JOIN refs v ON v.kind = 'vartype' AND v.path = i.target AND v.name = i.name
                                           WHERE NOT i.is_module) w
             ON w.path = r.path AND w.binding = r.receiver {_NOT_IN_REFS}
        WHERE r.kind = 'call' AND r.name IN (SELECT name FROM _n) AND r.rtype IS NULL""")
    cur.execute("CREATE OR REPLACE TEMP TABLE _dep AS SELECT DISTINCT * FROM _dep")
    cur.execute("DROP TABLE _n")
    requeue(cur)
