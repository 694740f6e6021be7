"""Edge rebuilds: the statements the graph passes run (graph/ decides what and with which values).

Every write function takes the transaction's cursor. `touched` (a set of paths, or None for
everywhere) limits a rebuild to edges from or into those files. The temp tables here are private
to this module. Confidences, limits and score weights come from graph/ as plain values.
"""

from __future__ import annotations

from typing import NamedTuple

from memory_lsp.store.code import insert, restore_file_history, set_temp
from memory_lsp.store.db import Store

EDGE_COLUMNS = (["src", "dst", "kind", "src_path", "dst_path", "line", "confidence", "strategy",
                 "name", "support"],
                ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "DOUBLE", "VARCHAR",
                 "VARCHAR", "INTEGER"])
_COLUMNS = ", ".join(EDGE_COLUMNS[0])


class RefScope(NamedTuple):
    """Which references resolve again: every one in `files`, those named one of `names` in
    `importers`, and those named one of `anywhere` wherever they are."""

    files: set[str]
    names: set[str]
    importers: set[str]
    anywhere: set[str]


class CallConfidence(NamedTuple):
    """The confidence of each resolution strategy (graph/resolution.py sets them)."""

    self_receiver: float  # self.f() inside a class: that class's method
    implicit_self: float  # a bare f() where methods call siblings without `this`
    same_file: float
    imported: float  # an imported name
    module_attr: float  # mod.f() through an imported module
    by_name: float  # divided by the number of candidates
    typed: float  # x.f() where x's class is known (index/receivers.py), or Foo.f()
    inherited: float  # the method found in a base class of the receiver's class (super() too)
    fixture: float  # a test's parameter -> the pytest fixture of that name it can see


def _lit(value: float) -> str:
    return repr(float(value))


def _quoted(values) -> str:
    return ", ".join("'" + str(v).replace("'", "") + "'" for v in values) or "''"


def _touching(temp: str | None) -> str:
    return f"(src_path IN (SELECT v FROM {temp}) OR dst_path IN (SELECT v FROM {temp}))" if temp else "TRUE"


def _scope_table(store: Store, cur, touched) -> str | None:
    return None if touched is None else set_temp(store, cur, "_touched", touched)


