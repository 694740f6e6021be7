"""Calls of other files whose receiver's class, or the method found in it, may be another after
a scoped run's change: they resolve again in that run, so that an incremental run ends where a
full one does (issue 13 item 1).

`names`: the names whose definitions the run added, removed or renamed, or whose function now
returns another type (graph/resolution.py, index/indexer.py). A call outside `_refs` resolves
again when
- its receiver is typed by a class so named (`x = Alpha(); x.get()`, Alpha renamed away: a guess
  by name again), or by a mark (store/return_calls.py) whose function, owner or returned class is;
- it is a call named so, or named like an attribute holding one (store/held_calls.py), on a
  receiver whose class is known (a type, a mark, `super()`, `self`,
  a pytest fixture, a module variable): the method may now be found in another class of the
  receiver's bases, in a file the calling file does not import (`get` moved from `Env` to its
  base `Base` in another file).
A base marked as an attribute of a typed value (`class B(obj.signer)`, store/inherit_marks.py) resolves
again as a marked call does, and then the calls walking its class's bases.
Calls on fixtures and module variables whose class changes are store/fixture_calls.py's and
store/var_calls.py's.
"""

from __future__ import annotations

from memory_lsp.store import inherit_marks
from memory_lsp.store.code import RETURN_KINDS, value_set
from memory_lsp.store.return_calls import MARK, MARK_FUNCTION, PARTS
from memory_lsp.store.var_calls import class_like, requeue


def bring_dependents(store, cur, names: set[str], selfs: list[str]) -> None:
    """Add to `_refs` (deleting their CALLS edges) the calls the module docstring names. The
    candidates come from two scans of refs (by name, ~2 ms on the stdlib; the marks, ~15 ms), a
    third when a name could be a class's (capitalised: a type as written always is, index/receivers.py)."""
    if not names:
        return
    named = value_set(store, cur, "_n", names)
    # an attribute holding one of them (`context_class = Context`): the calls through it (store/held_calls.py)
    held = {r[0] for r in cur.execute(f"""SELECT DISTINCT name FROM refs WHERE kind = 'heldtype'
                                          AND split_part(rtype, '.', -1) IN {named}""").fetchall()}
    if not held <= names:
        names = names | held
        named = value_set(store, cur, "_n", names)
    fns, classes = set(names), sorted(class_like(names))
    if classes:
        typed = value_set(store, cur, "_n_classes", classes)
        fns |= {r[0] for r in cur.execute(f"""SELECT DISTINCT name FROM refs WHERE kind IN {value_set(store, cur, '_n_kinds', RETURN_KINDS)}
                                               AND split_part(rtype, '.', -1) IN {typed}""").fetchall()}
    functions = value_set(store, cur, "_n_functions", fns)
    # one statement per condition: an OR of them made DuckDB read every column of every row (~60 ms)
    cur.execute(f"CREATE OR REPLACE TEMP TABLE _cand AS SELECT * FROM refs WHERE name IN {named} AND kind = 'call'")
    # a mark's function is its last dotted part, its owner's name the one before (`->mod.Env.get`).
    # A mark is the text of a call in its own file (index/returns.py), so but for an owner that is a
    # class (capitalised), the marks to look at are in the files calling one of `fns` or calling
    # through a receiver named one of `names`: the scan reads those files only
    # (an owner named like a receiver is a fixture's parameter or a module's name: the first only
    # changes with a test file, which the run then re-reads; a module renamed re-resolves everything)
    where, files = "", None
    if not classes and "constructor" not in fns:  # `new Foo(cb)`'s mark names Foo's constructor: no call does
        files = {r[0] for r in cur.execute(f"SELECT DISTINCT path FROM refs WHERE name IN {functions} AND kind IN ('call', 'inherit')").fetchall()}
        # an attribute's mark (`->Flask.json` for `app.json.dumps()`) names no call: the receivers ending in it
        files |= {r[0] for r in cur.execute(f"""SELECT DISTINCT path FROM refs WHERE kind = 'call' AND contains(receiver, '.')
                                                AND regexp_extract(receiver, '[^.]*$') IN {functions}""").fetchall()}
        # an element's (`->Parser.blocks[]` for `for b in parser.blocks: b.run()`) names neither
        files |= {r[0] for r in cur.execute(f"""SELECT DISTINCT path FROM refs WHERE kind = 'call' AND ends_with(rtype, '[]')
                                                AND {MARK_FUNCTION} IN {functions}""").fetchall()}
        if cur.execute("SELECT count(*) FROM files WHERE is_test AND path IN (SELECT DISTINCT path FROM _refs)").fetchone()[0]:
            files |= {r[0] for r in cur.execute(
                f"SELECT DISTINCT path FROM refs WHERE receiver IN {named} AND kind = 'call'").fetchall()}
        where = f"path IN {value_set(store, cur, '_n_files', files)} AND "
    if files is None or files:
        cur.execute(f"""INSERT INTO _cand SELECT * FROM refs WHERE {where}starts_with(rtype, '{MARK}') AND kind IN ('call', 'inherit')
                        AND ({MARK_FUNCTION} IN {functions}
                             OR ltrim(split_part(rtype, '.', -2), '{MARK}') IN {named})""")
    if classes:
        cur.execute(f"""INSERT INTO _cand SELECT * FROM refs WHERE kind = 'call' AND NOT starts_with(rtype, '{MARK}')
                        AND rtype NOT IN ('builtin', 'local', 'super') AND split_part(rtype, '.', -1) IN {typed}""")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _dep AS
        WITH c AS (SELECT DISTINCT * FROM _cand),
        m AS (SELECT *, {PARTS} FROM c WHERE starts_with(rtype, '{MARK}')),
        fixture AS (SELECT DISTINCT src, name FROM edges WHERE kind = 'USES_FIXTURE' AND src IN (SELECT src FROM c)),
        var AS (SELECT DISTINCT i.path, i.binding FROM imports i
                JOIN refs v ON v.kind = 'vartype' AND v.path = i.target AND v.name = i.name
                WHERE NOT i.is_module AND i.path IN (SELECT path FROM c))
        SELECT r.* EXCLUDE (mark, fname, owner, applied, slot, element) FROM m r  -- a mark whose function, owner or returned class changed
        WHERE r.fname IN {functions} OR split_part(r.owner, '.', -1) IN {named}
        UNION SELECT r.* FROM c r  -- a receiver typed by a class so named
        WHERE NOT starts_with(r.rtype, '{MARK}') AND r.rtype NOT IN ('builtin', 'local', 'super')
          AND split_part(r.rtype, '.', -1) IN {named}
        UNION SELECT r.* FROM c r  -- a method so named on a typed receiver
        WHERE r.name IN {named} AND r.receiver IS NOT NULL
          AND (r.rtype NOT IN ('builtin', 'local') OR r.rtype IS NULL AND r.receiver = ANY(?::VARCHAR[]))
        UNION SELECT r.* FROM c r JOIN fixture u ON u.src = r.src AND u.name = r.receiver  -- on a fixture parameter
        WHERE r.name IN {named} AND r.rtype IS NULL
        UNION SELECT r.* FROM c r JOIN var w ON w.path = r.path AND w.binding = r.receiver  -- on a module variable
        WHERE r.name IN {named} AND r.rtype IS NULL""", [list(selfs)])
    cur.execute("DROP TABLE _cand")
    requeue(cur)
    inherit_marks.bring_dependents(store, cur, selfs)  # and the calls walking the bases of a marked base's class
