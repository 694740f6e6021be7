"""Reads for test selection (graph/tests_reach.py) that the impact graph's columns do not hold.

A test's call that no CALLS edge resolves but whose receiver or name is bound by an import of a
workspace file (`attr.s(...)` where `s` is an alias the resolver cannot follow) still runs code
of that file: the test selection keeps the file-level rule for it. Also what graph/tests_held.py
asks: which symbols are classes, and which calls through a receiver only a name guess resolves.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from memory_lsp.python_protocol import PROTOCOL_METHODS
from memory_lsp.store import code
from memory_lsp.store.edges import _quoted
from memory_lsp.store.module_exports import REEXPORT_HOPS

def _unresolved(edges_filter: str = "") -> str:
    """A call site `r` that no CALLS edge (passing `edges_filter`) resolves. The sites are matched by
    one hash of (file, line, name), as an edge's fingerprint is: a set of numbers. A correlated NOT
    EXISTS held every call site's text and each resolved site's in hash tables: ~460 MB at 10,740
    files, the peak of a graph's load (BENCHMARKS.md cc)."""
    return ("hash(r.path, r.line, r.name) NOT IN (SELECT hash(e.src_path, e.line, e.name) FROM edges e WHERE "
            f"e.kind = 'CALLS' AND e.line IS NOT NULL {edges_filter})")


# an attribute `r.name` that the class of a module variable `i` imports declares (`_CONFIG = _Configuration()`, in
# its class body `default_context_class: type[Context] = dict`), no method: what the variable `v` and the row `h` meet.
# `_BLIND` asks it correlated (one test file's read asks about the few files it imports, ~5 ms a statement);
# `_HELD_ATTR` joins it (a correlated EXISTS over every test's reads held ~90 MB more at a graph's load)
_DECLARED_V = "v.kind = 'vartype' AND v.path = i.target AND v.name = i.name"
_DECLARED_H = ("h.path = v.path AND h.name = r.name AND h.kind IN ('heldtype', 'returntype') "
               "AND h.src = v.path || '::' || v.rtype || '.' || r.name")
_DECLARED_ATTRIBUTE = "NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = h.src)"


# a test file's call through an import of a workspace file
_THROUGH = """
    FROM refs r JOIN files t ON t.path = r.path AND t.is_test
         JOIN imports i ON i.path = r.path AND i.target IS NOT NULL AND i.target <> r.path
              AND i.binding = split_part(coalesce(r.receiver, r.name), '.', 1)
         JOIN files m ON m.path = i.target AND NOT coalesce(m.is_test, false)"""

_BLIND = f"""
    SELECT DISTINCT r.src, i.target AS module, false AS held{_THROUGH}
    WHERE r.kind = 'call' AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
      AND NOT contains(r.name, '.')  -- a dotted string a loader reads (index/string_imports.py), no call through an import
      AND NOT (r.receiver IS NOT NULL AND r.name IN ({_quoted(PROTOCOL_METHODS)}))  -- `repr(missing)`: its class's
      AND {_unresolved()}
      -- a method of a module's variable of Python's own type (`LEVEL_TO_NAME.keys()`, `LEVEL_TO_NAME = {{...}}`)
      AND NOT (r.receiver = i.binding AND NOT i.is_module AND EXISTS (
               SELECT 1 FROM refs v WHERE v.kind = 'vartype' AND v.path = i.target AND v.name = i.name
               AND v.rtype = 'builtin'))
      -- a call of an attribute the variable's class declares runs what the attribute holds, no code of that file
      AND NOT (r.receiver = i.binding AND NOT i.is_module AND EXISTS (
               SELECT 1 FROM refs v JOIN refs h ON {_DECLARED_H} WHERE {_DECLARED_V} AND {_DECLARED_ATTRIBUTE}))
    ORDER BY r.src, module"""


# ... resolved through a module variable of that file (`format_exc_info(...)`, `mistune.html(...)`: store/var_calls.py):
# the instance runs with what that module's code gave it at import (`html = create_markdown(plugins=[...])`)
_HELD = """
    SELECT DISTINCT r.src, i.target AS module, true AS held{through}
    WHERE r.kind = 'call' AND hash(r.path, r.line, r.name) IN (SELECT hash(e.src_path, e.line, e.name) FROM edges e WHERE
          e.kind = 'CALLS' AND e.strategy IN ('module_var', 'module_var_inherited'))
    ORDER BY r.src, module""".format(through=_THROUGH)