def rebuild_import_edges(store: Store, cur, touched: set[str] | None = None) -> None:
    """IMPORTS edges (one per file pair) from the resolved import rows."""
    temp = _scope_table(store, cur, touched)
    cur.execute(f"DELETE FROM edges WHERE kind = 'IMPORTS' AND {_touching(temp)}")
    only = f"AND (path IN (SELECT v FROM {temp}) OR target IN (SELECT v FROM {temp}))" if temp else ""
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT path, target, 'IMPORTS', path, target, min(line), 1.0, min(strategy), NULL, count(*)
        FROM imports WHERE target IS NOT NULL AND target <> path {only} GROUP BY path, target""")


def importers_of(store: Store, cur, paths) -> set[str]:
    """Files with an import that lands in one of `paths`."""
    temp = set_temp(store, cur, "_targets", paths)
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT path FROM imports WHERE target IN (SELECT v FROM {temp})").fetchall()}


def bindings_into(store: Store, cur, paths, names) -> set[str]:
    """Local names that imports bind to one of `names` defined in `paths` (`from m import f as g`
    binds g): the names the references resolved through those imports carry."""
    targets, wanted = set_temp(store, cur, "_targets", paths), set_temp(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT binding FROM imports WHERE target IN (SELECT v FROM {targets}) "
        f"AND name IN (SELECT v FROM {wanted}) AND binding IS NOT NULL").fetchall()}


def names_resolved_by_name(store: Store, cur, names) -> set[str]:
    """Those of `names` that some edge was resolved by name alone to (whatever their count now)."""
    temp = set_temp(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT name FROM edges WHERE kind IN ('CALLS', 'INHERITS') "
        f"AND strategy IN ('name_unique', 'name_ambiguous') AND name IN (SELECT v FROM {temp})").fetchall()}


def names_defined_at_most(store: Store, cur, names, limit: int) -> set[str]:
    """Those of `names` defined at most `limit` times in the workspace."""
    temp = set_temp(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT name FROM symbols WHERE name IN (SELECT v FROM {temp}) GROUP BY name "
        f"HAVING count(*) <= {int(limit)}").fetchall()}


def resolve_refs(store: Store, cur, self_names: list[str], implicit_self_langs: list[str],
                 confidence: CallConfidence, max_candidates: int, scope: RefScope | None) -> None:
    """Resolve call and base-class references to symbols (CALLS and INHERITS edges).

    Precise strategies first (self, same file, imported name, imported module's attribute);
    by name only where nothing precise matched, the name has at most `max_candidates`
    definitions and no receiver is bound to an external import. `scope` None: every reference.
    """
    where = ""
    if scope is not None:
        for name, values in zip(("_s_files", "_s_names", "_s_importers", "_s_anywhere"), scope):
            set_temp(store, cur, name, values)
        predicate = ("{path} IN (SELECT v FROM _s_files) OR name IN (SELECT v FROM _s_anywhere) OR "
                     "(name IN (SELECT v FROM _s_names) AND {path} IN (SELECT v FROM _s_importers))")
        where = "WHERE " + predicate.format(path="path")
        cur.execute(f"DELETE FROM edges WHERE kind IN ('CALLS', 'INHERITS', 'USES_FIXTURE') "
                    f"AND ({predicate.format(path='src_path')})")
    selfs, implicit = _quoted(self_names), _quoted(implicit_self_langs)
    c = confidence
    kind = "CASE WHEN r.kind = 'call' THEN 'CALLS' ELSE 'INHERITS' END"
    cur.execute(f"CREATE OR REPLACE TEMP TABLE _refs AS SELECT * FROM refs {where}")
    _resolve_fixtures(cur, c)
    cur.execute("DELETE FROM _refs WHERE kind = 'fixture'")
    # what a module offers: its own top-level definitions and the names it imports (a package's
    # __init__ re-exporting `from .api import get`), for the modules the references import
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _exports AS
        WITH wanted AS (SELECT DISTINCT target AS path FROM imports
                        WHERE target IS NOT NULL AND path IN (SELECT DISTINCT path FROM _refs))
        SELECT path, name, id, kind FROM symbols WHERE parent IS NULL AND path IN (SELECT path FROM wanted)
        UNION ALL
        SELECT i.path, i.binding, s.id, s.kind
        FROM imports i JOIN symbols s ON s.path = i.target AND s.name = i.name AND s.parent IS NULL
        WHERE NOT i.is_module AND i.binding IS NOT NULL AND i.path IN (SELECT path FROM wanted)""")
    free = "coalesce(r.rtype, '') <> 'local'"  # a local name (a parameter) is no function of that name
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _precise AS
        SELECT DISTINCT r.src, s.id AS dst, {kind} AS kind, r.path, s.path AS dst_path, r.line,
               {_lit(c.self_receiver)} AS confidence, 'self' AS strategy, r.name
        FROM _refs r JOIN symbols s ON s.path = r.path AND s.parent = r.src_class AND s.name = r.name
        WHERE r.receiver IN ({selfs})
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, {_lit(c.implicit_self)}, 'self', r.name
        FROM _refs r JOIN files f ON f.path = r.path AND f.lang IN ({implicit})
               JOIN symbols s ON s.path = r.path AND s.parent = r.src_class AND s.name = r.name
        WHERE r.receiver IS NULL
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, {_lit(c.same_file)}, 'same_file', r.name
        FROM _refs r JOIN symbols s ON s.path = r.path AND s.name = r.name AND s.parent IS NULL
        WHERE r.receiver IS NULL AND {free}
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, d.path, r.line, {_lit(c.imported)}, 'import', r.name
        FROM _refs r JOIN imports i ON i.path = r.path AND NOT i.is_module AND i.binding = r.name
               JOIN _exports s ON s.path = i.target AND s.name = i.name
               JOIN symbols d ON d.id = s.id
        WHERE r.receiver IS NULL AND {free}
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, d.path, r.line, {_lit(c.module_attr)}, 'module_attr', r.name
        FROM _refs r JOIN imports i ON i.path = r.path AND i.is_module AND i.binding = r.receiver
               JOIN _exports s ON s.path = i.target AND s.name = r.name
               JOIN symbols d ON d.id = s.id""")
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT src, dst, kind, path, dst_path, line, max(confidence), min(strategy), name, 1
        FROM _precise GROUP BY src, dst, kind, path, dst_path, line, name""")
    # base classes by name first: the typed pass below walks the INHERITS edges
    _by_name(cur, c, kind, max_candidates, "inherit", selfs)
    _resolve_typed(cur, c, selfs)
    _by_name(cur, c, kind, max_candidates, "call", selfs)
    for temp in ("_refs", "_precise", "_typed", "_exports"):
        cur.execute(f"DROP TABLE {temp}")


