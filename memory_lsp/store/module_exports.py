"""What a module offers to the files importing it, for call resolution (store/calls.py): `_star`
and `_exports`, temp tables of the transaction's cursor, from `_imports` (the importing files'
rows, as Python binds them).

A module offers its top-level definitions and the names it imports (`from .api import get` in a
package's __init__; `attrs` re-exports attr's), followed through the modules importing them in
turn up to REEXPORT_HOPS; one re-exporting others whole (`export * from`: `_star`, at their depth)
offers theirs. The modules reached and the chains of names are worked out first, then the
symbols of just those modules read in one scan: as one statement, the three joins each scanned
every symbol (~80 ms an edit at 10,740 files, ~35 ms this way; bench/BENCHMARKS.md bp).
"""

from __future__ import annotations

from memory_lsp.store.edges import STAR_EXPORT

REEXPORT_HOPS = 4  # how many modules deep a re-exported name is followed (`attrs.frozen`: attrs -> attr -> attr._next_gen)


def make(cur) -> None:
    """`_star` (path, via, d): the modules `path` re-exports whole, at depth d; `_exports` (path,
    name, id, kind, dst_path): what each module `_imports` lands in offers under `name`, the
    nearest definition when several."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _star AS
        WITH RECURSIVE s(path, via, d) AS (
            SELECT path, target, 1 FROM imports WHERE {STAR_EXPORT}
            UNION ALL
            SELECT s.path, j.target, s.d + 1 FROM s JOIN (SELECT * FROM imports WHERE {STAR_EXPORT}) j ON j.path = s.via
            WHERE s.d < {REEXPORT_HOPS})
        SELECT path, via, min(d) AS d FROM s GROUP BY ALL""")
    # the modules imported, and those they re-export whole
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _reach AS
        WITH wanted AS (SELECT DISTINCT target AS path FROM _imports WHERE target IS NOT NULL)
        SELECT path, path AS via, 0 AS d FROM wanted
        UNION ALL SELECT * FROM _star WHERE path IN (SELECT path FROM wanted)""")
    # the names they import, followed to where each is defined
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _chain AS
        WITH RECURSIVE chain(path, binding, target, name, d) AS (
            SELECT r.path, i.binding, i.target, i.name, r.d + 1 FROM _reach r JOIN imports i ON i.path = r.via
            WHERE NOT i.is_module AND i.binding IS NOT NULL AND i.target IS NOT NULL
            UNION ALL
            (SELECT c.path, c.binding, j.target, j.name, c.d + 1
             FROM chain c JOIN imports j ON j.path = c.target AND j.binding = c.name AND NOT j.is_module
                  AND j.target IS NOT NULL
             WHERE c.d < {REEXPORT_HOPS}
             UNION ALL
             SELECT c.path, c.binding, j.target, j.name, c.d + t.d + 1
             FROM chain c JOIN _star t ON t.path = c.target JOIN imports j ON j.path = t.via AND j.binding = c.name
                  AND NOT j.is_module AND j.target IS NOT NULL
             WHERE c.d < {REEXPORT_HOPS}))
        SELECT * FROM chain""")
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _tops AS
        SELECT id, name, kind, path FROM symbols WHERE parent IS NULL AND path IN (
            SELECT via FROM _reach UNION SELECT target FROM _chain
            UNION SELECT t.via FROM _chain c JOIN _star t ON t.path = c.target)""")
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _exports AS
        SELECT path, name, id, kind, dst_path FROM (
            SELECT r.path, y.name, y.id, y.kind, y.path AS dst_path, r.d FROM _reach r
            JOIN _tops y ON y.path = r.via
            UNION ALL
            SELECT c.path, c.binding, y.id, y.kind, y.path, c.d FROM _chain c
            JOIN _tops y ON y.path = c.target AND y.name = c.name
            UNION ALL
            SELECT c.path, c.binding, y.id, y.kind, y.path, c.d + t.d FROM _chain c JOIN _star t ON t.path = c.target
            JOIN _tops y ON y.path = t.via AND y.name = c.name)
        QUALIFY d = min(d) OVER (PARTITION BY path, name)""")
    for temp in ("_reach", "_chain", "_tops"):
        cur.execute(f"DROP TABLE {temp}")


def reexported_names(cur, paths: set[str]) -> set[str]:
    """The top-level names of the modules `paths` and of those they re-export whole, as `_star` follows them:
    what an `import *` of them offers (store/code.py `names_rebound`)."""
    return {r[0] for r in cur.execute(f"""
        WITH RECURSIVE s(path, d) AS (
            SELECT unnest(?::VARCHAR[]), 0
            UNION ALL
            SELECT j.target, s.d + 1 FROM s JOIN (SELECT * FROM imports WHERE {STAR_EXPORT}) j ON j.path = s.path
            WHERE s.d < {REEXPORT_HOPS})
        SELECT DISTINCT name FROM symbols WHERE parent IS NULL AND path IN (SELECT path FROM s)""",
        [sorted(paths)]).fetchall()} if paths else set()
