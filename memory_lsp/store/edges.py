"""Edge rebuilds: the statements the graph passes run (graph/ decides what and with which values).

Every write function takes the transaction's cursor. `touched` (a set of paths, or None for
everywhere) limits a rebuild to edges from or into those files. The temp tables here are private
to this module. Confidences, limits and score weights come from graph/ as plain values.
"""

from __future__ import annotations

from typing import NamedTuple

from memory_lsp.store.code import insert, restore_file_history, value_set
from memory_lsp.store.db import Store

EDGE_COLUMNS = (["src", "dst", "kind", "src_path", "dst_path", "line", "confidence", "strategy",
                 "name", "support"],
                ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "DOUBLE", "VARCHAR",
                 "VARCHAR", "INTEGER"])
_COLUMNS = ", ".join(EDGE_COLUMNS[0])
# what identifies an edge's content for the in-memory graph: two rows with the same fingerprint give
# it the same steps and call-site confidences (hash() is DuckDB's 64-bit hash). Kept in the row
# (`fingerprint`), so that the graph following an edit reads one number per edge, not every edge's
# text hashed again (35 of the follow's ~140 ms on the stdlib). A write that changes one of these
# columns in place sets it NULL; `fill_fingerprints` ends every run.
FINGERPRINT = ("hash(e.src, e.dst, e.kind, e.src_path, e.dst_path, e.line, e.confidence, e.strategy, "
               "e.score, e.name)")


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
    return f"(src_path IN {temp} OR dst_path IN {temp})" if temp else "TRUE"


def _scope_table(store: Store, cur, touched) -> str | None:
    return None if touched is None else value_set(store, cur, "_touched", touched)


def rebuild_import_edges(store: Store, cur, touched: set[str] | None = None) -> None:
    """IMPORTS edges (one per file pair) from the resolved import rows, not those of strings."""
    temp = _scope_table(store, cur, touched)
    cur.execute(f"DELETE FROM edges WHERE kind = 'IMPORTS' AND {_touching(temp)}")
    only = f"AND (path IN {temp} OR target IN {temp})" if temp else ""
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT path, target, 'IMPORTS', path, target, min(line), 1.0, min(strategy), NULL, count(*)
        FROM imports WHERE target IS NOT NULL AND target <> path AND strategy <> 'string' {only}
        GROUP BY path, target""")  # a string may name a module the program never loads (index/string_imports.py)


# the import rows as Python binds their names: `import click._termui_impl` binds `click` too, the
# package (its __init__.py), so `click.command()` after it is the package's `command`; a row of
# its own (strategy 'package', no statement, no IMPORTS edge) unless another import binds the name
def bound_imports(paths: str | None = None) -> str:
    """The import rows as Python binds their names (above); `paths` (SQL after IN): those files' rows only."""
    only = f" AND path IN {paths}" if paths else ""
    return f"""
    SELECT path, line, module, name, alias, binding, target, is_module, strategy FROM imports WHERE true{only}
    UNION ALL
    SELECT m.path, m.line, split_part(m.module, '.', 1), NULL, NULL, split_part(m.binding, '.', 1),
           f.path, true, 'package'
    FROM (SELECT *, string_split(regexp_replace(target, '(/__init__)?[.]pyi?$', ''), '/') AS parts,
                 length(binding) - length(replace(binding, '.', '')) AS up
          FROM imports WHERE is_module AND alias IS NULL AND contains(binding, '.') AND target IS NOT NULL{only}) m
    JOIN files f ON f.path = array_to_string(m.parts[1:len(m.parts) - m.up], '/') || '/__init__.py'
    ANTI JOIN imports j ON j.path = m.path AND j.binding = split_part(m.binding, '.', 1)"""


BOUND_IMPORTS = bound_imports()


def importers_of(store: Store, cur, paths) -> set[str]:
    """Files with an import that lands in one of `paths` (a package's __init__.py too when
    `import pkg.mod` binds pkg)."""
    paths = set(paths)
    # the package rows land in an __init__.py only: without one among `paths`, the plain table
    # (~1 ms on the stdlib against ~3.6 ms, up to five times per edit)
    rows = BOUND_IMPORTS if any(p.endswith("/__init__.py") for p in paths) else "SELECT * FROM imports"
    temp = value_set(store, cur, "_targets", paths)
    return {r[0] for r in cur.execute(f"SELECT DISTINCT path FROM ({rows}) WHERE target IN {temp}").fetchall()}