def _by_name(cur, c: CallConfidence, kind: str, max_candidates: int, ref_kind: str, selfs: str) -> None:
    """Name-only guesses where nothing precise matched, the receiver's type is unknown (not a
    builtin, not a class: index/receivers.py) and it is no `self` (its class and bases said no)."""
    candidates = "CASE WHEN r.receiver IS NULL THEN c.n_plain ELSE c.n_any END"
    typed = "ANTI JOIN _typed t ON t.path = r.path AND t.line = r.line AND t.name = r.name" if ref_kind == "call" else ""
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        WITH counts AS (  -- @overload stubs repeat one id: count definitions, not rows
            SELECT name, count(DISTINCT id) AS n_any, count(DISTINCT id) FILTER (WHERE kind <> 'method') AS n_plain
            FROM symbols WHERE name IN (SELECT name FROM _refs)
            GROUP BY name HAVING count(DISTINCT id) <= {int(max_candidates) * 4}),
        external AS (SELECT DISTINCT path, binding FROM imports
                     WHERE target IS NULL AND path IN (SELECT path FROM _refs)),
        open_refs AS (
            SELECT r.* FROM _refs r
            ANTI JOIN (SELECT DISTINCT path, line, name, src FROM _precise) p
                 ON p.path = r.path AND p.line = r.line AND p.name = r.name AND p.src = r.src
            {typed}
            ANTI JOIN external x ON x.path = r.path AND x.binding = split_part(r.receiver, '.', 1)
            WHERE r.kind = '{ref_kind}' AND r.rtype IS NULL AND coalesce(r.receiver, '') NOT IN ({selfs}))
        SELECT DISTINCT r.src, s.id, {kind}, r.path, s.path, r.line,
               {_lit(c.by_name)} / ({candidates}),
               CASE WHEN ({candidates}) = 1 THEN 'name_unique' ELSE 'name_ambiguous' END, r.name, 1
        FROM open_refs r JOIN counts c ON c.name = r.name
             JOIN symbols s ON s.name = r.name AND (r.receiver IS NOT NULL OR s.kind <> 'method')
        WHERE ({candidates}) <= {int(max_candidates)}
          AND NOT (r.kind = 'inherit' AND r.src = s.id)""")


def _resolve_typed(cur, c: CallConfidence, selfs: str) -> None:
    """Calls on a receiver whose class is known: `self`/`cls` (methods of the bases; its own were
    matched above), `super()` (the bases only), a typed receiver or a class named as the receiver
    (`Foo.f()`): the method of that class, else of the nearest base that defines it."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _recv AS
        SELECT r.*, CASE WHEN r.rtype = 'super' OR (r.rtype IS NULL AND r.receiver IN ({selfs})) THEN NULL
                         ELSE coalesce(r.rtype, r.receiver) END AS tname,
               CASE WHEN r.rtype = 'super' THEN 'super' WHEN r.rtype IS NULL AND r.receiver IN ({selfs})
                    THEN 'self' WHEN r.rtype IS NULL THEN 'class_attr' ELSE 'typed' END AS how
        FROM _refs r ANTI JOIN (SELECT DISTINCT path, line, name, src FROM _precise) p
             ON p.path = r.path AND p.line = r.line AND p.name = r.name AND p.src = r.src
        WHERE r.kind = 'call' AND r.receiver IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')""")
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _cls AS
        SELECT rc.*, rc.path || '::' || rc.src_class AS cid FROM _recv rc
        WHERE rc.tname IS NULL AND rc.src_class IS NOT NULL
        UNION ALL
        SELECT rc.*, s.id FROM _recv rc
               JOIN symbols s ON s.path = rc.path AND s.name = rc.tname AND s.parent IS NULL AND s.kind = 'class'
        UNION ALL
        SELECT rc.*, e.id FROM _recv rc JOIN imports i ON i.path = rc.path AND NOT i.is_module
               AND i.binding = rc.tname JOIN _exports e ON e.path = i.target AND e.name = i.name AND e.kind = 'class'
        UNION ALL
        SELECT rc.*, e.id FROM _recv rc JOIN imports i ON i.path = rc.path AND i.is_module
               AND starts_with(rc.tname, i.binding || '.')
               JOIN _exports e ON e.path = i.target AND rc.tname = i.binding || '.' || e.name AND e.kind = 'class'""")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _typed AS
        WITH RECURSIVE anc(cid, base, d) AS (
            SELECT DISTINCT cid, cid, 0 FROM _cls
            UNION ALL
            SELECT a.cid, e.dst, a.d + 1 FROM anc a JOIN edges e ON e.kind = 'INHERITS' AND e.src = a.base
            WHERE a.d < 8),
        found AS (
            SELECT k.src, m.id AS dst, k.path, m.path AS dst_path, k.line, k.name, k.how, a.d
            FROM _cls k JOIN anc a ON a.cid = k.cid JOIN symbols m ON m.id = a.base || '.' || k.name
            WHERE a.d >= CASE WHEN k.how IN ('self', 'super') THEN 1 ELSE 0 END)
        SELECT DISTINCT src, dst, path, dst_path, line, name, how, d FROM found
        QUALIFY d = min(d) OVER (PARTITION BY path, line, name, src)""")
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT src, dst, 'CALLS', path, dst_path, line,
               CASE WHEN d = 0 THEN {_lit(c.typed)} ELSE {_lit(c.inherited)} END,
               CASE WHEN how = 'super' THEN 'super' WHEN d = 0 THEN how ELSE how || '_inherited' END, name, 1
        FROM _typed""")
    cur.execute("DROP TABLE _recv")
    cur.execute("DROP TABLE _cls")


def _resolve_fixtures(cur, c: CallConfidence) -> None:
    """USES_FIXTURE: a test function's parameter -> the module-level function of that name in its
    own file or in a conftest.py of its folder or one above (where pytest looks)."""
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT DISTINCT r.src, s.id, 'USES_FIXTURE', r.path, s.path, r.line, {_lit(c.fixture)}, 'fixture', r.name, 1
        FROM _refs r JOIN symbols s ON s.name = r.name AND s.parent IS NULL AND s.kind = 'function'
             JOIN files f ON f.path = s.path AND f.is_test
        WHERE r.kind = 'fixture' AND (s.path = r.path OR (s.path LIKE '%conftest.py'
              AND starts_with(r.path, regexp_replace(s.path, 'conftest\\.py$', ''))))""")


