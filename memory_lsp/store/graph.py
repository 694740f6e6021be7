"""SQL over the graph tables: replacing a file's rows, resolving names, promotions, reads.

Every write function takes the transaction's cursor; the indexer decides when to commit.
"""

from __future__ import annotations

from memory_lsp.store.db import Store

FILE_COLUMNS = (["path", "lang", "hash", "size", "mtime", "loc", "is_test", "notes", "side_effects",
                 "mutations"],
                ["VARCHAR", "VARCHAR", "VARCHAR", "BIGINT", "DOUBLE", "INTEGER", "BOOLEAN", "VARCHAR",
                 "VARCHAR", "INTEGER"])
SYMBOL_COLUMNS = (["id", "path", "name", "qualname", "kind", "start_line", "end_line", "parent",
                   "fingerprint"],
                  ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER",
                   "VARCHAR", "VARCHAR"])
REF_COLUMNS = (["path", "kind", "src", "src_class", "name", "receiver", "line"],
               ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER"])
IMPORT_COLUMNS = (["path", "line", "module", "name", "alias", "binding", "target", "is_module", "strategy"],
                  ["VARCHAR", "INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR",
                   "BOOLEAN", "VARCHAR"])
EDGE_COLUMNS = (["src", "dst", "kind", "src_path", "dst_path", "line", "confidence", "strategy",
                 "name", "support"],
                ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "DOUBLE", "VARCHAR",
                 "VARCHAR", "INTEGER"])
CHUNK_COLUMNS = (["id", "path", "kind", "name", "start_line", "end_line", "prefix", "text"],
                 ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "VARCHAR", "VARCHAR"])
MENTION_COLUMNS = (["path", "heading", "line", "token"], ["VARCHAR", "VARCHAR", "INTEGER", "VARCHAR"])
SKIP_COLUMNS = (["path", "reason", "size"], ["VARCHAR", "VARCHAR", "BIGINT"])

DERIVED_KINDS = ("IMPORTS", "ASSERTS_ON", "DRIVES", "DOCUMENTS")


def insert(store: Store, cur, columns: tuple, table: str, rows: list[tuple]) -> None:
    store.bulk_insert(table, columns[0], columns[1], rows, cur=cur)


def set_temp(store: Store, cur, name: str, values) -> None:
    """A one-column temp table `name(v)` used to filter statements by a set of values."""
    cur.execute(f"CREATE OR REPLACE TEMP TABLE {name} (v VARCHAR)")
    store.bulk_insert(name, ["v"], ["VARCHAR"], [(v,) for v in values], cur=cur)


def known_files(cur) -> dict[str, tuple]:
    return {r[0]: (r[1], r[2], r[3]) for r in cur.execute("SELECT path, hash, size, mtime FROM files").fetchall()}


def names_defined_in(cur, temp: str) -> set[str]:
    return {r[0] for r in cur.execute(f"SELECT DISTINCT name FROM symbols WHERE path IN (SELECT v FROM {temp})").fetchall()}


def delete_paths(cur, temp: str) -> None:
    """Remove every row a set of files contributed, and every edge that touches them."""
    for table in ("files", "skipped", "symbols", "refs", "imports", "chunks", "mentions"):
        cur.execute(f"DELETE FROM {table} WHERE path IN (SELECT v FROM {temp})")
    cur.execute(f"DELETE FROM edges WHERE kind <> 'CO_CHANGES' AND (src_path IN (SELECT v FROM {temp}) "
                f"OR dst_path IN (SELECT v FROM {temp}))")


def import_rows(cur, temp: str | None) -> list[tuple]:
    where = f"WHERE path IN (SELECT v FROM {temp})" if temp else ""
    return cur.execute(f"SELECT DISTINCT path, line, module, name, alias FROM imports {where}").fetchall()


