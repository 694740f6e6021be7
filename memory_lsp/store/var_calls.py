"""Calls on a module-level variable another file defines: flask's `current_app.url_for()` where
globals.py says `current_app: Flask = LocalProxy(...)` (a `vartype` row of refs: index/extract.py).

`var_types` makes `_vt` (path, recv, scope, cid): in each file of `_refs`, a receiver as written
(`current_app`, `flask.g`) that names such a variable, imported directly, through a package
`__init__` re-exporting it, or as an attribute of an imported package; cid = the variable's class
(defined in its file or imported there). store/calls.py `_resolve_typed` resolves those calls
in that class like a typed receiver (strategy `module_var`); a variable of Python's own type
(`port_by_scheme = {"http": 80}`, cid NULL) closes the name guesses on it.

`called_instances`: `format_exc_info(...)` or `dev.rich_traceback(...)` where the other file says
`format_exc_info = ExceptionRenderer()`: the call runs that class's `__call__` (strategy `module_var`).

`bring_dependents`: a scoped run that re-reads a file defining such variables, or changes the
name of a class one is typed by, also re-resolves the calls in other files typed through them
(before or after the edit), so that an incremental run ends where a full one does.
"""

from __future__ import annotations

from memory_lsp.store.receiver_classes import IN_SCOPE, ancestors
from memory_lsp.store.return_calls import MARK

# a call of the variable itself, by its name or as a module's attribute (`format_exc_info(...)`, `dev.rich_traceback(...)`)
_CALLED = "coalesce(r.receiver || '.', '') || r.name"

# the files whose variables `_refs` can reach: the ones they import, and those a package __init__
# they import imports from
_VAR_FILES = """
    WITH direct AS (SELECT DISTINCT target AS path FROM imports
                    WHERE target IS NOT NULL AND path IN (SELECT DISTINCT path FROM _refs))
    SELECT path FROM direct
    UNION SELECT DISTINCT j.target FROM imports j JOIN direct d ON d.path = j.path
    WHERE ends_with(j.path, '__init__.py') AND j.target IS NOT NULL AND NOT j.is_module"""


