"""Calls on a pytest fixture's value: jinja2's `def test_x(env): env.from_string(...)` where
conftest.py says `def env(): return Environment()` (a `fixturetype` row of refs: index/extract.py).

`fixture_types` makes `_ft` (src, recv, cid): for each test function of `_refs`' files, a
parameter that names a fixture (its USES_FIXTURE edge) whose function gives a class; cid = that
class (defined in the fixture's file, imported there, through a package `__init__`, or as
`module.Class`). store/calls.py `_resolve_typed` resolves those calls in that class like a typed
receiver (strategy `fixture_var`).

`bring_dependents`: a scoped run that re-reads a fixture's file, or re-resolves a test's fixture
reference (its fixture was added, removed or renamed), also re-resolves that test's calls on the
fixture (what it gives may differ), so that an incremental run ends where a full one does.
"""

from __future__ import annotations

from memory_lsp.store.return_calls import MARK, class_named
from memory_lsp.store.var_calls import class_like, requeue


_TEST_FILES = "SELECT count(*) FROM files WHERE is_test AND path IN (SELECT DISTINCT path FROM _refs)"


def fixture_types(cur) -> None:
    if not cur.execute(_TEST_FILES).fetchone()[0]:  # an edit of code, not of tests: one small scan
        cur.execute("CREATE OR REPLACE TEMP TABLE _ft (src VARCHAR, recv VARCHAR, cid VARCHAR)")
        return
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _fv AS
        WITH uses AS (SELECT src, name AS recv, dst, dst_path FROM edges
                      WHERE kind = 'USES_FIXTURE' AND src_path IN (SELECT DISTINCT path FROM _refs))
        SELECT u.src, u.recv, u.dst_path AS path, t.rtype FROM uses u
        JOIN refs t ON t.kind = 'fixturetype' AND t.path = u.dst_path AND u.dst = t.path || '::' || t.name
        WHERE t.path IN (SELECT DISTINCT dst_path FROM uses)""")
    cur.execute("CREATE OR REPLACE TEMP TABLE _ft AS " + class_named("_fv", "v.src, v.recv"))
    cur.execute("DROP TABLE _fv")


def bring_dependents(cur, files: set[str], names: set[str]) -> None:
    """Add to `_refs` (deleting their CALLS edges) the calls on a fixture parameter, outside
    `files` (re-read whole), whose fixture may give another class now: its fixture reference is
    in `_refs` (a fixture added, removed or renamed is a name the scoped run re-resolves
    everywhere: graph/resolution.py), or its USES_FIXTURE edge points into a test file of `files`
    (a fixture whose body changed keeps its name and its edges), or its fixture gives a class named
    one of `names` (renamed, removed or added elsewhere)."""
    cur.execute("CREATE OR REPLACE TEMP TABLE _uses AS SELECT DISTINCT path, src, name FROM _refs WHERE kind = 'fixture'")
    tests = [r[0] for r in cur.execute("SELECT path FROM files WHERE is_test AND path = ANY(?::VARCHAR[])",
                                       [sorted(files)]).fetchall()] if files else []
    if tests:
        cur.execute("INSERT INTO _uses SELECT DISTINCT src_path, src, name FROM edges "
                    "WHERE kind = 'USES_FIXTURE' AND dst_path = ANY(?::VARCHAR[])", [tests])
    if class_like(names):
        cur.execute("""
            INSERT INTO _uses SELECT DISTINCT e.src_path, e.src, e.name FROM edges e
            JOIN refs t ON t.kind = 'fixturetype' AND e.dst = t.path || '::' || t.name
            WHERE e.kind = 'USES_FIXTURE' AND split_part(t.rtype, '.', -1) = ANY(?::VARCHAR[])""", [sorted(class_like(names))])
    if files:
        cur.execute("DELETE FROM _uses WHERE path = ANY(?::VARCHAR[])", [sorted(files)])
    if cur.execute("SELECT count(*) FROM _uses").fetchone()[0]:
        cur.execute(f"""
            CREATE OR REPLACE TEMP TABLE _dep AS
            SELECT DISTINCT r.* FROM refs r JOIN (SELECT DISTINCT * FROM _uses) u
                 ON u.path = r.path AND u.src = r.src
                 AND (r.rtype IS NULL AND u.name = r.receiver OR starts_with(r.rtype, '{MARK}' || u.name || '.'))
            WHERE r.kind = 'call' AND r.path IN (SELECT DISTINCT path FROM _uses)""")
        requeue(cur)
    cur.execute("DROP TABLE _uses")
