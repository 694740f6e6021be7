"""A module's `__getattr__` (PEP 562) runs when code reads a name the module does not define:
`marshmallow.__version__` in a test runs marshmallow/__init__.py's `__getattr__`, which serves its
deprecated `__version__` (as attrs', structlog's, flask's and werkzeug's do). Without an edge the
file's one symbol was reached by no test, and test selection listed every test asserting on the
package for it (graph/tests_reach.py's file-level rule).

The reads are `read` rows of refs: a dunder attribute of a name other than self or cls
(grammars/python/tags.scm; index/extract.py). One CALLS edge (strategy module_attr) from the reading
symbol to the module's `__getattr__` per read of a module bound whole whose file defines no symbol,
binds no import and has no typed variable of that name (a variable the file does not type, `__version__ =
_read_version()`, is not seen: the edge is made all the same). No other pass reads these rows (store/calls.py
keeps them out of `_refs`).
"""

from __future__ import annotations

from memory_lsp.store.edges import _COLUMNS, _lit
from memory_lsp.store.receiver_classes import IN_SCOPE
from memory_lsp.store.var_calls import requeue


def split(cur, scoped: bool) -> None:
    """`_reads`: the `read` rows of this run (of `_refs` in an editor's run, else of refs)."""
    cur.execute("CREATE OR REPLACE TEMP TABLE _reads AS SELECT * FROM _refs WHERE kind = 'read'" if scoped else
                "CREATE OR REPLACE TEMP VIEW _reads AS SELECT * FROM refs WHERE kind = 'read'")


def resolve(cur, confidence: float, scoped: bool) -> None:
    """The edges of `_reads` (`_imports`: how each file binds its imports, store/calls.py). The reads of a module
    bound whole first, from the run's own tables: most runs of an edit have none, and read no symbol."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _whole AS
        SELECT DISTINCT r.src, r.path, r.line, r.name, i.target FROM _reads r
               JOIN _imports i ON i.path = r.path AND i.is_module AND i.binding = r.receiver AND {IN_SCOPE.format(src="r.src")}
        WHERE r.src IS NOT NULL""")
    if cur.execute("SELECT count(*) FROM _whole").fetchone()[0]:
        cur.execute(f"""
            INSERT INTO edges ({_COLUMNS})
            SELECT DISTINCT r.src, g.id, 'CALLS', r.path, g.path, r.line, {_lit(confidence)}, 'module_attr', r.name, 1
            FROM _whole r JOIN symbols g ON g.path = r.target AND g.name = '__getattr__' AND g.parent IS NULL
            WHERE NOT EXISTS (SELECT 1 FROM symbols d WHERE d.path = r.target AND d.name = r.name AND d.parent IS NULL)
              AND NOT EXISTS (SELECT 1 FROM imports b WHERE b.path = r.target AND b.binding = r.name)
              AND NOT EXISTS (SELECT 1 FROM refs v WHERE v.kind = 'vartype' AND v.path = r.target AND v.name = r.name)""")
    cur.execute("DROP TABLE _whole")
    cur.execute("DROP TABLE _reads" if scoped else "DROP VIEW _reads")


def bring_dependents(cur, names: set[str]) -> None:
    """An editor's run that adds or removes a module's `__getattr__` (among the changed `names`) resolves again
    the reads through the files of `_refs` in the files importing them as modules (store/var_calls.py `requeue`)."""
    if "__getattr__" not in names:
        return
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _dep AS  -- and a call at the same site (`mod.__getattr__(...)`): its edge goes too
        WITH reads AS (SELECT DISTINCT r.path, r.line, r.name FROM refs r JOIN imports i ON i.path = r.path
                       AND i.is_module AND i.binding = r.receiver
                       WHERE r.kind = 'read' AND i.target IN (SELECT DISTINCT path FROM _refs))
        SELECT DISTINCT r.* FROM refs r SEMI JOIN reads d ON d.path = r.path AND d.line = r.line AND d.name = r.name
        WHERE r.kind IN ('read', 'call')""")
    requeue(cur)