def import_targets(cur, temp: str | None) -> dict[str, set]:
    where = f"WHERE path IN (SELECT v FROM {temp})" if temp else ""
    out: dict[str, set] = {}
    for path, target, binding in cur.execute(f"SELECT path, target, binding FROM imports {where}").fetchall():
        out.setdefault(path, set()).add((target, binding))
    return out


def delete_imports(cur, temp: str | None) -> None:
    where = f"WHERE path IN (SELECT v FROM {temp})" if temp else ""
    cur.execute(f"DELETE FROM imports {where}")


def rebuild_import_edges(cur, touched: str | None = None) -> None:
    """IMPORTS edges (one per file pair) from the resolved import rows; `touched` limits them."""
    cur.execute(f"DELETE FROM edges WHERE kind = 'IMPORTS' AND {_touching(touched)}")
    only = f"AND (path IN (SELECT v FROM {touched}) OR target IN (SELECT v FROM {touched}))" if touched else ""
    cur.execute(f"""
        INSERT INTO edges (src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support)
        SELECT path, target, 'IMPORTS', path, target, min(line), 1.0, min(strategy), NULL, count(*)
        FROM imports WHERE target IS NOT NULL AND target <> path {only} GROUP BY path, target""")


MAX_NAME_CANDIDATES = 3


