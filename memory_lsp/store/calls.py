"""Call, base-class and fixture resolution: the statements that turn `refs` rows into CALLS,
INHERITS and USES_FIXTURE edges (graph/resolution.py decides the strategies' values).

Takes the transaction's cursor; the temp tables here are private to this module.
"""

from __future__ import annotations

import builtins

from memory_lsp.python_protocol import PROTOCOL_METHODS
from memory_lsp.store import (fixture_calls, held_calls, inherit_marks, module_exports, module_getattr, receiver_classes, retyped,
                               return_calls, var_calls)
from memory_lsp.store.code import RETURN_KINDS, lang_family, value_set
from memory_lsp.store.db import Store
from memory_lsp.store.edges import NAMESPACE_IMPORT, _COLUMNS, CallConfidence, RefScope, _lit, _quoted, bound_imports
from memory_lsp.store.return_calls import MARK

# bases from outside that give a class no method a workspace defines: a call on a HookspecOpts
# (a TypedDict) that its class does not define is dict's (`opts.get(...)`), never guessed by name
NO_WORKSPACE_METHODS = ("ABC", "Generic", "NamedTuple", "Protocol", "TypedDict", "object")
# Python's own classes: a base so named that the file does not bind is the builtin (`class E(ValueError)`)
BUILTIN_CLASSES = tuple(sorted(n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and not n.startswith("_")))
# an import row from outside: no folder or module file of the workspace is named like its top module
# (a folder without __init__.py, `from pkg.env import X`, is not resolved but is the workspace's)
_FROM_OUTSIDE = """strategy = 'external' AND binding IS NOT NULL AND split_part(module, '.', 1) NOT IN (
    SELECT DISTINCT regexp_replace(unnest(string_split(path, '/')), '[.]py$', '') FROM files)"""
_IN_SCOPE = receiver_classes.IN_SCOPE
# a Python def inside a function (a method's is a 'method'): a local of it, never a guess by name (a call on a receiver
# never reaches it; a call by its name where it is bound resolves as same_file; elsewhere its name is another binding's)
_NESTED = "(s.kind = 'function' AND s.parent IS NOT NULL AND ends_with(s.path, '.py'))"


