"""Which class a call's receiver is (store/calls.py's typed pass): the enclosing class for
`self`, else the class its type names as the calling file sees it: defined in the calling
function or the file, imported (`from m import Foo`, Java's `import a.b.Foo`), `module.Class`, a
class of the calling file's package (Java: no import needed, the class named as its file) or of a
package it imports whole (`import a.b.*`), or the
class of a module variable (store/var_calls.py) or of a pytest fixture (store/fixture_calls.py)."""

from __future__ import annotations

# Java's `import a.b.Foo` has no name: the class is its binding
JAVA_CLASS = "CASE WHEN ends_with(i.path, '.java') THEN i.binding END"
IN_SCOPE = "(i.scope IS NULL OR {src} = i.scope OR starts_with({src}, i.scope || '.'))"  # an import in a function binds there


def ancestors(source: str) -> str:
    """A recursive CTE `anc(cid, base, d)`: each class `cid` of the table `source` and its bases
    up to 8 levels (`_inh`, the INHERITS edges store/calls.py reads once), `d` levels up; for a
    query starting `WITH RECURSIVE`."""
    return f"""anc(cid, base, d) AS (
            SELECT DISTINCT cid, cid, 0 FROM {source}
            UNION ALL
            SELECT a.cid, e.dst, a.d + 1 FROM anc a JOIN _inh e ON e.src = a.base WHERE a.d < 8)"""


def _imported(source: str, in_scope: str) -> str:
    """The rows of `source` whose `tname` an import of a class by name binds where `in_scope` holds."""
    return f"""SELECT rc.*, e.id FROM {source} rc JOIN _imports i ON i.path = rc.path AND NOT i.is_module AND {in_scope}
                   AND i.binding = rc.tname JOIN _exports e ON e.path = i.target AND e.name = coalesce(i.name, {JAVA_CLASS})
                   AND (e.kind = 'class' OR e.kind = 'interface' AND rc.how = 'typed')"""