def resolve_refs(cur, self_names: list[str], implicit_self_langs: list[str], scope: str | None) -> None:
    """Resolve call and base-class references to symbols; precise strategies first.

    precise (0.9-0.95): `self.f()` inside a class -> that class's method (also a bare `f()`
      where the language lets methods call siblings without `this`); a definition in the same
      file; an imported name; a name reached through an imported module (`mod.f()`).
    by name, only where nothing precise matched: the name is defined elsewhere in the
      workspace: unique 0.5, up to 3 candidates 0.5/n each; more, or a receiver bound to an
      external import (`os.path.join`): unresolved, counted, never guessed.
    `scope` limits the work to some references (a SQL predicate over `{path}` and `name`).
    """
    where = ""
    if scope:  # a predicate over {path} and name: only these references are resolved again
        where = "WHERE " + scope.format(path="path")
        cur.execute(f"DELETE FROM edges WHERE kind IN ('CALLS', 'INHERITS') AND ({scope.format(path='src_path')})")
    selfs = ", ".join("'" + s.replace("'", "") + "'" for s in self_names) or "''"
    implicit = ", ".join("'" + lang + "'" for lang in implicit_self_langs) or "''"
    columns = "src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support"
    kind = "CASE WHEN r.kind = 'call' THEN 'CALLS' ELSE 'INHERITS' END"
    cur.execute(f"CREATE OR REPLACE TEMP TABLE _refs AS SELECT * FROM refs {where}")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _precise AS
        SELECT DISTINCT r.src, s.id AS dst, {kind} AS kind, r.path, s.path AS dst_path, r.line,
               0.95 AS confidence, 'self' AS strategy, r.name
        FROM _refs r JOIN symbols s ON s.path = r.path AND s.parent = r.src_class AND s.name = r.name
        WHERE r.receiver IN ({selfs})
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, 0.9, 'self', r.name
        FROM _refs r JOIN files f ON f.path = r.path AND f.lang IN ({implicit})
               JOIN symbols s ON s.path = r.path AND s.parent = r.src_class AND s.name = r.name
        WHERE r.receiver IS NULL
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, 0.9, 'same_file', r.name
        FROM _refs r JOIN symbols s ON s.path = r.path AND s.name = r.name AND s.parent IS NULL
        WHERE r.receiver IS NULL
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, 0.9, 'import', r.name
        FROM _refs r JOIN imports i ON i.path = r.path AND NOT i.is_module AND i.binding = r.name
               JOIN symbols s ON s.path = i.target AND s.name = i.name AND s.parent IS NULL
        WHERE r.receiver IS NULL
        UNION ALL
        SELECT r.src, s.id, {kind}, r.path, s.path, r.line, 0.9, 'module_attr', r.name
        FROM _refs r JOIN imports i ON i.path = r.path AND i.is_module AND i.binding = r.receiver
               JOIN symbols s ON s.path = i.target AND s.name = r.name AND s.parent IS NULL""")
    cur.execute(f"""
        INSERT INTO edges ({columns})
        SELECT src, dst, kind, path, dst_path, line, max(confidence), min(strategy), name, 1
        FROM _precise GROUP BY src, dst, kind, path, dst_path, line, name""")
    cur.execute(f"""
        INSERT INTO edges ({columns})
        WITH counts AS (
            SELECT name, count(*) AS n_any, count(*) FILTER (WHERE kind <> 'method') AS n_plain
            FROM symbols WHERE name IN (SELECT name FROM _refs)
            GROUP BY name HAVING count(*) <= {MAX_NAME_CANDIDATES * 4}),
        external AS (SELECT DISTINCT path, binding FROM imports
                     WHERE target IS NULL AND path IN (SELECT path FROM _refs)),
        open_refs AS (
            SELECT r.* FROM _refs r
            ANTI JOIN (SELECT DISTINCT path, line, name, src FROM _precise) p
                 ON p.path = r.path AND p.line = r.line AND p.name = r.name AND p.src = r.src
            ANTI JOIN external x ON x.path = r.path AND x.binding = split_part(r.receiver, '.', 1))
        SELECT DISTINCT r.src, s.id, {kind}, r.path, s.path, r.line,
               0.5 / CASE WHEN r.receiver IS NULL THEN c.n_plain ELSE c.n_any END,
               CASE WHEN (CASE WHEN r.receiver IS NULL THEN c.n_plain ELSE c.n_any END) = 1
                    THEN 'name_unique' ELSE 'name_ambiguous' END, r.name, 1
        FROM open_refs r JOIN counts c ON c.name = r.name
             JOIN symbols s ON s.name = r.name AND (r.receiver IS NOT NULL OR s.kind <> 'method')
        WHERE (CASE WHEN r.receiver IS NULL THEN c.n_plain ELSE c.n_any END) <= {MAX_NAME_CANDIDATES}
          AND NOT (r.kind = 'inherit' AND r.src = s.id)""")
    cur.execute("DROP TABLE _refs")
    cur.execute("DROP TABLE _precise")


def _touching(temp: str | None) -> str:
    return f"(src_path IN (SELECT v FROM {temp}) OR dst_path IN (SELECT v FROM {temp}))" if temp else "TRUE"


def rebuild_documents(cur, touched: str | None = None) -> None:
    """Documentation that names a workspace file (path or unique path suffix) or symbol.

    `touched` (a temp table of paths) limits the rebuild to edges from or into those files."""
    cur.execute(f"DELETE FROM edges WHERE kind = 'DOCUMENTS' AND {_touching(touched)}")
    source_filter = _touching(touched).replace("src_path", "path")
    cur.execute(f"""
        INSERT INTO edges (src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support)
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