def resolve_refs(store: Store, cur, self_names: list[str], implicit_self_langs: list[str], confidence: CallConfidence,
                 max_candidates: int, scope: RefScope | None, families: dict[str, str],
                 builtin_methods: dict[tuple[str, ...], tuple[str, ...]] | None = None) -> None:
    """Resolve call and base-class references to symbols (CALLS and INHERITS edges).

    Precise strategies first (self, same file, imported name, imported module's attribute);
    by name only where nothing precise matched, the name has at most `max_candidates`
    definitions and no receiver is bound to an external import. `scope` None: every reference.
    `families`: language -> its family (index/languages.py's resolver): a guess by name stays in
    the family of the calling file (a Go `string(x)` is no Python function named `string`).
    """
    if scope is not None:
        _scoped_refs(store, cur, scope)
        changed = scope.names | scope.anywhere  # names whose definitions changed (and aliases of them)
        var_calls.bring_dependents(cur, changed)
        module_getattr.bring_dependents(cur, changed)
        fixture_calls.bring_dependents(cur, scope.files, changed)
        retyped.bring_dependents(store, cur, changed, self_names)
    else:
        # every reference: a view, not a copy (a copy of refs took ~70 MB of DuckDB's memory on the stdlib);
        # not a read of an attribute (index/reads.py: test selection's, no edge)
        cur.execute("CREATE OR REPLACE TEMP VIEW _refs AS SELECT * FROM refs WHERE kind <> 'attr'")
    selfs, implicit = _quoted(self_names), _quoted(implicit_self_langs)
    c = confidence
    kind = "CASE WHEN r.kind = 'call' THEN 'CALLS' ELSE 'INHERITS' END"
    # a scoped run reads the symbols its references can reach by file or name once, not every symbol in every
    # statement (an exported name reached through an alias comes from _exports); the file's rows by a scan filter
    syms, paths = "symbols", None
    if scope is not None:
        syms = "_syms"
        paths = value_set(store, cur, "_s_paths", [r[0] for r in cur.execute("SELECT DISTINCT path FROM _refs").fetchall()])
        cur.execute(f"""
            CREATE OR REPLACE TEMP TABLE _syms AS
            SELECT id, path, name, kind, parent FROM symbols WHERE path IN {paths}
            UNION ALL
            SELECT id, path, name, kind, parent FROM symbols
            WHERE name IN (SELECT DISTINCT name FROM _refs) AND path NOT IN {paths}""")
    # a scoped run whose files make no fixture reference (an edit of code, not of a test) has none to link
    if scope is None or cur.execute("SELECT count(*) FROM _refs WHERE kind = 'fixture'").fetchone()[0]:
        _resolve_fixtures(cur, c, syms)
    typing_only = f"kind IN {('fixture', 'vartype', 'fixturetype', 'autouse', 'fixturename', 'raised', 'read', 'attr') + RETURN_KINDS}"
    module_getattr.split(cur, scope is not None)  # reads: edges of their own (no other pass reads them)
    if scope is None:
        cur.execute(f"CREATE OR REPLACE TEMP VIEW _refs AS SELECT * FROM refs WHERE NOT ({typing_only})")
    else:
        cur.execute(f"DELETE FROM _refs WHERE {typing_only}")
    # the imports of those files as Python binds them, each with the function it sits in (it binds only there);
    # a scoped run names its files (DuckDB then filters the scans: 31 -> 9 ms per edit on the stdlib)
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _imports AS
        SELECT i.*, (SELECT max_by(s.id, s.start_line) FROM symbols s
                     WHERE s.path = i.path{f" AND s.path IN {paths}" if paths else ""} AND s.kind IN ('function', 'method')
                       AND i.line BETWEEN s.start_line AND s.end_line) AS scope
        FROM ({bound_imports(paths)}) i WHERE i.path IN (SELECT DISTINCT path FROM _refs UNION SELECT path FROM _reads)""")
    module_getattr.resolve(cur, c.module_attr, scope is not None)
    module_exports.make(cur)  # _star, _exports: what each imported module offers
    free = "coalesce(r.rtype, '') <> 'local'"  # a local name (a parameter) is no function of that name
    # names a function binds itself, which shadow the module's in it and in functions nested in it:
    # its imports (`from pprint import pformat`) and the classes and functions defined in it
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _shadows AS
        SELECT path, binding AS name, scope AS fn, false AS defined FROM _imports WHERE scope IS NOT NULL AND binding IS NOT NULL
        UNION ALL
        SELECT n.path, n.name, f.id, true FROM {syms} n JOIN {syms} f ON f.id = n.path || '::' || n.parent
        WHERE n.parent IS NOT NULL AND f.kind IN ('function', 'method')""")
    shadowed = """EXISTS (SELECT 1 FROM _shadows h WHERE h.path = r.path AND h.name = r.name{}
                          AND (r.src = h.fn OR starts_with(r.src, h.fn || '.')))"""
    # one statement per way: as one UNION ALL, every join's hash table was held at once (resolution's peak at
    # 25,000 files); the first names the columns and their types (a DOUBLE, not its literal's DECIMAL(2,1))
    for i, select in enumerate(f"""
        SELECT DISTINCT r.src, s.id AS dst, {kind} AS kind, r.path, s.path AS dst_path, r.line,
               {_lit(c.self_receiver)}::DOUBLE AS confidence, 'self' AS strategy, r.name
        FROM _refs r JOIN {syms} s ON s.path = r.path AND s.parent = r.src_class AND s.name = r.name
        WHERE r.receiver IN ({selfs}) AND r.rtype IS NULL  -- a Java parameter `Class<?> cls` is no self
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, {_lit(c.implicit_self)}, 'self', r.name
        FROM _refs r JOIN files f ON f.path = r.path AND f.lang IN ({implicit})
             JOIN {syms} s ON s.path = r.path AND s.name = r.name  -- the class's, else (Java) the nearest class around it
             AND (s.parent = r.src_class OR ends_with(r.path, '.java') AND starts_with(r.src_class, s.parent || '.'))
        WHERE r.receiver IS NULL
        QUALIFY length(s.parent) = max(length(s.parent)) OVER (PARTITION BY r.path, r.line, r.name, r.src)
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, {_lit(c.same_file)}, 'same_file', r.name
        FROM _refs r JOIN {syms} s ON s.path = r.path AND s.name = r.name AND s.parent IS NULL
        WHERE r.receiver IS NULL AND {free} AND NOT {shadowed.format("")}
        UNION ALL  -- a function or class defined inside the calling function (or one around it; itself: werkzeug's
        -- recursive `_walk`), a base too
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, {_lit(c.same_file)}, 'same_file', r.name
        FROM _refs r JOIN {syms} s ON s.path = r.path AND s.name = r.name AND s.parent IS NOT NULL
               JOIN {syms} p ON p.id = s.path || '::' || s.parent AND p.kind IN ('function', 'method')
        WHERE r.receiver IS NULL AND r.kind IN ('call', 'inherit') AND NOT (r.src = s.id AND r.kind = 'inherit') AND {free}
          AND (r.src = p.id OR starts_with(r.src, p.id || '.'))
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.dst_path, r.line, {_lit(c.imported)}, 'import', r.name
        FROM _refs r JOIN _imports i ON i.path = r.path AND NOT i.is_module AND i.binding = r.name
               AND {_IN_SCOPE.format(src='r.src')}
               JOIN _exports s ON s.path = i.target AND s.name = i.name
        WHERE r.receiver IS NULL AND {free} AND NOT {shadowed.format(" AND h.defined")}
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.dst_path, r.line, {_lit(c.module_attr)}, 'module_attr', r.name
        FROM _refs r JOIN _imports i ON i.path = r.path AND i.is_module AND i.binding = r.receiver
               AND {_IN_SCOPE.format(src='r.src')}
               JOIN _exports s ON s.path = i.target AND s.name = r.name
        UNION ALL  -- `flask.json.dumps()`: a submodule of an imported package, imported by its __init__ or beside it
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, {_lit(c.module_attr)}, 'module_attr', r.name
        FROM _refs r JOIN _imports i ON i.path = r.path AND i.is_module AND {_IN_SCOPE.format(src='r.src')}
               AND starts_with(r.receiver, i.binding || '.') AND ends_with(i.target, '/__init__.py')
               AND NOT contains(substr(r.receiver, length(i.binding) + 2), '.')
               LEFT JOIN imports j ON j.path = i.target AND j.is_module AND j.binding = substr(r.receiver, length(i.binding) + 2)
               JOIN {syms} s ON s.name = r.name AND s.parent IS NULL
               AND s.path = coalesce(j.target, substr(i.target, 1, length(i.target) - 11) || substr(r.receiver, length(i.binding) + 2) || '.py')
        """.split("\n        UNION ALL")):
        cur.execute(("CREATE OR REPLACE TEMP TABLE _precise AS " if i == 0 else "INSERT INTO _precise ") + select)
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT src, dst, kind, path, dst_path, line, max(confidence), min(strategy), name, 1
        FROM _precise GROUP BY src, dst, kind, path, dst_path, line, name""")
    _open_refs(cur, max_candidates, selfs, syms, families)
    _by_name(cur, c, kind, max_candidates, "inherit")
    var_calls.var_types(cur)
    fixture_calls.fixture_types(cur)
    # bases by name first, then the INHERITS edges once (a base marked `->C.attr` added: store/inherit_marks.py), for the walks up the bases
    cur.execute("CREATE OR REPLACE TEMP TABLE _inh AS SELECT src, dst, name FROM edges WHERE kind = 'INHERITS'")
    inherit_marks.resolve(store, cur, c.typed, syms)
    _overrides(cur, syms)
    _resolve_typed(store, cur, c, selfs, syms)
    _by_name(cur, c, kind, max_candidates, "call", builtin_methods)
    cur.execute(f"DROP {'VIEW' if scope is None else 'TABLE'} _refs")
    for temp in ("_precise", "_shadows", "_bound_outside", "_typed", "_cls", "_bases", "_exports", "_star", "_imports", "_inh", "_over", "_counts", "_fam", "_named", "_twins", "_open", "_closed", "_vt", "_ft", "_rt") + (("_syms",) if scope else ()):
        cur.execute(f"DROP TABLE {temp}")


def _scoped_refs(store: Store, cur, scope: RefScope) -> None:
    """The references `scope` names into `_refs`, and their edges deleted. Each condition is its
    own statement: an OR of them made DuckDB read every column of every row (refs: 350k) before
    filtering, one condition per scan is applied to its column first."""
    files, anywhere = set(scope.files), set(scope.anywhere)
    names, importers = set(scope.names) - anywhere, set(scope.importers) - files
    conditions = []  # (the path's condition, the name's): disjoint, so no row comes twice
    if files:
        conditions.append((f"IN {value_set(store, cur, '_s_files', files)}", None))
    if anywhere:
        conditions.append((f"NOT IN {value_set(store, cur, '_s_files', files)}" if files else None,
                           f"IN {value_set(store, cur, '_s_anywhere', anywhere)}"))
    if names and importers:
        conditions.append((f"IN {value_set(store, cur, '_s_importers', importers)}",
                           f"IN {value_set(store, cur, '_s_names', names)}"))
    selects = []
    for path, name in conditions:
        where = " AND ".join(f"{column} {test}" for column, test in (("{path}", path), ("name", name)) if test)
        cur.execute(f"DELETE FROM edges WHERE kind IN ('CALLS', 'INHERITS', 'USES_FIXTURE') AND {where.format(path='src_path')}")
        selects.append(f"SELECT * FROM refs WHERE kind <> 'attr' AND {where.format(path='path')}")
    cur.execute("CREATE OR REPLACE TEMP TABLE _refs AS " + (" UNION ALL ".join(selects) or "SELECT * FROM refs WHERE false"))


def _open_refs(cur, max_candidates: int, selfs: str, syms: str, families: dict[str, str]) -> None:
    """What both by-name passes read, made once: `_counts` (definitions per referenced name and family, up to the
    limit), `_named` (those definitions) and `_open` (references nothing precise matched, whose receiver is no `self`,
    is not bound to an external import, nor is the called name itself, and whose type is unknown or a name the workspace
    does not resolve (index/receivers.py); never a builtin). Plain statements, not CTEs in each pass (planned slowly)."""
    # a stub beside its module (`x.pyi` by `x.py`) declares the module's definitions: no candidate of its own
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _twins AS  -- the stubs first: most workspaces have none
        WITH stub AS (SELECT id, path FROM {syms} WHERE ends_with(path, '.pyi'))
        SELECT s.id FROM stub s JOIN symbols t ON t.id = substr(s.path, 1, length(s.path) - 1) || substr(s.id, length(s.path) + 1)""")
    scoped = f" WHERE path IN (SELECT path FROM _refs UNION SELECT path FROM {syms})" if syms != "symbols" else ""  # an editor's run
    cur.execute(f"CREATE OR REPLACE TEMP TABLE _fam AS SELECT path, {lang_family(families)} AS fam FROM files{scoped}")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _counts AS  -- per name and language family (a guess stays in the caller's); @overload
        -- stubs repeat one id: count definitions, not rows. A plain call counts the nested defs (never guessed): a name
        -- that many functions bind locally is likelier a local's (the stdlib's `eq = self.assertEqual; eq(a, b)`)
        SELECT name, f.fam, count(DISTINCT id) FILTER (WHERE NOT {_NESTED}) AS n_any,
               count(DISTINCT id) FILTER (WHERE kind <> 'method') AS n_plain
        FROM {syms} s JOIN _fam f ON f.path = s.path ANTI JOIN _twins w ON w.id = s.id WHERE name IN (SELECT name FROM _refs)
        GROUP BY name, f.fam HAVING count(DISTINCT id) <= {int(max_candidates) * 4}""")
    # candidates with their family: a guess joins a reference on (name, family) only (on families alone: a cross product
    # DuckDB chose when a whole run's temp tables had no statistics, 40 min at 11k files)
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE _named AS WITH s AS MATERIALIZED (SELECT s.id, s.name, s.path, s.kind,
                    f.fam, {_NESTED} AS nested FROM {syms} s JOIN _fam f ON f.path = s.path)
                    SELECT s.* FROM s SEMI JOIN _counts c ON c.name = s.name AND c.fam = s.fam""")
    # a bare name an import from outside binds (`from pprint import pformat; pformat(x)`), in its function only when
    # the import sits in one: no workspace function of that name is meant (inner joins on equal keys, then the scope
    # as a filter: an anti join with it ran 0.8 s on the stdlib)
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _bound_outside AS
        WITH bound AS (SELECT DISTINCT path, binding, scope FROM _imports WHERE {_FROM_OUTSIDE})
        SELECT DISTINCT r.path, r.src, r.name FROM _refs r JOIN bound b ON b.path = r.path AND b.binding = r.name
        WHERE r.receiver IS NULL AND (b.scope IS NULL OR r.src = b.scope OR starts_with(r.src, b.scope || '.'))""")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _open AS
        WITH external AS (SELECT DISTINCT path, split_part(binding, '.', 1) AS binding FROM imports  -- `import a.b` binds a
                          WHERE target IS NULL AND path IN (SELECT path FROM _refs)),
        outside AS (SELECT DISTINCT path, binding FROM imports
                    WHERE strategy = 'external' AND path IN (SELECT path FROM _refs)),
        -- `z.object()` through `import * as z`: the module's exports were asked (module_attr); what they
        -- do not offer is no function of that name elsewhere (a variable, a name renamed on export)
        namespace AS (SELECT DISTINCT path, binding FROM imports WHERE {NAMESPACE_IMPORT} AND path IN (SELECT path FROM _refs))
        SELECT r.*, f.fam FROM _refs r JOIN _fam f ON f.path = r.path
        ANTI JOIN (SELECT DISTINCT path, line, name, src FROM _precise) p
             ON p.path = r.path AND p.line = r.line AND p.name = r.name AND p.src = r.src
        ANTI JOIN external x ON x.path = r.path AND x.binding = split_part(r.receiver, '.', 1)
        ANTI JOIN namespace n ON n.path = r.path AND n.binding = r.receiver
        ANTI JOIN _bound_outside xb ON xb.path = r.path AND xb.src = r.src AND xb.name = CASE WHEN r.receiver IS NULL THEN r.name END
        LEFT JOIN outside o ON o.path = r.path  -- the type's first name, a mark's function imported from outside by name
             -- (`->deque`; not `->typing.cast`: a module's function may return ours), an outside class's method (`->ssl.SSLContext.wrap_bio`)
             AND o.binding = CASE WHEN NOT starts_with(r.rtype, '{MARK}') THEN split_part(r.rtype, '.', 1)
                                  WHEN NOT contains(r.rtype, '.') THEN substr(r.rtype, {len(MARK) + 1})
                                  WHEN regexp_matches(substr(r.rtype, {len(MARK) + 1}), '^([^.]+[.])*_*[A-Z][^.]*[.][^.]+$')
                                  THEN split_part(substr(r.rtype, {len(MARK) + 1}), '.', 1) END
        WHERE r.kind IN ('inherit', 'call') AND coalesce(r.receiver, '') NOT IN ({selfs})
          -- a type the file names but the workspace does not define is guessed only when
          -- its name does not come from outside (`x: BytesIO` from io is never a workspace class)
          AND (r.rtype IS NULL OR (r.kind = 'call' AND r.rtype NOT IN ('builtin', 'local', 'super') AND o.path IS NULL))
          -- a typed instance called (index/instance.py) runs its class's `__call__` or is unknown: no guess
          -- among every class's (flask: `weak = weakref.ref(app); weak()`, 20 such guesses)
          AND NOT (r.name = '__call__' AND r.rtype IS NOT NULL)
          -- a protocol method on a value of unknown type (`bool(x)`: x.__bool__, python_protocol.py) is any class's, Python's too
          AND NOT (r.receiver IS NOT NULL AND r.name IN ({_quoted(PROTOCOL_METHODS)}))
          -- Java declares every type: one the workspace does not define here is another library's
          AND NOT (ends_with(r.path, '.java') AND r.rtype IS NOT NULL AND NOT starts_with(r.rtype, '{MARK}'))""")


