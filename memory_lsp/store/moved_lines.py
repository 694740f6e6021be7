"""A re-parsed file whose edit only moved lines (a comment or blank line typed, a docstring or a
string edited, code reformatted): its references, definitions and imports are what they were,
each perhaps at another line. The edges from it are then what they were with their lines moved,
taken back instead of resolved again (issue 13 item 2: an editor's run skips the ~30 statements
of call resolution, ~300 ms on the stdlib).

An editor's run calls `keep` before it replaces a file's rows, `lines_moved` after the new rows
are written (which of the files only moved lines: every reference the same but for its line, in
order, each old line going to one new line; the imports the same, each in the same function),
then `restore` for those: their CALLS, INHERITS and USES_FIXTURE edges back, at the new lines.
Imports that only moved (`import_lines_moved`: the same rows, each at another line, their order
kept): the file's IMPORTS and ASSERTS_ON edges, whose line is the least of their rows' lines, get
their lines moved in place (`move_file_links`) instead of being made again with the promotions
(~18 ms of SQL of a comment typed above the imports on the stdlib). Everything else a run does
(documentation, scores) is done as for any edit.
"""

from __future__ import annotations

from collections import Counter

# the edges from a file whose line is one of its references' lines (store/calls.py); deleted with its rows
EDGE_KINDS = ("CALLS", "INHERITS", "USES_FIXTURE")
_KINDS = ", ".join(f"'{k}'" for k in EDGE_KINDS)
_FIELDS = ("kind", "src", "src_class", "name", "receiver", "rtype")
_READS = "SELECT path, src, name, receiver FROM {t} WHERE kind = 'attr' AND path = ANY($paths::VARCHAR[])"
_TEMPS = ("_old_refs", "_old_imports", "_old_defs", "_old_edges", "_line_map")