# ... reading such an attribute (`_CONFIG.default_processors`, read rows have no receiver: index/reads.py): it
# holds what the module's code put there (`_BUILTIN_DEFAULT_PROCESSORS = [...]`), which runs where it is handed
_HELD_ATTR = f"""
    SELECT DISTINCT r.src, i.target AS module, true AS held
    FROM refs r JOIN files t ON t.path = r.path AND t.is_test
         JOIN imports i ON i.path = r.path AND i.target IS NOT NULL AND i.target <> r.path AND NOT i.is_module
         JOIN files m ON m.path = i.target AND NOT coalesce(m.is_test, false)
         JOIN refs v ON {_DECLARED_V} JOIN refs h ON {_DECLARED_H}
    WHERE r.kind = 'attr' AND {_DECLARED_ATTRIBUTE}
    ORDER BY r.src, module"""


def unresolved_test_calls(cur) -> dict[str, np.ndarray]:
    """(src, module, held): the symbol of a test file around an unresolved call (held False), or a call
    of a module variable (held True), and the workspace file that call goes through."""
    return cur.execute(f"SELECT * FROM ({_BLIND}) UNION ALL SELECT * FROM ({_HELD}) UNION ALL SELECT * FROM ({_HELD_ATTR}) "
                       "ORDER BY src, module, held").fetchnumpy()