def _overrides(cur, syms: str) -> None:
    """`_over`: the methods of the referenced names that override a method of that name in a
    class their own class names as a direct base (`NativeTemplate.render` over `Template.render`).
    A guess by name links such an override as a possible dispatch, marked (strategy `override`,
    half the guess's confidence); counting the base alone was tried and made more guesses listed
    than were right (BENCHMARKS.md am). One level only: which methods a base's own bases define is
    another file's, which an editor's run does not read again when it changes."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _over AS
        SELECT DISTINCT m.id, m.name FROM {syms} m
        JOIN _inh e ON e.src = m.path || '::' || m.parent
        JOIN {syms} b ON b.id = e.dst || '.' || m.name AND b.kind = 'method'
        WHERE m.kind = 'method' AND m.name IN (SELECT name FROM _counts)""")


def _by_name(cur, c: CallConfidence, kind: str, max_candidates: int, ref_kind: str,
             builtin_methods: dict[tuple[str, ...], tuple[str, ...]] | None = None) -> None:
    """Name-only guesses for the `_open` references of `ref_kind` (made by `_open_refs`); on a
    receiver in a file of one of `builtin_methods`' suffixes, a name of its list is one candidate more."""
    calls = ref_kind == "call"
    language = " OR ".join(f"(r.name IN ({_quoted(names)}) AND ({' OR '.join(f'ends_with(r.path, {_quoted([e])})' for e in suffixes)}))"
                           for suffixes, names in (builtin_methods or {}).items())
    # (a type here is one the graph found no method for: a name it did not resolve, a mark, a type alias
    # (`Context = Union[Dict, ...]`), a class with a base outside: it says as little as no type)
    builtin = f"(r.receiver IS NOT NULL AND ({language}))" if calls and language else "false"
    # a method is a candidate only for a call on a receiver: never a base (`class B(obj.signer)`, where a
    # test class's fixture method `signer` was the one definition of the name: no class)
    defined = "CASE WHEN r.receiver IS NULL OR r.kind = 'inherit' THEN c.n_plain ELSE c.n_any END"
    candidates = f"({defined} + CASE WHEN {builtin} THEN 1 ELSE 0 END)"
    # a receiver whose class was found in the workspace, with every direct base resolved (or one of NO_WORKSPACE_METHODS):
    # its class and bases said no (a base the workspace could not resolve may still define it, unless it is Python's or
    # an outside module's: `h.get()` on a class of `typing.MutableMapping` is the mapping's get, not a workspace `get`)
    typed = ("""ANTI JOIN _typed t ON t.path = r.path AND t.line = r.line AND t.name = r.name
             ANTI JOIN _closed k ON k.path = r.path AND k.line = r.line AND k.name = r.name"""
             if ref_kind == "call" else "")
    if ref_kind == "call":
        cur.execute(f"""
            CREATE OR REPLACE TEMP TABLE _closed AS
            SELECT DISTINCT k.path, k.line, k.name FROM _cls k
            ANTI JOIN (SELECT DISTINCT h.src FROM _bases h ANTI JOIN _inh e ON e.src = h.src AND e.name = h.name
                       WHERE h.name NOT IN ({_quoted(NO_WORKSPACE_METHODS)}) AND NOT h.outside) o
                 ON o.src = k.cid""")
    over = "LEFT JOIN _over v ON v.id = s.id" if calls else ""
    overriding = "v.id IS NOT NULL" if calls else "false"
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT DISTINCT r.src, s.id, {kind}, r.path, s.path, r.line,
               {_lit(c.by_name)} / ({candidates}) / CASE WHEN {overriding} THEN 2 ELSE 1 END
               / CASE WHEN ends_with(r.path, '.java') THEN 2 ELSE 1 END,  -- graph/resolution.py
               CASE WHEN {overriding} THEN 'override' WHEN ({candidates}) = 1 THEN 'name_unique'
                    ELSE 'name_ambiguous' END, r.name, 1
        FROM _open r {typed} JOIN _counts c ON c.name = r.name AND c.fam = r.fam
             JOIN _named s ON s.name = r.name AND s.fam = r.fam
                  AND (r.receiver IS NOT NULL AND r.kind = 'call' OR s.kind <> 'method')
                  AND NOT s.nested {over}
             ANTI JOIN _twins w ON w.id = s.id
        WHERE r.kind = '{ref_kind}' AND ({defined}) <= {int(max_candidates)}
          AND NOT (r.kind = 'inherit' AND r.src = s.id)""")


def _resolve_typed(store: Store, cur, c: CallConfidence, selfs: str, syms: str) -> None:
    """Calls on a receiver whose class is known: `self`/`cls` (methods of the bases; its own were
    matched above), `super()` (the bases only), a typed receiver or a class named as the receiver
    (`Foo.f()`): the method of that class, else of the nearest base that defines it."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _recv AS
        SELECT r.*, CASE WHEN r.rtype = 'super' OR (r.rtype IS NULL AND r.receiver IN ({selfs})) THEN NULL
                         -- `str(Foo)` runs no Foo.__str__ (its metaclass's): a protocol call's receiver is a module variable or nothing
                         WHEN r.rtype IS NULL AND r.name IN ({_quoted(PROTOCOL_METHODS)}) THEN ''
                         ELSE coalesce(r.rtype, r.receiver) END AS tname,
               CASE WHEN r.rtype = 'super' THEN 'super' WHEN r.rtype IS NULL AND r.receiver IN ({selfs})
                    THEN 'self' WHEN r.rtype IS NULL THEN 'class_attr' ELSE 'typed' END AS how
        FROM _refs r ANTI JOIN (SELECT DISTINCT path, line, name, src FROM _precise) p
             ON p.path = r.path AND p.line = r.line AND p.name = r.name AND p.src = r.src
        WHERE r.kind = 'call' AND r.receiver IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')""")
    receiver_classes.classes(cur, "_recv", "_cls", syms)
    # `t = env.from_string(...); t.render()`: the class another file's function returns (store/return_calls.py)
    marked = return_calls.marked_names(cur)
    if marked:
        cur.execute(return_calls.OWNERS)
        receiver_classes.classes(cur, "_mrecv", "_mcls", syms)
        return_calls.returned_types(store, cur, _IN_SCOPE, value_set(store, cur, "_r_names", marked))
    else:
        return_calls.no_returned_types(cur)
    cur.execute("""INSERT INTO _cls SELECT rc.* REPLACE ('returned' AS how), t.cid FROM _recv rc
                   JOIN _rt t ON t.path = rc.path AND t.src = rc.src AND t.rtype = rc.rtype""")
    # the bases each of those classes names (for "every direct base resolved" in _by_name), each
    # `outside` when Python's (a builtin class its file does not bind) or bound by an import from outside
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _bases AS
        WITH b AS (SELECT src, path, name, coalesce(split_part(receiver, '.', 1), name) AS first FROM refs
                   WHERE kind = 'inherit' AND src IN (SELECT cid FROM _cls)),
        bound AS (SELECT path, split_part(binding, '.', 1) AS binding, bool_or(o) AS outside  -- `import a.b` binds a
                  FROM (SELECT *, {_FROM_OUTSIDE} AS o FROM imports WHERE binding IS NOT NULL AND path IN (SELECT DISTINCT path FROM b))
                  GROUP BY ALL)
        SELECT b.src, b.name, coalesce(i.outside, b.name = b.first AND b.name IN ({_quoted(BUILTIN_CLASSES)})
                                       AND (ends_with(b.path, '.py') OR ends_with(b.path, '.pyi'))) AS outside
        FROM b LEFT JOIN bound i ON i.path = b.path AND i.binding = b.first""")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _typed AS
        WITH RECURSIVE {receiver_classes.ancestors("_cls")},
        found AS (
            SELECT k.src, m.id AS dst, k.path, m.path AS dst_path, k.line, k.name, k.how, a.d
            FROM _cls k JOIN anc a ON a.cid = k.cid JOIN {syms} m ON m.id = a.base || '.' || k.name
            WHERE a.d >= CASE WHEN k.how IN ('self', 'super') THEN 1 ELSE 0 END)
        SELECT DISTINCT src, dst, path, dst_path, line, name, how, d FROM found
        QUALIFY d = min(d) OVER (PARTITION BY path, line, name, src)""")
    var_calls.called_instances(cur)  # `format_exc_info(...)`, a module variable holding an instance
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT src, dst, 'CALLS', path, dst_path, line,
               CASE WHEN d = 0 THEN {_lit(c.typed)} ELSE {_lit(c.inherited)} END,
               CASE WHEN how = 'super' THEN 'super' WHEN d = 0 THEN how ELSE how || '_inherited' END, name, 1
        FROM _typed""")
    held_calls.resolve(cur, c.typed)  # no method of that name: a class or function the class body holds
    for temp in ("_recv", "_mrecv", "_mcls"):
        cur.execute(f"DROP TABLE IF EXISTS {temp}")


def _resolve_fixtures(cur, c: CallConfidence, syms: str) -> None:
    """USES_FIXTURE: a test function's parameter -> the module-level function of that name in its
    own file or in a conftest.py of its folder or one above (where pytest looks), or the one its
    decorator names so (`@pytest.fixture(name="cl") def _cl()`: a `fixturename` row)."""
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        WITH fixtures AS (
            SELECT id, path, name FROM {syms} WHERE parent IS NULL AND kind = 'function'
            UNION ALL
            SELECT s.id, s.path, a.name FROM refs a JOIN symbols s ON s.id = a.src
                   AND s.parent IS NULL AND s.kind = 'function'
            WHERE a.kind = 'fixturename' AND a.name IN (SELECT name FROM _refs WHERE kind = 'fixture'))
        SELECT DISTINCT r.src, s.id, 'USES_FIXTURE', r.path, s.path, r.line, {_lit(c.fixture)}, 'fixture', r.name, 1
        FROM _refs r JOIN fixtures s ON s.name = r.name
             JOIN files f ON f.path = s.path AND f.is_test
        WHERE r.kind = 'fixture' AND (s.path = r.path OR (s.path LIKE '%conftest.py'
              AND starts_with(r.path, regexp_replace(s.path, 'conftest\\.py$', ''))))""")