def rebuild_promotions(cur, same_dir_langs: list[str], touched: str | None = None) -> None:
    """Seed 000's three promotions, recomputed from the IMPORTS edges after every run.

    `touched` limits the rebuild to edges from or into those files (valid when no file's
    imports, test status or mutation flag changed, so fan-in counts are what they were)."""
    cur.execute(f"DELETE FROM edges WHERE kind IN ('ASSERTS_ON', 'DRIVES') AND {_touching(touched)}")
    cur.execute("CREATE OR REPLACE TEMP TABLE _promoted AS SELECT * FROM edges LIMIT 0")
    langs = ", ".join("'" + lang + "'" for lang in same_dir_langs) or "''"
    cur.execute(f"""
        INSERT INTO _promoted (src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support)
        SELECT e.src_path, e.dst_path, 'ASSERTS_ON', e.src_path, e.dst_path, min(e.line), 1.0,
               'test_import', NULL, 1
        FROM edges e JOIN files t ON t.path = e.src_path AND t.is_test
                     JOIN files c ON c.path = e.dst_path AND NOT c.is_test
        WHERE e.kind = 'IMPORTS' GROUP BY e.src_path, e.dst_path
        UNION ALL
        SELECT t.path, c.path, 'ASSERTS_ON', t.path, c.path, NULL, 0.9, 'same_package', NULL, 1
        FROM files t JOIN files c ON t.lang = c.lang AND t.path <> c.path AND NOT c.is_test
             AND regexp_replace(t.path, '[^/]*$', '') = regexp_replace(c.path, '[^/]*$', '')
        WHERE t.is_test AND t.lang IN ({langs})""")
    cur.execute("""
        INSERT INTO _promoted (src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support)
        WITH imp AS (SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = 'IMPORTS'),
        fan AS (SELECT dst_path FROM imp GROUP BY dst_path HAVING count(*) >= 3),
        mut AS (SELECT path FROM files WHERE mutations > 0)
        SELECT imp.dst_path, imp.src_path, 'DRIVES', imp.dst_path, imp.src_path, NULL, 1.0,
               CASE WHEN fan.dst_path IS NOT NULL AND mut.path IS NOT NULL THEN 'fan_in+mutation'
                    WHEN fan.dst_path IS NOT NULL THEN 'fan_in' ELSE 'mutation' END, NULL, 1
        FROM imp LEFT JOIN fan ON fan.dst_path = imp.dst_path LEFT JOIN mut ON mut.path = imp.dst_path
        WHERE fan.dst_path IS NOT NULL OR mut.path IS NOT NULL""")
    cur.execute(f"INSERT INTO edges SELECT * FROM _promoted WHERE {_touching(touched)}")
    cur.execute("DROP TABLE _promoted")


def file_shapes(cur, temp: str) -> dict[str, tuple]:
    """What other files' edges depend on: imports, test status, mutation flag, symbol names."""
    shapes = {}
    for path, is_test, mutates in cur.execute(
            f"SELECT path, is_test, mutations > 0 FROM files WHERE path IN (SELECT v FROM {temp})").fetchall():
        shapes[path] = [set(), is_test, mutates, set()]
    for path, line, module, name, alias in cur.execute(
            f"SELECT DISTINCT path, line, module, name, alias FROM imports WHERE path IN (SELECT v FROM {temp})").fetchall():
        shapes[path][0].add((module, name, alias))
    for path, qualname in cur.execute(
            f"SELECT path, qualname FROM symbols WHERE path IN (SELECT v FROM {temp})").fetchall():
        shapes[path][3].add(qualname)
    return {p: (frozenset(v[0]), v[1], v[2], frozenset(v[3])) for p, v in shapes.items()}


def importers_of(cur, temp: str) -> set[str]:
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT path FROM imports WHERE target IN (SELECT v FROM {temp})").fetchall()}


def rare_names(cur, temp: str, limit: int) -> set[str]:
    """Names of `temp` defined at most `limit` times: only these can resolve by name alone."""
    return {r[0] for r in cur.execute(
        f"SELECT name FROM symbols WHERE name IN (SELECT v FROM {temp}) GROUP BY name HAVING count(*) <= {limit}").fetchall()}


def file_history(cur, temp: str) -> list[tuple]:
    return cur.execute(f"SELECT path, churn, last_change FROM files WHERE path IN (SELECT v FROM {temp})").fetchall()


def restore_file_history(store: Store, cur, rows: list[tuple]) -> None:
    """Give re-parsed files back the git figures mined for them (history runs per HEAD only)."""
    if not rows:
        return
    cur.execute("CREATE OR REPLACE TEMP TABLE _hist (path VARCHAR, churn INTEGER, last_change DOUBLE)")
    store.bulk_insert("_hist", ["path", "churn", "last_change"], ["VARCHAR", "INTEGER", "DOUBLE"], rows, cur=cur)
    cur.execute("UPDATE files SET churn = h.churn, last_change = h.last_change FROM _hist h WHERE files.path = h.path")


