"""Calls on what another file's function returns: jinja2's `t = env.from_string(src); t.render()`
where environment.py says `def from_string(...) -> "Template"`.

index/returns.py marks such a call's rtype with the function as the calling file names it
(`->Environment.from_string`: a method of the class the file names Environment, or of a
fixture's or module variable's class, or a function of an imported module; `->make_env`: an
imported function), and index/extract.py writes each function's return type as its own file
names it (a `returntype` row of refs; what a function-typed parameter gives its callback's
parameters, a `paramtype` row whose receiver is the slot "k,j": index/receivers_ts.py). `OWNERS`
and `returned_types` make `_rt` (path, src, rtype, cid): for the marked calls of `_refs`, the
class (or interface) the marked function returns (the method found in the owner's class or its
nearest base, as a typed call finds it: store/calls.py). store/calls.py `_resolve_typed`
resolves those calls in that class (strategy `returned`).

A scoped run re-resolves the marked calls of other files when the function, its owner's class
or the returned class changes name or a return type changes (store/retyped.py).
"""

from __future__ import annotations

from memory_lsp.store.code import value_set
from memory_lsp.store.receiver_classes import JAVA_CLASS, ancestors

MARK = "->"
# what an annotated return (or a callback's parameter) may name: a TypeScript or Java interface's
# method signatures are what its callers reach, as for a parameter annotated with it (store/calls.py)
RETURNED_KINDS = "('class', 'interface')"
# the mark without its prefix, its function's name (after the last dot, without the "()" of a mark
# of what calling its result gives: `->click.group()`) and its owner (before it, or '')
MARK_FUNCTION = "regexp_replace(regexp_extract(rtype, '[^.>]*$'), '([(]([0-9]+,[0-9]+)?[)]|[[][]])$', '')"
# a callback's parameter: `->operate(0,1)` is the second parameter of the callback passed first to operate
SLOT = "regexp_extract({0}, '[(]([0-9]+,[0-9]+)[)]$', 1)"
PARTS = f"""substr(rtype, 3) AS mark, {MARK_FUNCTION} AS fname,
            CASE WHEN contains(substr(rtype, 3), '.') THEN regexp_extract(substr(rtype, 3), '^(.*)[.][^.]*$', 1)
                 ELSE '' END AS owner, ends_with(rtype, '()') AS applied, {SLOT.format('rtype')} AS slot,
            ends_with(rtype, '[]') AS element"""


def owners(kind: str, target: str) -> str:
    """The marked references of `kind` with an owner into `target`, as calls of `fname` on a receiver
    named `owner` (rtype NULL: a fixture's or a module variable's class is found as for any call on it);
    store/receiver_classes.py `classes` gives them their class (`_mcls`)."""
    return f"""
    CREATE OR REPLACE TEMP TABLE {target} AS
    WITH m AS (SELECT *, {PARTS} FROM _refs WHERE kind = '{kind}' AND starts_with(rtype, '{MARK}'))
    SELECT m.* EXCLUDE (mark, fname, owner) REPLACE (owner AS receiver, NULL AS rtype, fname AS name),
           owner AS tname, 'typed' AS how
    FROM m WHERE owner <> ''"""


OWNERS = owners("call", "_mrecv")  # the marked calls' (store/calls.py); a base's: store/inherit_marks.py