# an import row that re-exports a module's names whole: `export * from`, `from m import *` (Java's
# `import a.b.*` only brings a package's classes into the file; `import * as ns` binds ns alone)
STAR_EXPORT = "name = '*' AND alias IS NULL AND is_module AND target IS NOT NULL AND NOT ends_with(path, '.java')"
# a TS/JS namespace import of a workspace module (`import * as z from "./zod"`): its names are what the module exports
NAMESPACE_IMPORT = "name = '*' AND alias IS NOT NULL AND is_module AND target IS NOT NULL"


def bindings_into(store: Store, cur, paths, names) -> set[tuple[str, str]]:
    """(file, local name) of the imports binding one of `names` defined in `paths` (`from m import
    f as g` binds g): the names the references resolved through those imports carry, and the
    files that offer them on (a package's __init__)."""
    targets, wanted = value_set(store, cur, "_targets", paths), value_set(store, cur, "_names", names)
    found = set(cur.execute(
        f"SELECT DISTINCT path, binding FROM imports WHERE target IN {targets} "
        f"AND name IN {wanted} AND binding IS NOT NULL").fetchall())
    # a module re-exporting another whole (`export * from './schemas'`, `from .mod import *`) offers its names as they are
    stars = {r[0] for r in cur.execute(
        f"SELECT DISTINCT path FROM imports WHERE target IN {targets} AND {STAR_EXPORT}").fetchall()}
    return found | {(path, name) for path in stars for name in names}


def names_resolved_by_name(store: Store, cur, names) -> set[str]:
    """Those of `names` that some edge was resolved by name alone to (whatever their count now),
    through a base class (a file that never imports the base's file can call its method), or as
    a pytest fixture (a test never imports its conftest.py)."""
    temp = value_set(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT name FROM edges WHERE (kind IN ('CALLS', 'INHERITS') "
        f"AND (strategy IN ('name_unique', 'name_ambiguous', 'override', 'super') OR strategy LIKE '%_inherited') "
        f"OR kind = 'USES_FIXTURE') AND name IN {temp}").fetchall()}


def names_defined_at_most(store: Store, cur, names, limit: int) -> set[str]:
    """Those of `names` defined at most `limit` times in the workspace."""
    temp = value_set(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT name FROM symbols WHERE name IN {temp} GROUP BY name "
        f"HAVING count(*) <= {int(limit)}").fetchall()}


def fixture_names(store: Store, cur, names) -> set[str]:
    """Those of `names` a fixture's decorator gives it (`@pytest.fixture(name="cl")`): no symbol
    is named so, a test's parameter is."""
    temp = value_set(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT name FROM refs WHERE kind = 'fixturename' AND name IN {temp}").fetchall()}


def mentioning(store: Store, cur, names) -> set[str]:
    """Files with a documentation mention of one of `names` (as `rebuild_documents` reads it)."""
    if not names:
        return set()
    temp = value_set(store, cur, "_names", names)
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT path FROM mentions WHERE regexp_replace(token, '\\(.*\\)$', '') "
        f"IN {temp}").fetchall()}