def _joined(*reads: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {c: np.concatenate([np.asarray(r[c], dtype=bool if c == "held" else object) for r in reads]) for c in reads[0]}


_DISPATCH = f"""
    SELECT DISTINCT r.src, r.path
    FROM refs r JOIN files f ON f.path = r.path AND NOT coalesce(f.is_test, false)
    WHERE r.kind = 'call' AND r.receiver IN ('self', 'cls') AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
      -- (not `NOT IN (SELECT name FROM symbols)`: that hashed every symbol's name for one file's read)
      AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.name = r.name)
      AND r.name <> '__class__'  -- `self.__class__(...)` makes the class itself (werkzeug's Headers)
      AND {_unresolved()}
      -- an attribute a method of the class assigns (`self.converter = converter`): what it calls was handed in
      AND NOT EXISTS (SELECT 1 FROM refs a WHERE a.kind = 'selfset' AND a.path = r.path
                      AND a.src_class = r.src_class AND a.name = r.name)
      -- one the class body sets (`csrf_class = None`): what a subclass or the instance puts there, not the file's imports
      AND NOT EXISTS (SELECT 1 FROM refs h WHERE h.kind = 'heldtype' AND h.path = r.path
                      AND h.src_class = r.src_class AND h.name = r.name)
    ORDER BY r.src"""


_UNTYPED = f"""
    SELECT DISTINCT r.src, r.name, coalesce(r.receiver IN ('self', 'cls'), false) AS on_self, r.kind = 'attr' AS read
    FROM refs r
    WHERE (r.kind = 'attr'  -- a read (`x.prop`, `hook(self.m)`): it runs a property, hands a method on (index/reads.py)
           OR r.kind = 'call' AND r.receiver IS NOT NULL AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')
              AND {_unresolved("AND coalesce(e.strategy, '') NOT IN ('name_unique', 'name_ambiguous', 'override')")})
      AND r.name IN (SELECT name FROM symbols WHERE kind = 'method')  -- the rule asks about methods only
    ORDER BY r.src, r.name, on_self, read"""


_CLASSES = "SELECT DISTINCT id FROM symbols WHERE kind = 'class' ORDER BY id"


# (path, src): a symbol making no call at all (no `call` row: a builtin's, a local's, an unresolved one all count):
# it runs nothing its module holds (graph/tests_through.py `module_held`; structlog's `reset_defaults` only assigns
# the defaults). Its own file's rows only: what an edit changes is read again with that file (~4 ms on the stdlib;
# limited to files holding another's, with the edges read for it, ~12). `{r_path}`, `{s_path}`: a file's filter, or none.
_SILENT = """
    SELECT DISTINCT s.path, s.id AS src FROM symbols s
    ANTI JOIN (SELECT DISTINCT path, src FROM refs WHERE kind = 'call' {r_path}) r ON r.path = s.path AND r.src = s.id
    {s_path}
    ORDER BY s.path, src"""


# (path, src, name): a caller whose every call of a name is raised (`raise Error(...)`, index/extract.py):
# it makes such an instance only to raise it (graph/tests_raised.py). Not Python's own (`raise ValueError()`,
# 'builtin'): no edge leads there. `{path}`, `{c_path}`: a file's filter, or none.
_RAISED = """
    SELECT c.path, c.src, c.name FROM refs c
    SEMI JOIN (SELECT DISTINCT path, src, name FROM refs WHERE kind = 'raised' {path}) r
         ON r.path = c.path AND r.src = c.src AND r.name = c.name
    WHERE c.kind IN ('call', 'raised') {c_path}
    GROUP BY c.path, c.src, c.name
    HAVING count(*) FILTER (WHERE c.kind = 'call') = count(*) FILTER (WHERE c.kind = 'raised')
       AND NOT bool_or(c.kind = 'call' AND coalesce(c.rtype, '') IN ('builtin', 'local'))
    ORDER BY c.path, c.src, c.name"""


# (importer, file) where the importer takes a name from a module that takes it from that file, as
# deep as call resolution follows re-exports (jinja2's environment.py takes DEFAULT_FILTERS from
# defaults.py, which takes FILTERS from filters.py): what an attribute holding a class or function
# may hold comes from there too
_REEXPORTS = f"""
    WITH RECURSIVE chain(path, target, name, d) AS (
        SELECT path, target, name, 1 FROM imports WHERE NOT is_module AND target IS NOT NULL AND name IS NOT NULL
        UNION ALL
        SELECT c.path, j.target, j.name, c.d + 1 FROM chain c
        JOIN imports j ON j.path = c.target AND j.binding = c.name AND NOT j.is_module AND j.target IS NOT NULL
        WHERE c.d < {REEXPORT_HOPS})
    SELECT DISTINCT path, target FROM chain WHERE d > 1 AND target <> path ORDER BY path, target"""


def _imports_version(cur) -> str | None:
    return cur.execute("SELECT max(value) FROM meta WHERE key = ?", [code.IMPORTS_VERSION]).fetchone()[0]


def reexports(cur) -> dict[str, np.ndarray]:
    """`reexports`: (path, target) as _REEXPORTS, and `version`, the index's imports version read with them."""
    found = cur.execute(_REEXPORTS).fetchnumpy()
    return {"path": found["path"], "target": found["target"],
            "version": np.array([_imports_version(cur)], dtype=object)}


def reexports_since(cur, before: dict | None) -> dict[str, np.ndarray]:
    """The last graph's `reexports` (the same object: test selection is carried) when no run since
    may have changed an import row; else read again (~20 ms on the stdlib)."""
    if before is not None and before["version"][0] == _imports_version(cur):
        return before
    return reexports(cur)


def unresolved_calls(cur) -> dict[str, dict[str, np.ndarray]]:
    """The whole read as the queries above define it, without the rows' files. A graph makes these
    columns from the rows it keeps (graph/follow_unresolved.py); tests/test_follow_unresolved.py
    holds them equal to this read. `tests`: as `unresolved_test_calls`; `dispatch`: (src, path) of the code's calls through an
    attribute of self named like nothing defined (`self.config_class(...)`): a class or function
    held in an attribute, which may be any the file imports (or takes a name from through the
    modules re-exporting it: `reexports`); `classes`: (id) of every class;
    `untyped`: (src, name, on_self, read) of the calls through a receiver (`x.m()`, `self.m()`) that
    only a name guess, or nothing, resolves (read False), and of the reads of an attribute (`x.m`:
    index/reads.py; read True), named like a method (what may run a method of an instance:
    graph/tests_held.py, graph/tests_read.py);
    `raised`: (src, name) of a caller whose calls of that name are all raised (_RAISED); `silent`: (src)
    of the symbols making no call (_SILENT)."""
    raised = cur.execute(_RAISED.format(path="", c_path="")).fetchnumpy()
    return {"tests": unresolved_test_calls(cur), "dispatch": cur.execute(_DISPATCH).fetchnumpy(),
            "classes": cur.execute(_CLASSES).fetchnumpy(), "untyped": cur.execute(_UNTYPED).fetchnumpy(),
            "reexports": reexports(cur), "raised": {"src": raised["src"], "name": raised["name"]},
            "silent": {"src": cur.execute(_SILENT.format(r_path="", s_path="")).fetchnumpy()["src"]}}


# -- what a graph following an edit reads (graph/follow_unresolved.py) ------------------------------
def _keyed(sql: str, columns: str, where: str = "", edges_where: str = "") -> str:
    """The same query (its rules stay written once, above) with the columns an update replaces
    rows by, without its order (the caller merges and sorts), with `where` added to its filter
    and `edges_where` to its edge lookup's."""
    head, edges = "SELECT DISTINCT r.src", "FROM edges e WHERE"
    body, order = sql.rsplit("ORDER BY", 1)
    if head not in body or not order.strip():
        raise RuntimeError("test_reads: the unresolved-call query changed shape")
    body = body.replace(head, f"SELECT DISTINCT {columns}, r.src", 1)
    return body.replace(edges, f"{edges} {edges_where}", 1) + where if edges_where else body + where


# (path, fp): what a test file's rows read of a workspace file it imports names from (`_DECLARED_*`, Python's own
# type in `_BLIND`), as one number per file: its module variables' types, and what the classes they are instances of
# declare (attributes' types and values, members). A graph following an edit reads the importing test files' rows
# again when it moves: rarely (a function added moves nothing), since each such file may have many importing tests.
_DECLARATIONS = """
    WITH v AS (SELECT path, name, rtype FROM refs WHERE kind = 'vartype' {v})
    SELECT path, sum(h)::VARCHAR AS fp FROM (
        SELECT path, hash(name, rtype) AS h FROM v
        UNION ALL SELECT h.path, hash(h.kind, h.src, h.name, h.rtype) FROM refs h
            SEMI JOIN v ON v.path = h.path AND v.rtype = h.src_class
            WHERE h.kind IN ('heldtype', 'returntype') {h}
        UNION ALL SELECT s.path, hash(s.id) FROM symbols s SEMI JOIN v ON v.path = s.path AND v.rtype = s.parent {s})
    GROUP BY path ORDER BY path"""


def declarations(cur, paths: list[str] | None = None) -> dict[str, str]:
    """`_DECLARATIONS` of every file, or of `paths` (a file with none is absent)."""
    if paths is None:
        return dict(cur.execute(_DECLARATIONS.format(v="", h="", s="")).fetchall())
    found = {}
    for path in paths:  # an equality per statement: pushed into the scans (a list is a whole scan)
        found.update(cur.execute(_DECLARATIONS.format(v="AND path = $1", h="AND h.path = $1", s="WHERE s.path = $1"),
                                 [path]).fetchall())
    return found


def importing_tests(cur, paths: list[str]) -> set[str]:
    """The test files importing a name (not the module) from one of `paths`."""
    found = set()
    for path in paths:
        found.update(p for p, in cur.execute(
            "SELECT DISTINCT i.path FROM imports i JOIN files t ON t.path = i.path AND t.is_test "
            "WHERE i.target = ? AND NOT i.is_module", [path]).fetchall())
    return found


# each kind's statement; `tests` is three, read one after another and joined: as one UNION ALL they held their hash
# tables at once, +115 MB at 11,282 files against +80 for the largest alone, the peak of a graph's load
_ROWS = {"tests": tuple(_keyed(sql, "r.path") for sql in (_BLIND, _HELD, _HELD_ATTR)),
         "dispatch": _keyed(_DISPATCH, "r.path, r.name"),
         "untyped": _keyed(_UNTYPED, "r.path"), "raised": _RAISED.format(path="", c_path=""), "classes": _CLASSES,
         "silent": _SILENT.format(r_path="", s_path=""),
         "methods": "SELECT DISTINCT path, name FROM symbols WHERE kind = 'method'",
         "declared": _DECLARATIONS.format(v="", h="", s="")}


def unresolved_rows(cur, kinds: tuple[str, ...] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Every row of `unresolved_calls` with what it comes from: `tests` (path, src, module, held),
    `dispatch` (path, name, src), `untyped` (path, src, name, on_self, read), `raised` (path, src, name), `silent` (path, src);
    `path` is the file making the call. Also `classes` (id) and `methods` (path, name: what
    `untyped` asks of every file). `kinds`: these only, read in their order."""
    return {kind: _joined(*(cur.execute(sql).fetchnumpy() for sql in _ROWS[kind])) if isinstance(_ROWS[kind], tuple)
            else cur.execute(_ROWS[kind]).fetchnumpy() for kind in (kinds or tuple(_ROWS))}


UNTYPED_PARTS = 4  # `untyped` read over a quarter of the files a statement (`unresolved_row_chunks`)


def unresolved_row_chunks(cur, kind: str, size: int, between=None) -> Iterator[dict[str, np.ndarray]]:
    """The rows of one kind as `unresolved_rows` reads them (in no order), `size` rows at a time (at
    least one chunk, empty when there are none): a caller that makes each chunk ids holds one chunk's
    strings, not the kind's (`untyped` at 11,282 files: 179,000 rows, ~47 MB of Python strings).
    `untyped` is read over a range of files a statement, each joining those files' call sites and
    edges only: the whole statement's hash tables took the graph load at 11,282 files from 148 to
    283 MB, the load's peak (bench/BENCHMARKS.md dh). `between` is called with `cur` between two
    statements (graph/impact.py's `release`: the cache of the blocks one range read goes before the next)."""
    some = False
    for n, (sql, params) in enumerate(_parts(cur, kind)):
        if n and between is not None:
            between(cur)
        result = cur.execute(sql, params)
        columns = [d[0] for d in result.description]
        while rows := result.fetchmany(size):
            some = True
            yield {c: object_column(v) for c, v in zip(columns, zip(*rows))}
    if not some:
        yield {c: object_column(()) for c in columns}


def _parts(cur, kind: str) -> list[tuple[str, list[str]]]:
    """(statement, parameters) reading the rows of `kind`: for `untyped`, one per range of file paths,
    about as many files each (rows of different files never fall together under its DISTINCT)."""
    if kind != "untyped":
        return [(_ROWS[kind], [])]
    paths = [p for p, in cur.execute("SELECT path FROM files ORDER BY path").fetchall()]
    bounds = sorted({paths[len(paths) * k // UNTYPED_PARTS] for k in range(1, UNTYPED_PARTS)}) if paths else []
    parts = []
    for lo, hi in zip(["", *bounds], [*bounds, None]):  # every path is >= ""
        below = hi is not None
        r_path = " AND r.path >= $1" + (" AND r.path < $2" if below else "")
        e_path = "e.src_path >= $1 AND " + ("e.src_path < $2 AND " if below else "")
        parts.append((_keyed(_UNTYPED, "r.path", r_path, e_path), [lo, hi] if below else [lo]))
    return parts


def object_column(values) -> np.ndarray:
    """Values (strings, tuples) as a 1-D object array, as fetchnumpy gives text (np.array would nest tuples)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def unresolved_rows_of(cur, path: str, is_test: bool) -> dict[str, dict[str, np.ndarray]]:
    """The rows of one file as `unresolved_rows` gives them: `tests` rows for a test file or
    `dispatch` rows for another (each query asks for its kind of file), `untyped`, `raised` and `silent` rows,
    and the file's `symbols` (kind, id, name) of kind class or method. One file per statement: an
    equality is pushed into the scans of refs and edges, a list of paths is not (whole-table
    scans again: ~50 ms for 3 paths against ~7)."""
    return {"tests" if is_test else "dispatch": tests_of(cur, path) if is_test else _of_file(cur, _DISPATCH, "r.path, r.name", path),
            "untyped": cur.execute(_keyed(_UNTYPED, "r.path", " AND r.path = ?", "e.src_path = ? AND"),
                                   [path, path]).fetchnumpy(),
            "raised": cur.execute(_RAISED.format(path="AND path = $1", c_path="AND c.path = $1"), [path]).fetchnumpy(),
            "silent": cur.execute(_SILENT.format(r_path="AND path = $1", s_path="WHERE s.path = $1"), [path]).fetchnumpy(),
            "symbols": cur.execute("SELECT DISTINCT kind, id, name FROM symbols WHERE path = ? AND kind IN ('class', 'method')",
                                   [path]).fetchnumpy()}


def tests_of(cur, path: str) -> dict[str, np.ndarray]:
    """The `tests` rows of one test file (path, src, module, held)."""
    return _joined(*(_of_file(cur, sql, "r.path", path) for sql in (_BLIND, _HELD, _HELD_ATTR)))


def _of_file(cur, sql: str, columns: str, path: str) -> dict[str, np.ndarray]:
    keyed = _keyed(sql, columns, " AND r.path = ?", "e.src_path = ? AND")
    return cur.execute(keyed, [path] * keyed.count("?")).fetchnumpy()


def rows_named(cur, kind: str, names: list[str]) -> dict[str, np.ndarray]:
    """The `dispatch` rows (path, name, src) or `untyped` rows (path, src, name, on_self, read) of calls
    named one of `names`, in any file. A few names one per statement: an equality is pushed into
    the scan of refs, a list is a join over all of it (~25 against ~100 ms for one name)."""
    sql, columns = (_DISPATCH, "r.path, r.name") if kind == "dispatch" else (_UNTYPED, "r.path")
    if len(names) > 4:
        among = "IN (SELECT unnest(string_split(?, '\x1f')))"
        return cur.execute(_keyed(sql, columns, f" AND r.name {among}", f"e.name {among} AND"),
                           ["\x1f".join(names)] * 2).fetchnumpy()
    reads = [cur.execute(_keyed(sql, columns, " AND r.name = ?", "e.name = ? AND"), [name, name]).fetchnumpy()
             for name in names]
    if not reads:
        return {}
    return {column: np.concatenate([np.asarray(r[column], dtype=object) for r in reads]) for column in reads[0]}