def class_named(typed: str, keys: str, kinds: str = "('class')") -> str:
    """A query of (`keys`, cid) for the rows of the table `typed` (`keys`, path, rtype): the
    class `rtype` names in the file `path`, defined there, imported there (also re-exported by
    a package __init__ it imports from, by name or by `import *`: store/module_exports.py's `_star`, which
    call resolution makes first), or `module.Class` through a module it imports; `kinds`:
    the symbol kinds it may be (SQL after IN)."""
    return f"""
        WITH imp AS (SELECT k.path, k.binding, k.name, k.target, k.is_module FROM imports k
                     WHERE k.path IN (SELECT DISTINCT path FROM {typed}) AND k.target IS NOT NULL)
        SELECT {keys}, s.id AS cid FROM {typed} v
               JOIN symbols s ON s.path = v.path AND s.name = v.rtype AND s.parent IS NULL AND s.kind IN {kinds}
        UNION SELECT {keys}, s.id FROM {typed} v JOIN imp k ON k.path = v.path AND NOT k.is_module AND k.binding = v.rtype
               JOIN symbols s ON s.path = k.target AND s.name = coalesce(k.name, {JAVA_CLASS.replace("i.", "k.")})
               AND s.parent IS NULL AND s.kind IN {kinds}
        UNION SELECT {keys}, s.id FROM {typed} v  -- Java: a nested class of the file, a class of its package
               JOIN symbols s ON ends_with(v.path, '.java') AND s.name = v.rtype AND s.kind IN {kinds}
               AND (s.path = v.path OR s.parent IS NULL AND s.path = regexp_replace(v.path, '[^/]*$', '') || v.rtype || '.java')
        UNION SELECT {keys}, s.id FROM {typed} v JOIN imp k ON k.path = v.path AND NOT k.is_module AND k.binding = v.rtype
               JOIN imports j ON j.path = k.target AND j.binding = k.name AND NOT j.is_module  -- a package's re-export
               JOIN symbols s ON s.path = j.target AND s.name = j.name AND s.parent IS NULL AND s.kind IN {kinds}
        UNION SELECT {keys}, s.id FROM {typed} v JOIN imp k ON k.path = v.path AND NOT k.is_module AND k.binding = v.rtype
               JOIN _star t ON t.path = k.target  -- a package re-exporting modules whole: `from .numeric import *`
               JOIN symbols s ON s.path = t.via AND s.name = k.name AND s.parent IS NULL AND s.kind IN {kinds}
        UNION SELECT {keys}, s.id FROM {typed} v JOIN imp k ON k.path = v.path AND k.is_module
               AND starts_with(v.rtype, k.binding || '.')
               JOIN symbols s ON s.path = k.target AND v.rtype = k.binding || '.' || s.name AND s.parent IS NULL
               AND s.kind IN {kinds}
        UNION SELECT {keys}, s.id FROM {typed} v JOIN imp k ON k.path = v.path AND k.is_module  -- `ds.Headers`:
               AND starts_with(v.rtype, k.binding || '.')  -- a name the imported package's __init__ re-exports
               JOIN imports j ON j.path = k.target AND NOT j.is_module AND v.rtype = k.binding || '.' || j.binding
               JOIN symbols s ON s.path = j.target AND s.name = j.name AND s.parent IS NULL AND s.kind IN {kinds}"""


def marked_names(cur, kind: str = "call") -> list[str]:
    """The functions `_refs`' marks on references of `kind` name (their last dotted part)."""
    return [r[0] for r in cur.execute(f"""SELECT DISTINCT {MARK_FUNCTION} FROM _refs
                                           WHERE kind = '{kind}' AND starts_with(rtype, '{MARK}')""").fetchall()]


def no_returned_types(cur) -> None:
    cur.execute("CREATE OR REPLACE TEMP TABLE _rt (path VARCHAR, src VARCHAR, rtype VARCHAR, cid VARCHAR)")