def classes(cur, source: str, target: str, syms: str) -> None:
    """`target`: the rows of `source` (references with `tname` and `how`) with `cid`, the class
    their receiver is: the enclosing one (`self`), or the one `tname` names (module docstring),
    or a module variable's (store/var_calls.py) or a fixture's
    (store/fixture_calls.py) class."""
    in_scope = IN_SCOPE.format(src="rc.src")
    # a class defined in the calling function (or one around it) shadows the module's and the imports' (click's
    # tests: `class CustomGroup(click.Group)` inside a test, `CustomGroup().command()`). One statement per way: as
    # one query, every join's hash table was held at once (call resolution's peak at 25,000 files: 1.9 GB)
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _nested_cls AS
            SELECT rc.*, s.id AS cid FROM {source} rc
                   JOIN {syms} s ON s.path = rc.path AND s.name = rc.tname AND s.parent IS NOT NULL AND s.kind = 'class'
                   JOIN {syms} p ON p.id = s.path || '::' || s.parent AND p.kind IN ('function', 'method')
            WHERE rc.src = p.id OR starts_with(rc.src, p.id || '.')""")
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE {target} AS SELECT rc.*, rc.path || '::' || rc.src_class AS cid
                    FROM {source} rc WHERE rc.tname IS NULL AND rc.src_class IS NOT NULL""")
    cur.execute(f"INSERT INTO {target} SELECT * FROM _nested_cls")
    ways = f"""
            SELECT rc.*, s.id FROM {source} rc  -- Java names a nested class of its file by its own name too
                   JOIN {syms} s ON s.path = rc.path AND s.name = rc.tname AND (s.parent IS NULL OR ends_with(rc.path, '.java'))
                   AND (s.kind = 'class' OR s.kind = 'interface' AND rc.how = 'typed')
            UNION ALL
            {_imported(source, in_scope)}
            UNION ALL
            SELECT rc.*, e.id FROM {source} rc JOIN _imports i ON i.path = rc.path AND i.is_module AND {in_scope}
                   AND starts_with(rc.tname, i.binding || '.')
                   JOIN _exports e ON e.path = i.target AND rc.tname = i.binding || '.' || e.name AND (e.kind = 'class' OR e.kind = 'interface' AND rc.how = 'typed')
            UNION ALL  -- `requests.cookies.RequestsCookieJar()`: a class of a submodule of an imported package
            SELECT rc.* EXCLUDE (sub, cls), s.id FROM (SELECT *, split_part(tname, '.', -2) AS sub, split_part(tname, '.', -1) AS cls FROM {source}) rc
                   JOIN _imports i ON i.path = rc.path AND i.is_module AND {in_scope} AND ends_with(i.target, '/__init__.py')
                   AND rc.tname = i.binding || '.' || rc.sub || '.' || rc.cls
                   LEFT JOIN imports j ON j.path = i.target AND j.is_module AND j.binding = rc.sub
                   JOIN {syms} s ON s.name = rc.cls AND s.parent IS NULL AND s.kind = 'class'
                   AND s.path = coalesce(j.target, substr(i.target, 1, length(i.target) - 11) || rc.sub || '.py')
            """.split("\n            UNION ALL")
    # Java's own ways, read only in a run with a Java reference (~2 ms a statement for nothing otherwise)
    java_ways = f"""  -- Java: a class of the calling file's package, not imported (`Foo` in Foo.java)
            SELECT rc.*, s.id FROM (SELECT * FROM {source} WHERE ends_with(path, '.java')) rc
                   JOIN {syms} s ON s.path = regexp_replace(rc.path, '[^/]*$', '') || rc.tname || '.java'
                   AND s.path <> rc.path AND s.name = rc.tname AND s.parent IS NULL AND (s.kind = 'class' OR s.kind = 'interface' AND rc.how = 'typed')
                   ANTI JOIN _imports i ON i.path = rc.path AND i.binding = rc.tname
            UNION ALL  -- Java: `import a.b.Outer.Inner`, a nested class imported
            SELECT rc.*, s.id FROM (SELECT * FROM {source} WHERE ends_with(path, '.java')) rc
                   JOIN _imports i ON i.path = rc.path AND NOT i.is_module AND i.binding = rc.tname
                   JOIN {syms} s ON s.path = i.target AND s.name = rc.tname AND s.parent = split_part(i.module, '.', -2)
                   AND (s.kind = 'class' OR s.kind = 'interface' AND rc.how = 'typed')
            UNION ALL  -- Java: `import a.b.*` (a row per file of that package)
            SELECT rc.*, s.id FROM (SELECT * FROM {source} WHERE ends_with(path, '.java')) rc
                   JOIN _imports i ON i.path = rc.path AND i.name = '*' AND i.is_module
                   JOIN {syms} s ON s.path = i.target AND s.name = rc.tname AND s.parent IS NULL
                   AND (s.kind = 'class' OR s.kind = 'interface' AND rc.how = 'typed')
            UNION ALL  -- Java: `Outer.Inner`, a class nested in one of the file's, its package's or an import's
            SELECT rc.* EXCLUDE (outer_name), s.id FROM (SELECT *, split_part(tname, '.', 1) AS outer_name FROM {source}
                                                      WHERE ends_with(path, '.java') AND tname LIKE '%_._%' AND tname NOT LIKE '%.%.%') rc
                   LEFT JOIN _imports i ON i.path = rc.path AND i.binding = rc.outer_name
                   JOIN {syms} s ON s.parent = rc.outer_name AND s.name = split_part(rc.tname, '.', 2)
                   AND s.path IN (rc.path, regexp_replace(rc.path, '[^/]*$', '') || rc.outer_name || '.java', i.target)
                   AND (s.kind = 'class' OR s.kind = 'interface' AND rc.how = 'typed')
            """.split("\n            UNION ALL")
    if cur.execute(f"SELECT count(*) FROM {source} WHERE ends_with(path, '.java')").fetchone()[0]:
        ways += java_ways
    for named in ways:
        cur.execute(f"""INSERT INTO {target} SELECT n.* FROM ({named}) n
                        ANTI JOIN _nested_cls d ON d.path = n.path AND d.line = n.line AND d.name = n.name AND d.src = n.src""")
    cur.execute(f"""
        INSERT INTO {target}  -- a type the file works out, named under another function's import and no other way
        SELECT n.* FROM ({_imported(source, "i.scope IS NOT NULL")}) n
               ANTI JOIN {target} t ON t.path = n.path AND t.line = n.line AND t.name = n.name AND t.src = n.src
        WHERE n.how = 'typed'""")  # (`return Foo` under its own `from m import Foo`: index/returns.py `class_of`)
    cur.execute(f"""
        INSERT INTO {target}  -- `current_app.url_for()`: a module-level variable of another file (store/var_calls.py)
        SELECT rc.* REPLACE ('module_var' AS how), v.cid FROM {source} rc JOIN _vt v ON v.path = rc.path
               AND v.recv = rc.receiver AND rc.rtype IS NULL AND {IN_SCOPE.format(src="rc.src").replace("i.scope", "v.scope")}
        UNION ALL  -- `env.from_string()` in a test: what its fixture gives (store/fixture_calls.py)
        SELECT rc.* REPLACE ('fixture_var' AS how), f.cid FROM {source} rc JOIN _ft f ON f.src = rc.src
               AND f.recv = rc.receiver AND rc.rtype IS NULL""")
    cur.execute("DROP TABLE _nested_cls")