def keep(cur, paths_sql: str) -> None:
    """Copy what `lines_moved` and `restore` compare and take back, for the files `paths_sql`
    (SQL after IN), before their rows are deleted; added to what earlier calls kept."""
    copies = {"_old_refs": "SELECT * FROM refs WHERE path IN {p}",
              "_old_imports": "SELECT path, line, module, name, alias FROM imports WHERE path IN {p}",
              "_old_defs": "SELECT path, id, start_line, end_line FROM symbols "
                           "WHERE kind IN ('function', 'method') AND path IN {p}",
              # not an autouse fixture's: at a test's first line, no reference's (store/autouse.py makes them again)
              "_old_edges": f"SELECT * FROM edges WHERE kind IN ({_KINDS}) AND src_path IN {{p}} "
                            "AND strategy IS DISTINCT FROM 'autouse'"}
    have = {r[0] for r in cur.execute("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()}
    for table, select in copies.items():
        select = select.format(p=paths_sql)
        cur.execute(f"INSERT INTO {table} {select}" if table in have else f"CREATE TEMP TABLE {table} AS {select}")


def lines_moved(cur, paths: list[str]) -> tuple[set[str], bool]:
    """Those of `paths` (kept, then written again) whose references and imports only moved;
    their line map (old line -> new line of each reference) is left in `_line_map`. And whether
    the reads of attributes of those differ but for their lines (index/reads.py: `attr` rows, which
    no edge comes from and no line map needs; test selection reads them: the graph reads its rows
    of those files again)."""
    if not paths:
        return set(), False
    order = ", ".join(("line",) + _FIELDS)
    same = " AND ".join(f"o.{f} IS NOT DISTINCT FROM n.{f}" for f in _FIELDS)
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _line_map AS
        WITH o AS (SELECT *, row_number() OVER (PARTITION BY path ORDER BY {order}) AS rn
                   FROM _old_refs WHERE path = ANY($paths::VARCHAR[]) AND kind <> 'attr'),
        n AS (SELECT *, row_number() OVER (PARTITION BY path ORDER BY {order}) AS rn
              FROM refs WHERE path = ANY($paths::VARCHAR[]) AND kind <> 'attr')
        SELECT coalesce(o.path, n.path) AS path, o.line AS old, n.line AS new, o.rn IS NOT NULL AND n.rn IS NOT NULL AND {same} AS same
        FROM o FULL JOIN n ON o.path = n.path AND o.rn = n.rn""", {"paths": paths})
    differ = {r[0] for r in cur.execute("""
        SELECT path FROM _line_map GROUP BY path
        HAVING NOT bool_and(same) OR count(DISTINCT old || ':' || new) <> count(DISTINCT old)
        UNION SELECT e.src_path FROM _old_edges e  -- an edge at a line no reference had: made again
              ANTI JOIN _line_map m ON m.path = e.src_path AND m.old = e.line
              WHERE e.src_path = ANY(?::VARCHAR[])""", [paths]).fetchall()}
    # each import with the function it sits in (an import binds there only): the same, in both
    old = _scoped_imports(cur, "_old_imports", "_old_defs", paths)
    new = _scoped_imports(cur, "imports", "symbols", paths, " AND kind IN ('function', 'method')")
    differ |= {p for p in paths if old.get(p) != new.get(p)}
    moved = sorted(set(paths) - differ)
    return set(moved), bool(moved) and cur.execute(f"""
        SELECT count(*) FROM (({_READS.format(t="_old_refs")} EXCEPT ALL {_READS.format(t="refs")})
                              UNION ALL ({_READS.format(t="refs")} EXCEPT ALL {_READS.format(t="_old_refs")}))""",
        {"paths": moved}).fetchone()[0] > 0


def _scoped_imports(cur, imports: str, defs: str, paths: list[str], functions: str = "") -> dict[str, Counter]:
    """path -> a multiset of its imports as (module, name, alias, the innermost function around)."""
    spans: dict[str, list] = {}
    for path, fid, start, end in cur.execute(
            f"SELECT path, id, start_line, end_line FROM {defs} WHERE path = ANY(?::VARCHAR[]){functions}",
            [paths]).fetchall():
        spans.setdefault(path, []).append((start, end, fid))
    out: dict[str, Counter] = {}
    for path, line, module, name, alias in cur.execute(
            f"SELECT path, line, module, name, alias FROM {imports} WHERE path = ANY(?::VARCHAR[])", [paths]).fetchall():
        around = [s for s in spans.get(path, ()) if s[0] <= line <= s[1]]
        out.setdefault(path, Counter())[(module, name, alias, max(around)[2] if around else None)] += 1
    return out


def restore(cur, paths: set[str]) -> None:
    """The kept edges from `paths` (which only moved lines) back, each at its reference's new line."""
    if paths:
        cur.execute("""
            INSERT INTO edges SELECT e.* REPLACE (m.new AS line, NULL AS fingerprint)
            FROM _old_edges e JOIN (SELECT DISTINCT path, old, new FROM _line_map) m
                 ON m.path = e.src_path AND m.old = e.line
            WHERE e.src_path = ANY(?::VARCHAR[])""", [sorted(paths)])


def import_lines_moved(old: frozenset | None, new: frozenset | None) -> dict[int, int] | None:
    """old line -> new line when the import rows `new` (line, module, name, alias) are `old` with
    their lines moved in order (each old line to one new line, no two to the same, so the least
    line of any group of rows moves to the least of the group); else None."""
    key = lambda row: (row[0], *("" if x is None else str(x) for x in row[1:]))  # noqa: E731
    old, new = sorted(old or (), key=key), sorted(new or (), key=key)
    if len(old) != len(new) or any(a[1:] != b[1:] for a, b in zip(old, new)):
        return None
    lines = {}
    for a, b in zip(old, new):
        if lines.setdefault(a[0], b[0]) != b[0]:
            return None
    return lines if len(set(lines.values())) == len(lines) else None


def move_file_links(cur, lines: dict[str, dict[int, int]]) -> None:
    """The IMPORTS and ASSERTS_ON edges from each file of `lines` moved to their new lines
    (DRIVES and same-directory ASSERTS_ON edges have none)."""
    rows = [(path, old, new) for path, moves in sorted(lines.items()) for old, new in moves.items() if old != new]
    if rows:
        cur.execute("CREATE OR REPLACE TEMP TABLE _import_lines (path VARCHAR, old INTEGER, new INTEGER)")
        cur.executemany("INSERT INTO _import_lines VALUES (?, ?, ?)", rows)
        cur.execute("""
            UPDATE edges SET line = m.new, fingerprint = NULL FROM _import_lines m
            WHERE edges.kind IN ('IMPORTS', 'ASSERTS_ON') AND edges.src_path = m.path AND edges.line = m.old""")
        cur.execute("DROP TABLE _import_lines")


def drop(cur) -> None:
    for table in _TEMPS:
        cur.execute(f"DROP TABLE IF EXISTS {table}")