def rebuild_documents(store: Store, cur, touched: set[str] | None = None) -> None:
    """DOCUMENTS edges: documentation that names a workspace file (path or unique path suffix)
    or symbol; a mention with more than three candidates is left out."""
    if touched is not None and not touched:
        return  # a run that changed nothing (the statement below joins every mention all the same)
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
    """ASSERTS_ON (from the tests' import rows) and DRIVES edges (from the IMPORTS edges)."""
    temp = _scope_table(store, cur, touched)
    cur.execute(f"DELETE FROM edges WHERE kind IN ('ASSERTS_ON', 'DRIVES') AND {_touching(temp)}")
    # with a scope, only the rows that can touch it are read: an import from or into a touched
    # file, or into a facade that re-exports from one (filters on the grouping keys: exact)
    if temp:
        facades = {r[0] for r in cur.execute(f"SELECT DISTINCT path FROM imports WHERE target IN {temp}").fetchall()}
        near = f"AND (i.path IN {temp} OR i.target IN {value_set(store, cur, '_near', facades | touched)})"
    else:
        near = ""
    pair = (lambda a, b: f"AND ({a} IN {temp} OR {b} IN {temp})") if temp \
        else (lambda a, b: "")
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT e.src_path, e.dst_path, 'ASSERTS_ON', e.src_path, e.dst_path, min(e.line),
               {_lit(rules.test_import)}, 'test_import', NULL, 1
        FROM (  -- a name a facade re-exports: the module that defines it; not the facade itself
              -- for `import pkg` (calls through it are CALLS edges to the defining modules)
              SELECT i.path AS src_path, coalesce(x.target, i.target) AS dst_path, i.line
              FROM imports i JOIN files t ON t.path = i.path AND t.is_test
                   -- (a condition on i alone here made DuckDB join by nested loops: 0.2 s a run)
                   LEFT JOIN imports x ON x.path = i.target AND x.target IS NOT NULL AND x.target <> x.path
                        AND x.binding = CASE WHEN i.is_module IS DISTINCT FROM false THEN NULL ELSE i.name END
              WHERE i.target IS NOT NULL AND i.target <> i.path {near}
                AND NOT (i.is_module AND regexp_matches(i.target, '(^|/)__init__\\.pyi?$'))) e
             JOIN files c ON c.path = e.dst_path AND NOT c.is_test
        WHERE TRUE {pair("e.src_path", "e.dst_path")}
        GROUP BY e.src_path, e.dst_path
        UNION ALL
        SELECT t.path, c.path, 'ASSERTS_ON', t.path, c.path, NULL, {_lit(rules.same_package)}, 'same_package',
               NULL, 1
        FROM files t JOIN files c ON t.lang = c.lang AND t.path <> c.path AND NOT c.is_test
             AND regexp_replace(t.path, '[^/]*$', '') = regexp_replace(c.path, '[^/]*$', '')
        WHERE t.is_test AND t.lang IN ({_quoted(rules.same_dir_langs)}) {pair("t.path", "c.path")}""")
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        WITH imp AS (SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = 'IMPORTS'),
        mine AS (SELECT * FROM imp WHERE TRUE {pair("src_path", "dst_path")}),
        fan AS (SELECT dst_path FROM imp WHERE dst_path IN (SELECT dst_path FROM mine)
                GROUP BY dst_path HAVING count(*) >= {int(rules.fan_in)}),
        mut AS (SELECT path FROM files WHERE mutations > 0)
        SELECT imp.dst_path, imp.src_path, 'DRIVES', imp.dst_path, imp.src_path, NULL, 1.0,
               CASE WHEN fan.dst_path IS NOT NULL AND mut.path IS NOT NULL THEN 'fan_in+mutation'
                    WHEN fan.dst_path IS NOT NULL THEN 'fan_in' ELSE 'mutation' END, NULL, 1
        FROM mine imp LEFT JOIN fan ON fan.dst_path = imp.dst_path LEFT JOIN mut ON mut.path = imp.dst_path
        WHERE fan.dst_path IS NOT NULL OR mut.path IS NOT NULL""")


def delete_co_changes(store: Store, cur, paths) -> None:
    temp = value_set(store, cur, "_gone", paths)
    cur.execute(f"DELETE FROM edges WHERE kind = 'CO_CHANGES' AND {_touching(temp)}")


def replace_history(store: Store, cur, co_change_rows: list[tuple], churn: dict, last_change: dict) -> None:
    """New git figures: every CO_CHANGES edge (rows in EDGE_COLUMNS order) and file churn."""
    cur.execute("DELETE FROM edges WHERE kind = 'CO_CHANGES'")
    insert(store, cur, EDGE_COLUMNS, "edges", co_change_rows)
    fill_fingerprints(cur)
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


def fill_fingerprints(cur) -> None:
    """The fingerprint of every edge a write left without one (inserted, or changed in place)."""
    cur.execute(f"UPDATE edges e SET fingerprint = {FINGERPRINT} WHERE e.fingerprint IS NULL")


def write_edge_scores(cur, weights: EdgeWeights, only_new: bool = False) -> None:
    """Every edge's score from its two files' scores (run after the files' scores are written);
    `only_new`: the edges a run inserted (score 0: a scored edge is above 0, log1p(support) alone)."""
    w = weights
    cur.execute(f"""
        UPDATE edges SET fingerprint = NULL, score = round(coalesce(a.score, 0) + coalesce(b.score, 0)
            + CASE WHEN edges.kind IN ({_quoted(w.causal_kinds)}) THEN {_lit(w.causal)} ELSE 0 END
            + CASE WHEN edges.kind = 'ASSERTS_ON' OR coalesce(a.side_effects, '') <> '' THEN {_lit(w.cost)} ELSE 0 END
            + ln(1 + coalesce(edges.support, 1)) * {_lit(w.support)}, 4)
        FROM files a, files b WHERE a.path = edges.src_path AND b.path = edges.dst_path
        {"AND edges.score = 0" if only_new else ""}""")


def all_edges(cur) -> list[tuple]:
    return cur.execute("""SELECT src, dst, kind, src_path, dst_path, line, confidence, strategy, score
                          FROM edges""").fetchall()