def var_types(cur) -> None:
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _vars AS
        WITH wanted AS ({_VAR_FILES}),
        v AS (SELECT path, name, rtype FROM refs WHERE kind = 'vartype' AND path IN (SELECT path FROM wanted)),
        imp AS (SELECT k.path, k.binding, s.id FROM imports k
                JOIN symbols s ON s.path = k.target AND s.name = k.name AND s.parent IS NULL AND s.kind = 'class'
                WHERE NOT k.is_module AND k.path IN (SELECT path FROM v) AND k.binding IN (SELECT rtype FROM v))
        SELECT DISTINCT v.path, v.name, coalesce(own.id, imp.id) AS cid
        FROM v LEFT JOIN symbols own ON own.path = v.path AND own.name = v.rtype AND own.parent IS NULL AND own.kind = 'class'
        LEFT JOIN imp ON imp.path = v.path AND imp.binding = v.rtype
        WHERE coalesce(own.id, imp.id) IS NOT NULL OR v.rtype = 'builtin'  -- Python's: no class, no guess""")
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _vt AS
        SELECT i.path, i.binding AS recv, i.scope, v.cid FROM _imports i
               JOIN _vars v ON v.path = i.target AND v.name = i.name WHERE NOT i.is_module
        UNION SELECT i.path, i.binding, i.scope, v.cid FROM _imports i
               JOIN imports j ON j.path = i.target AND j.binding = i.name AND NOT j.is_module
               JOIN _vars v ON v.path = j.target AND v.name = j.name WHERE NOT i.is_module
        UNION SELECT i.path, i.binding || '.' || v.name, i.scope, v.cid FROM _imports i
               JOIN _vars v ON v.path = i.target WHERE i.is_module
        UNION SELECT i.path, i.binding || '.' || j.binding, i.scope, v.cid FROM _imports i
               JOIN imports j ON j.path = i.target AND NOT j.is_module
               JOIN _vars v ON v.path = j.target AND v.name = j.name WHERE i.is_module""")
    cur.execute("DROP TABLE _vars")


def called_instances(cur) -> None:
    """Into `_typed` (store/calls.py): the calls of `_refs` that call a module variable `_vt` types, each
    to its class's `__call__`, else the nearest base's (`format_exc_info = ExceptionRenderer()`, then
    `format_exc_info(None, None, event)` in a test: what runs is `ExceptionRenderer.__call__`)."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _called AS
        SELECT DISTINCT r.src, r.path, r.line, r.name, v.cid FROM _refs r
               JOIN _vt v ON v.path = r.path AND v.recv = {_CALLED} AND v.cid IS NOT NULL
               AND {IN_SCOPE.format(src="r.src").replace("i.scope", "v.scope")}
        WHERE r.kind = 'call' AND r.rtype IS NULL""")
    if cur.execute("SELECT count(*) FROM _called").fetchone()[0]:  # most runs of an edit: none (a scan of symbols)
        cur.execute(f"""
            INSERT INTO _typed
            WITH RECURSIVE {ancestors("_called")}
            SELECT DISTINCT k.src, m.id, k.path, m.path, k.line, k.name, 'module_var', a.d
            FROM _called k JOIN anc a ON a.cid = k.cid JOIN symbols m ON m.id = a.base || '.__call__'
            ANTI JOIN _typed t ON t.path = k.path AND t.line = k.line AND t.name = k.name AND t.src = k.src
            ANTI JOIN _precise p ON p.path = k.path AND p.line = k.line AND p.name = k.name AND p.src = k.src
            QUALIFY a.d = min(a.d) OVER (PARTITION BY k.path, k.line, k.name, k.src)""")
    cur.execute("DROP TABLE _called")


def bring_dependents(cur, names: set[str]) -> None:
    """Add to `_refs` (deleting their edges) the calls of other files whose receiver names a
    variable of a file in `_refs` (as now written, or named one of `names`: a variable gone or
    of another type is among them, store/code.py names_rebound) or a variable whose class is
    named one of `names` (renamed or removed elsewhere), or that were typed through one before (any
    variable's when `__call__` is among `names`: its calls of the variable). Small sets
    first, each step skipped when the one before found nothing: a one-edit run pays a few scans
    of `imports` and `edges`, not a join over every reference."""
    cur.execute("CREATE OR REPLACE TEMP TABLE _here AS SELECT DISTINCT path FROM _refs")
    # a variable typed by a changed class name: its file's importers are re-resolved as if it were re-read
    classes = sorted(class_like(names))  # a type as written names a class capitalised (index/receivers.py)
    if "__call__" in names:  # a `__call__` come or gone: any variable's class may be the one (`called_instances`)
        cur.execute("""CREATE OR REPLACE TEMP TABLE _retyped AS SELECT path, name FROM refs WHERE kind = 'vartype'
                       AND rtype <> 'builtin'""")
    elif classes:
        cur.execute("""CREATE OR REPLACE TEMP TABLE _retyped AS SELECT path, name FROM refs WHERE kind = 'vartype'
                       AND split_part(rtype, '.', -1) = ANY(?::VARCHAR[])""", [classes])
    else:
        cur.execute("CREATE OR REPLACE TEMP TABLE _retyped (path VARCHAR, name VARCHAR)")
    cur.execute("INSERT INTO _here SELECT DISTINCT path FROM _retyped WHERE path NOT IN (SELECT path FROM _here)")
    # the files that can see a variable of these: importing one, or a package __init__ importing one
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _seen AS
        WITH hop AS (SELECT DISTINCT path FROM imports WHERE target IN (SELECT path FROM _here)
                     AND ends_with(path, '__init__.py'))
        SELECT i.path, i.binding, i.name, i.is_module, i.target FROM imports i
        WHERE (i.target IN (SELECT path FROM _here) OR i.target IN (SELECT path FROM hop))
          AND i.path NOT IN (SELECT path FROM _here)""")
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _vars AS
        SELECT path, name FROM _refs WHERE kind = 'vartype'
        UNION SELECT h.path, unnest(?::VARCHAR[]) FROM (SELECT DISTINCT path FROM _refs) h  -- a variable gone or retyped
        UNION SELECT path, name FROM _retyped
        UNION SELECT v.path, v.name FROM refs v  -- re-exported by a package __init__ read again
              JOIN imports j ON j.target = v.path AND j.name = v.name AND NOT j.is_module
              AND ends_with(j.path, '__init__.py') AND j.path IN (SELECT path FROM _here)
        WHERE v.kind = 'vartype'""", [sorted(names)])
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _keys AS
        SELECT DISTINCT src_path AS path, line, name FROM edges
        WHERE kind = 'CALLS' AND strategy IN ('module_var', 'module_var_inherited')
          AND src_path IN (SELECT DISTINCT path FROM _seen)""")
    if cur.execute("SELECT count(*) FROM _vars").fetchone()[0]:
        cur.execute(f"""
            INSERT INTO _keys
            WITH via AS (SELECT i.path, i.binding AS recv FROM _seen i JOIN _vars v ON v.path = i.target AND v.name = i.name
                         WHERE NOT i.is_module
                         UNION SELECT i.path, i.binding FROM _seen i
                               JOIN imports j ON j.path = i.target AND j.binding = i.name AND NOT j.is_module
                               JOIN _vars v ON v.path = j.target AND v.name = j.name WHERE NOT i.is_module
                         UNION SELECT i.path, i.binding || '.' || v.name FROM _seen i JOIN _vars v ON v.path = i.target
                         WHERE i.is_module
                         UNION SELECT i.path, i.binding || '.' || j.binding FROM _seen i
                               JOIN imports j ON j.path = i.target AND NOT j.is_module
                               JOIN _vars v ON v.path = j.target AND v.name = j.name WHERE i.is_module)
            SELECT r.path, r.line, r.name FROM refs r JOIN via ON via.path = r.path AND via.recv = r.receiver
            WHERE r.kind = 'call' AND r.path IN (SELECT DISTINCT path FROM via)
            UNION  -- the variable itself called (`called_instances`): named as it is
            SELECT r.path, r.line, r.name FROM refs r JOIN via ON via.path = r.path AND r.name = split_part(via.recv, '.', -1)
            WHERE r.kind = 'call' AND r.rtype IS NULL AND r.path IN (SELECT DISTINCT path FROM via) AND via.recv = {_CALLED}
            UNION  -- `x = current.make(); x.f()`: what the variable's class's method returns (store/return_calls.py)
            SELECT r.path, r.line, r.name FROM refs r JOIN via ON via.path = r.path AND starts_with(r.rtype, '{MARK}' || via.recv || '.')
            WHERE r.kind = 'call' AND r.path IN (SELECT DISTINCT path FROM via)""")
    if cur.execute("SELECT count(*) FROM _keys").fetchone()[0]:
        cur.execute("""
            CREATE OR REPLACE TEMP TABLE _dep AS
            SELECT DISTINCT r.* FROM refs r JOIN (SELECT DISTINCT * FROM _keys) k
                 ON k.path = r.path AND k.line = r.line AND k.name = r.name
            WHERE r.kind = 'call' AND r.path IN (SELECT DISTINCT path FROM _keys)""")
        requeue(cur)
    for temp in ("_here", "_retyped", "_seen", "_vars", "_keys"):
        cur.execute(f"DROP TABLE {temp}")


def class_like(names: set[str]) -> set[str]:
    """Those of `names` a type as written could end with: capitalised, as receivers.py types a class."""
    return {n for n in names if n.lstrip("_")[:1].isupper()}


def requeue(cur) -> None:
    """The call (and base: store/inherit_marks.py; read: store/module_getattr.py) references in `_dep` resolve again
    in this run (a scoped run's dependents, here, in store/fixture_calls.py and store/retyped.py): their edges
    deleted, their rows added to `_refs` unless it holds them already."""
    cur.execute("""DELETE FROM edges WHERE kind IN ('CALLS', 'INHERITS') AND src_path IN (SELECT DISTINCT path FROM _dep)
                   AND (src_path, line, name, kind) IN (SELECT path, line, name, CASE WHEN kind = 'inherit' THEN 'INHERITS'
                                                        ELSE 'CALLS' END FROM _dep)""")
    cur.execute("""INSERT INTO _refs SELECT r.* FROM _dep r ANTI JOIN _refs x ON x.path = r.path AND x.line = r.line
                   AND x.name = r.name AND x.kind = r.kind AND x.src = r.src""")
    cur.execute("DROP TABLE _dep")