def rebuild_documents(store: Store, cur, touched: set[str] | None = None) -> None:
    """DOCUMENTS edges: documentation that names a workspace file (path or unique path suffix)
    or symbol; a mention with more than three candidates is left out."""
    temp = _scope_table(store, cur, touched)
    cur.execute(f"DELETE FROM edges WHERE kind = 'DOCUMENTS' AND {_touching(temp)}")
    source_filter = _touching(temp).replace("src_path", "path")
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        WITH m AS (SELECT path, line, token, regexp_replace(token, '\\(.*\\)$', '') AS bare FROM mentions),
        by_path AS (
            SELECT m.path, f.path AS dst, f.path AS dst_path, m.line, m.token,
                   count(*) OVER (PARTITION BY m.path, m.line, m.token) AS n
            FROM m JOIN files f ON f.path = m.token OR f.path LIKE '%/' || m.token),
        by_symbol AS (
            SELECT m.path, s.id AS dst, s.path AS dst_path, m.line, m.token,
                   count(*) OVER (PARTITION BY m.path, m.line, m.token) AS n
            FROM m JOIN symbols s ON (s.qualname = m.bare OR (s.name = m.bare AND length(m.bare) >= 4))
                                  AND s.kind <> 'section')
        SELECT DISTINCT path, dst, 'DOCUMENTS', path, dst_path, line, 1.0 / n,
               CASE WHEN n = 1 THEN 'exact' ELSE 'ambiguous' END, token, 1
        FROM (SELECT * FROM by_path UNION ALL SELECT * FROM by_symbol)
        WHERE n <= 3 AND dst_path <> path AND {source_filter}""")


class PromotionRules(NamedTuple):
    """The values of the ASSERTS_ON and DRIVES rules (graph/promotions.py sets them)."""

    test_import: float  # a test file imports a file
    same_package: float  # a test sits in the same directory (languages where that means tested)
    same_dir_langs: list[str]
    fan_in: int  # imported by at least this many files: it drives them


def rebuild_promotions(store: Store, cur, rules: PromotionRules, touched: set[str] | None = None) -> None:
    """ASSERTS_ON and DRIVES edges, recomputed from the IMPORTS edges."""
    temp = _scope_table(store, cur, touched)
    cur.execute(f"DELETE FROM edges WHERE kind IN ('ASSERTS_ON', 'DRIVES') AND {_touching(temp)}")
    cur.execute("CREATE OR REPLACE TEMP TABLE _promoted AS SELECT * FROM edges LIMIT 0")
    cur.execute(f"""
        INSERT INTO _promoted ({_COLUMNS})
        SELECT e.src_path, e.dst_path, 'ASSERTS_ON', e.src_path, e.dst_path, min(e.line),
               {_lit(rules.test_import)}, 'test_import', NULL, 1
        FROM edges e JOIN files t ON t.path = e.src_path AND t.is_test
                     JOIN files c ON c.path = e.dst_path AND NOT c.is_test
        WHERE e.kind = 'IMPORTS' GROUP BY e.src_path, e.dst_path
        UNION ALL
        SELECT t.path, c.path, 'ASSERTS_ON', t.path, c.path, NULL, {_lit(rules.same_package)}, 'same_package',
               NULL, 1
        FROM files t JOIN files c ON t.lang = c.lang AND t.path <> c.path AND NOT c.is_test
             AND regexp_replace(t.path, '[^/]*$', '') = regexp_replace(c.path, '[^/]*$', '')
        WHERE t.is_test AND t.lang IN ({_quoted(rules.same_dir_langs)})""")
    cur.execute(f"""
        INSERT INTO _promoted ({_COLUMNS})
        WITH imp AS (SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = 'IMPORTS'),
        fan AS (SELECT dst_path FROM imp GROUP BY dst_path HAVING count(*) >= {int(rules.fan_in)}),
        mut AS (SELECT path FROM files WHERE mutations > 0)
        SELECT imp.dst_path, imp.src_path, 'DRIVES', imp.dst_path, imp.src_path, NULL, 1.0,
               CASE WHEN fan.dst_path IS NOT NULL AND mut.path IS NOT NULL THEN 'fan_in+mutation'
                    WHEN fan.dst_path IS NOT NULL THEN 'fan_in' ELSE 'mutation' END, NULL, 1
        FROM imp LEFT JOIN fan ON fan.dst_path = imp.dst_path LEFT JOIN mut ON mut.path = imp.dst_path
        WHERE fan.dst_path IS NOT NULL OR mut.path IS NOT NULL""")
    cur.execute(f"INSERT INTO edges SELECT * FROM _promoted WHERE {_touching(temp)}")
    cur.execute("DROP TABLE _promoted")


def delete_co_changes(store: Store, cur, paths) -> None:
    temp = set_temp(store, cur, "_gone", paths)
    cur.execute(f"DELETE FROM edges WHERE kind = 'CO_CHANGES' AND {_touching(temp)}")


def replace_history(store: Store, cur, co_change_rows: list[tuple], churn: dict, last_change: dict) -> None:
    """New git figures: every CO_CHANGES edge (rows in EDGE_COLUMNS order) and file churn."""
    cur.execute("DELETE FROM edges WHERE kind = 'CO_CHANGES'")
    insert(store, cur, EDGE_COLUMNS, "edges", co_change_rows)
    cur.execute("UPDATE files SET churn = 0, last_change = NULL")
    restore_file_history(store, cur, [(p, churn.get(p, 0), last_change.get(p))
                                      for p in set(churn) | set(last_change)])


def dependency_pairs(cur, kinds: tuple[str, ...]) -> list[tuple[str, str]]:
    """(dependent file, file it depends on) for every edge of `kinds` between two files."""
    return cur.execute(f"""
        SELECT DISTINCT src_path, dst_path FROM edges
        WHERE kind IN ({_quoted(kinds)}) AND src_path <> dst_path""").fetchall()


class EdgeWeights(NamedTuple):
    """Edge score = score(src file) + score(dst file) + these (graph/scoring.py sets them)."""

    causal_kinds: tuple[str, ...]
    causal: float  # the edge is one of causal_kinds
    cost: float  # ASSERTS_ON, or the source file has side effects
    support: float  # times ln(1 + support)


def write_edge_scores(cur, weights: EdgeWeights) -> None:
    """Every edge's score from its two files' scores (run after the files' scores are written)."""
    w = weights
    cur.execute(f"""
        UPDATE edges SET score = round(coalesce(a.score, 0) + coalesce(b.score, 0)
            + CASE WHEN edges.kind IN ({_quoted(w.causal_kinds)}) THEN {_lit(w.causal)} ELSE 0 END
            + CASE WHEN edges.kind = 'ASSERTS_ON' OR coalesce(a.side_effects, '') <> '' THEN {_lit(w.cost)} ELSE 0 END
            + ln(1 + coalesce(edges.support, 1)) * {_lit(w.support)}, 4)
        FROM files a, files b WHERE a.path = edges.src_path AND b.path = edges.dst_path""")


def all_edges(cur) -> list[tuple]:
    return cur.execute("""SELECT src, dst, kind, src_path, dst_path, line, confidence, strategy, score
                          FROM edges""").fetchall()