def delete_co_changes(cur, temp: str) -> None:
    cur.execute(f"DELETE FROM edges WHERE kind = 'CO_CHANGES' AND (src_path IN (SELECT v FROM {temp}) "
                f"OR dst_path IN (SELECT v FROM {temp}))")


def replace_history(store: Store, cur, co_change_rows: list[tuple], churn: dict, last_change: dict) -> None:
    cur.execute("DELETE FROM edges WHERE kind = 'CO_CHANGES'")
    insert(store, cur, EDGE_COLUMNS, "edges", co_change_rows)
    cur.execute("UPDATE files SET churn = 0, last_change = NULL")
    restore_file_history(store, cur, [(p, churn.get(p, 0), last_change.get(p))
                                      for p in set(churn) | set(last_change)])


def dependency_pairs(cur) -> list[tuple[str, str]]:
    """(dependent file, file it depends on) for every causal edge between two files."""
    return cur.execute("""
        SELECT DISTINCT src_path, dst_path FROM edges
        WHERE kind IN ('IMPORTS', 'CALLS', 'INHERITS') AND src_path <> dst_path""").fetchall()


def write_scores(store: Store, cur, rows: list[tuple]) -> None:
    """rows: (path, reach, score). Edge score = seed 000's formula over its two files' scores."""
    cur.execute("CREATE OR REPLACE TEMP TABLE _scores (path VARCHAR, reach INTEGER, score DOUBLE)")
    store.bulk_insert("_scores", ["path", "reach", "score"], ["VARCHAR", "INTEGER", "DOUBLE"], rows, cur=cur)
    cur.execute("UPDATE files SET reach = s.reach, score = s.score FROM _scores s WHERE files.path = s.path")
    cur.execute("""
        UPDATE edges SET score = round(coalesce(a.score, 0) + coalesce(b.score, 0)
            + CASE WHEN edges.kind IN ('IMPORTS', 'CALLS', 'INHERITS', 'DRIVES', 'ASSERTS_ON') THEN 1.0 ELSE 0 END
            + CASE WHEN edges.kind = 'ASSERTS_ON' OR coalesce(a.side_effects, '') <> '' THEN 0.5 ELSE 0 END
            + ln(1 + coalesce(edges.support, 1)) * 0.3, 4)
        FROM files a, files b WHERE a.path = edges.src_path AND b.path = edges.dst_path""")


def all_edges(cur) -> list[tuple]:
    return cur.execute("""SELECT src, dst, kind, src_path, dst_path, line, confidence, strategy, score
                          FROM edges""").fetchall()


def symbol_by_id(cur, symbol_id: str):
    return cur.execute("SELECT id, path, name, qualname, kind, start_line, end_line FROM symbols WHERE id = ?",
                       [symbol_id]).fetchone()


def symbols_of(cur, path: str) -> list[tuple]:
    return cur.execute("SELECT id, name, qualname, kind, start_line, end_line FROM symbols WHERE path = ? "
                       "ORDER BY start_line", [path]).fetchall()


def file_row(cur, path: str):
    return cur.execute("SELECT path, lang, is_test, score FROM files WHERE path = ?", [path]).fetchone()


def test_paths(cur) -> set[str]:
    return {r[0] for r in cur.execute("SELECT path FROM files WHERE is_test").fetchall()}


def call_sites_named(cur, names: list[str]) -> int:
    """How many call sites in the workspace call one of `names` (resolved or not)."""
    if not names:
        return 0
    return cur.execute("SELECT count(*) FROM refs WHERE kind = 'call' AND name IN (SELECT unnest(?::VARCHAR[]))",
                       [names]).fetchone()[0]


def unresolved_imports(cur) -> int:
    return cur.execute("SELECT count(*) FROM imports WHERE strategy = 'unresolved'").fetchone()[0]


def has_files(cur) -> bool:
    return cur.execute("SELECT count(*) FROM files").fetchone()[0] > 0