def returned_types(store, cur, in_scope: str, wanted: str, kind: str = "call", owned: str = "_mcls", out: str = "_rt") -> None:
    """`out` (path, src, rtype, cid) from `owned` (the owners' classes) and `_refs`' marked references
    of `kind` without an owner; `in_scope`: an import `i` binds in the calling function `m.src`; `wanted`:
    the names the marks name (`marked_names`, as SQL after IN: a scan filters by a list of them)."""
    # the marked function: the owner's method (nearest in its bases), a function of the module the
    # owner names, or the imported function the mark names
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rfn AS
        WITH RECURSIVE {ancestors(owned)},
        -- a method, an attribute its class types (index/returns.py `attributes`: a row of its own)
        -- or a class its body holds (`storage_class = ds.Headers`: `self.storage_class()` makes one)
        member AS (SELECT id FROM symbols WHERE kind = 'method' AND name IN {wanted}
                   UNION SELECT src FROM refs WHERE kind IN ('returntype', 'heldtype', 'elementtype') AND name IN {wanted}),
        meth AS (SELECT k.path, k.src, '{MARK}' || k.receiver || '.' || k.name || CASE WHEN k.applied THEN '()' ELSE '' END
                        || CASE WHEN k.slot <> '' THEN '(' || k.slot || ')' ELSE '' END
                        || CASE WHEN k.element THEN '[]' ELSE '' END AS rtype, m.id AS fn, a.d
                 FROM {owned} k JOIN anc a ON a.cid = k.cid
                 JOIN member m ON m.id = a.base || '.' || k.name
                 QUALIFY a.d = min(a.d) OVER (PARTITION BY k.path, k.src, k.receiver, k.name, k.applied, k.slot, k.element)),
        m AS (SELECT DISTINCT path, src, rtype, {PARTS} FROM _refs WHERE kind = '{kind}' AND starts_with(rtype, '{MARK}'))
        SELECT path, src, rtype, fn FROM meth
        UNION SELECT m.path, m.src, m.rtype, e.id FROM m  -- joins on equal keys each: one OR of both ran 0.15 s
              JOIN _imports i ON i.path = m.path AND i.is_module AND i.binding = m.owner AND {in_scope.format(src='m.src')}
              JOIN _exports e ON e.path = i.target AND e.name = m.fname AND e.kind = 'function'
        UNION SELECT m.path, m.src, m.rtype, e.id FROM m
              JOIN _imports i ON i.path = m.path AND NOT i.is_module AND m.owner = '' AND i.binding = m.fname
                   AND {in_scope.format(src='m.src')}
              JOIN _exports e ON e.path = i.target AND e.name = i.name AND e.kind = 'function'""")
    # the functions' own names: a mark names the function as the caller binds it (`from m import f as
    # g`, `g = f`: `->g`), its `returntype` row as it is defined (f)
    functions = value_set(store, cur, "_r_fns", [r[0] for r in cur.execute(
        "SELECT DISTINCT regexp_extract(fn, '[^.:]*$') FROM _rfn").fetchall()])
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rfv AS
        SELECT f.path AS site, f.src, f.rtype AS mark, t.path, t.rtype FROM _rfn f
        JOIN refs t ON t.kind IN (CASE WHEN ends_with(f.rtype, '()') THEN 'appliedtype' WHEN ends_with(f.rtype, '[]')
                                       THEN 'elementtype' WHEN {SLOT.format('f.rtype')} <> '' THEN 'paramtype' ELSE 'returntype' END,
                                  CASE WHEN NOT ends_with(f.rtype, ')') AND NOT ends_with(f.rtype, ']') THEN 'heldtype' END)
             AND t.src = f.fn AND (t.kind <> 'paramtype' OR t.receiver = {SLOT.format('f.rtype')})
        WHERE t.name IN {functions}""")
    # a function returning Python's own type (`-> dict`) or a type its file imports from outside
    # (`-> t.BinaryIO`, `-> BytesIO`): cid NULL, a type no workspace method is guessed on
    cur.execute(f"CREATE OR REPLACE TEMP TABLE {out} AS SELECT site AS path, src, mark AS rtype, cid FROM ("
                + class_named("_rfv", "v.site, v.src, v.mark", RETURNED_KINDS) + ") UNION ALL "
                "SELECT site, src, mark, NULL FROM _rfv WHERE rtype = 'builtin' UNION ALL "
                "SELECT DISTINCT v.site, v.src, v.mark, NULL FROM _rfv v JOIN imports i ON i.path = v.path "
                "AND i.strategy = 'external' AND i.binding = split_part(v.rtype, '.', 1)")
    # `validator = data_required(); validator(...)`: a mark naming an imported class under a name of its
    # own (wtforms' `data_required = DataRequired`): what the call makes, an instance of that class
    cur.execute(f"""INSERT INTO {out} SELECT DISTINCT m.path, m.src, m.rtype, e.id FROM
        (SELECT path, src, rtype, {PARTS} FROM _refs WHERE kind = '{kind}' AND starts_with(rtype, '{MARK}')) m
        JOIN _imports i ON i.path = m.path AND NOT i.is_module AND m.owner = '' AND NOT m.applied AND m.slot = '' AND NOT m.element
             AND i.binding = m.fname AND {in_scope.format(src='m.src')}
        JOIN _exports e ON e.path = i.target AND e.name = i.name AND e.kind = 'class'""")
    for temp in ("_rfn", "_rfv"):
        cur.execute(f"DROP TABLE {temp}")
    if kind == "call":
        _django_managers(cur)


def _django_managers(cur) -> None:
    """`Book.objects.get()` where `Book` is a Django model that declares no `objects`: Django adds
    one (and `_base_manager`), a Manager: the workspace's when it holds Django's source (a Manager
    has QuerySet's methods), else a type no workspace method is guessed on (cid NULL).
    `_default_manager` is the first manager a model declares: another attribute's, not read here."""
    managers = "(SELECT * FROM _mcls WHERE name IN ('objects', '_base_manager'))"
    if not cur.execute(f"SELECT count(*) FROM {managers}").fetchone()[0]:
        return
    cur.execute(f"""
        INSERT INTO _rt
        WITH RECURSIVE {ancestors(managers)},
        model AS (  -- a lineage reaching Django's Model: the workspace's, or a base `models.Model` imported from django
            SELECT DISTINCT a.cid FROM anc a WHERE ends_with(a.base, 'django/db/models/base.py::Model')
            UNION SELECT a.cid FROM anc a JOIN refs b ON b.kind = 'inherit' AND b.src = a.base AND b.name = 'Model'
                  JOIN imports i ON i.path = b.path AND i.binding = coalesce(split_part(b.receiver, '.', 1), b.name)
                       AND starts_with(i.module, 'django'))
        SELECT DISTINCT k.path, k.src, '{MARK}' || k.receiver || '.' || k.name,
               (SELECT min(id) FROM symbols WHERE ends_with(id, 'django/db/models/manager.py::Manager') AND kind = 'class')
        FROM {managers} k JOIN model m ON m.cid = k.cid
        ANTI JOIN _rt t ON t.path = k.path AND t.src = k.src AND t.rtype = '{MARK}' || k.receiver || '.' || k.name
        WHERE NOT k.applied AND k.slot = ''""")

