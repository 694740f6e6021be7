"""The code tables' rows and reads: files, skipped, symbols, refs, imports, chunks, mentions.

Every write function takes the transaction's cursor (`Store.transaction()`); the indexer decides
when to commit. Reads take any cursor. Edges are rebuilt by store/edges.py.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import NamedTuple

from memory_lsp.store import fulltext, moved_lines
from memory_lsp.store.db import Store

FILE_COLUMNS = (["path", "lang", "hash", "size", "mtime", "loc", "is_test", "notes", "side_effects",
                 "mutations"],
                ["VARCHAR", "VARCHAR", "VARCHAR", "BIGINT", "DOUBLE", "INTEGER", "BOOLEAN", "VARCHAR",
                 "VARCHAR", "INTEGER"])
SYMBOL_COLUMNS = (["id", "path", "name", "qualname", "kind", "start_line", "end_line", "parent",
                   "fingerprint"],
                  ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER",
                   "VARCHAR", "VARCHAR"])
REF_COLUMNS = (["path", "kind", "src", "src_class", "name", "receiver", "line", "rtype"],
               ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "VARCHAR"])
IMPORT_COLUMNS = (["path", "line", "module", "name", "alias", "binding", "target", "is_module", "strategy"],
                  ["VARCHAR", "INTEGER", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR",
                   "BOOLEAN", "VARCHAR"])
CHUNK_COLUMNS = (["id", "path", "kind", "name", "start_line", "end_line", "prefix", "text"],
                 ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "VARCHAR", "VARCHAR"])
MENTION_COLUMNS = (["path", "heading", "line", "token"], ["VARCHAR", "VARCHAR", "INTEGER", "VARCHAR"])
SKIP_COLUMNS = (["path", "reason", "size"], ["VARCHAR", "VARCHAR", "BIGINT"])
_PER_FILE_TABLES = ("files", "skipped", "symbols", "refs", "imports", "chunks", "mentions")


class SymbolRow(NamedTuple):
    """A symbol as the index has it (the rows `symbols_of` returns)."""

    id: str  # path::qualname
    name: str
    qualname: str
    kind: str
    start: int  # 1-based, inclusive
    end: int


class KnownFile(NamedTuple):
    hash: str
    size: int
    mtime: float


class FileShape(NamedTuple):
    """What other files' edges depend on: a change here means edges elsewhere may change."""

    imports: frozenset  # (module, name, alias)
    is_test: bool
    mutates: bool
    symbols: tuple  # sorted (qualname, name, kind, parent), with repeats: a second `def f` changes what `f` can mean
    inherits: tuple  # sorted base-class references (src, src_class, name, receiver, rtype) without lines
    returns: tuple = ()  # sorted (src, name, rtype) of what its functions return and its variables are


# refs of what a function returns / what calling its result gives / what it gives its callbacks / what its result holds /
# what a class attribute holds (`context_class = Context`: store/held_calls.py)
RETURN_KINDS = ("returntype", "appliedtype", "paramtype", "heldtype", "elementtype")
# and what a module-level variable is (store/var_calls.py), and a fixture's name (index/fixtures.py)
SHAPE_RETURNS = RETURN_KINDS + ("vartype", "fixturename")


def shape_return(kind: str, src: str, name: str, rtype: str, slot: str | None = None) -> tuple:
    """A FileShape `returns` row: an applied type (`appliedtype`) after "()", a callback's
    parameter after its slot, a variable's after "=", a fixture's name after "@", so that any changing is seen."""
    mark = {"returntype": "", "appliedtype": "()", "vartype": "=", "paramtype": f"({slot})", "heldtype": "<-", "elementtype": "[]",
            "fixturename": "@"}[kind]
    return (src, name, mark + (rtype or ""))


def defined_names(shape: FileShape | None) -> set[str]:
    """The names a file defines for others: its symbols', and its fixtures' (`fixture(name="cl")`)."""
    if shape is None:
        return set()
    return {s[1] for s in shape.symbols} | {r[1] for r in shape.returns if r[2] == "@"}


IMPORTS_VERSION = "imports_version"  # meta: a new value whenever a run may have changed an import row


def mark_imports_changed(store: Store, cur) -> None:
    """A run that may have changed import rows (test_reads.reexports_since reads them again)."""
    store.set_meta(IMPORTS_VERSION, uuid.uuid4().hex, cur)


# meta: a new value whenever a run may have changed a reference, import, symbol or edge other than
# by moving it to another line (graph/follow.py keeps the last graph's unresolved calls while it stays)
REFS_VERSION = "refs_version"


def mark_refs_changed(store: Store, cur) -> None:
    store.set_meta(REFS_VERSION, uuid.uuid4().hex, cur)


def names_rebound(old: FileShape | None, new: FileShape | None, reexported) -> set[str]:
    """Names whose meaning for other files an edit changed beside its symbols: a function now
    returning another type (the calls other files type by it: store/return_calls.py), and an
    import added, removed or retargeted (what its importers reach through it: `from .a import get`
    -> `from .b import get` in a package's __init__); for `from .numeric import *`, the names
    `reexported(imports)` says such imports among the changed ones offer."""
    returns = {r[1] for r in set(old.returns if old else ()) ^ set(new.returns if new else ())}
    imports = set(old.imports if old else ()) ^ set(new.imports if new else ())
    starred = reexported(imports) if any(name == "*" for _, name, _ in imports) else set()
    return returns | starred | {alias or name or module.split(".")[0] for module, name, alias in imports}


class Removed(NamedTuple):
    """What the rows of some files held before `remove_files` deleted them."""

    names: set[str]  # symbol names they defined
    shapes: dict[str, FileShape]
    history: list[tuple]  # (path, churn, last_change, reach, score): figures to give back on re-insert
    import_rows: dict[str, frozenset]  # path -> {(line, module, name, alias)}: the imports as written


def insert(store: Store, cur, columns: tuple, table: str, rows: list[tuple]) -> None:
    store.bulk_insert(table, columns[0], columns[1], rows, cur=cur)


def set_temp(store: Store, cur, name: str, values) -> str:
    """A one-column temp table `name(v)` used to filter statements by a set of values."""
    cur.execute(f"CREATE OR REPLACE TEMP TABLE {name} (v VARCHAR)")
    store.bulk_insert(name, ["v"], ["VARCHAR"], [(v,) for v in values], cur=cur)
    return name


INLINE_VALUES = 256  # up to this many values a filter is a literal list (pushed into the scan)


def value_set(store: Store, cur, name: str, values) -> str:
    """A set of values to filter by, as SQL after `IN`: a literal list when small (DuckDB filters
    the scan with it; a temp table costs statements and a join), else a temp table `name`."""
    values = sorted({str(v) for v in values})
    if len(values) > INLINE_VALUES:
        return f"(SELECT v FROM {set_temp(store, cur, name, values)})"
    if not values:
        return "(NULL)"  # matches nothing
    return "(" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + ")"


def known_files(cur, paths: list[str] | None = None) -> dict[str, KnownFile]:
    """The stored hash, size and mtime of every file, or of `paths` only."""
    if paths is not None:
        rows = cur.execute("SELECT path, hash, size, mtime FROM files WHERE path = ANY(?::VARCHAR[])", [paths]).fetchall()
    else:
        rows = cur.execute("SELECT path, hash, size, mtime FROM files").fetchall()
    return {r[0]: KnownFile(r[1], r[2], r[3]) for r in rows}


def indexed_paths(cur) -> frozenset[str]:
    return frozenset(r[0] for r in cur.execute("SELECT path FROM files").fetchall())


# edges made from the imports table and the files' flags alone (store/edges.py)
FILE_LINK_KINDS = ("IMPORTS", "ASSERTS_ON", "DRIVES")


def remove_files(store: Store, cur, paths, edges_into: bool = True, keep_moved: dict | None = None) -> Removed:
    """Delete every row the files contributed and every edge from them (and into them unless
    `edges_into` is False: the caller decides later, see `delete_edges_into`), except CO_CHANGES,
    which follows git; return what they held. With `edges_into` False (files parsed again) their
    FILE_LINK_KINDS edges stay too, until the caller knows whether their imports changed
    (`delete_file_links`)."""
    gone = value_set(store, cur, "_gone", paths)
    shapes, import_rows = _file_shapes(cur, gone)
    # an editor's run (`keep_moved`: the new shape of each file): what store/moved_lines.py compares
    # the new rows of a file with, when its shape stayed (a definition or import added: no need)
    same = [p for p, shape in (keep_moved or {}).items() if shapes.get(p) == shape]
    if same:
        moved_lines.keep(cur, value_set(store, cur, "_kept", same))
    names = {name for shape in shapes.values() for name in defined_names(shape)}
    history = cur.execute(
        f"SELECT path, churn, last_change, reach, score FROM files WHERE path IN {gone}").fetchall()
    for table in _PER_FILE_TABLES:
        cur.execute(f"DELETE FROM {table} WHERE path IN {gone}")
    if edges_into:
        cur.execute(f"DELETE FROM edges WHERE kind <> 'CO_CHANGES' AND (src_path IN {gone} OR dst_path IN {gone})")
    else:
        kept = ", ".join(f"'{k}'" for k in ("CO_CHANGES",) + FILE_LINK_KINDS)
        cur.execute(f"DELETE FROM edges WHERE kind NOT IN ({kept}) AND src_path IN {gone}")
    return Removed(names, shapes, history, import_rows)


def delete_file_links(store: Store, cur, paths) -> None:
    """Delete the FILE_LINK_KINDS edges from `paths` (files parsed again whose imports changed)."""
    if paths:
        kinds = ", ".join(f"'{k}'" for k in FILE_LINK_KINDS)
        cur.execute(f"DELETE FROM edges WHERE kind IN ({kinds}) AND src_path IN {value_set(store, cur, '_gone', paths)}")


def delete_edges_into(store: Store, cur, paths, but: tuple[str, ...] = ()) -> None:
    """Delete the edges into `paths` (except CO_CHANGES and the kinds `but`): their files changed
    what others may resolve to."""
    if paths:
        gone = value_set(store, cur, "_gone", paths)
        kept = ", ".join(f"'{k}'" for k in ("CO_CHANGES",) + tuple(but))
        cur.execute(f"DELETE FROM edges WHERE kind NOT IN ({kept}) AND dst_path IN {gone}")


def _file_shapes(cur, temp: str) -> tuple[dict[str, FileShape], dict[str, frozenset]]:
    shapes, import_rows = {}, {}
    for path, is_test, mutates in cur.execute(
            f"SELECT path, is_test, mutations > 0 FROM files WHERE path IN {temp}").fetchall():
        shapes[path] = [set(), is_test, mutates, [], [], []]
    for path, line, module, name, alias in cur.execute(
            "SELECT DISTINCT path, line, module, name, alias FROM imports "
            f"WHERE path IN {temp}").fetchall():
        shapes[path][0].add((module, name, alias))
        import_rows.setdefault(path, set()).add((line, module, name, alias))
    for path, *symbol in cur.execute(
            f"SELECT path, qualname, name, kind, parent FROM symbols WHERE path IN {temp}").fetchall():
        shapes[path][3].append(tuple(symbol))
    for path, kind, *ref in cur.execute(
            "SELECT path, kind, src, src_class, name, receiver, rtype FROM refs "
            f"WHERE kind IN ('inherit', {', '.join(repr(k) for k in SHAPE_RETURNS)}) AND path IN {temp}").fetchall():
        if kind == "inherit":
            shapes[path][4].append(tuple(ref))
        else:
            shapes[path][5].append(shape_return(kind, ref[0], ref[2], ref[4], ref[3]))
    return ({p: FileShape(frozenset(v[0]), v[1], v[2], shape_rows(v[3]), shape_rows(v[4]), shape_rows(v[5]))
             for p, v in shapes.items()},
            {p: frozenset(rows) for p, rows in import_rows.items()})


def shape_rows(rows) -> tuple:
    """Rows as the store returns them (text or NULL), sorted: a parsed file's compare with the stored."""
    rows = [tuple(None if x is None else str(x) for x in row) for row in rows]
    return tuple(sorted(rows, key=lambda row: tuple("" if x is None else x for x in row)))


def symbols_moved(old: FileShape | None, new: FileShape | None) -> list[tuple]:
    """The symbol rows one of two shapes of a file (None: no file) has and the other has not."""
    a, b = Counter(old.symbols if old else ()), Counter(new.symbols if new else ())
    return list(((a - b) + (b - a)).elements())


def base_names(store: Store, cur, names) -> set[str]:
    """Those of `names` some class names as its base (an INHERITS reference)."""
    if not names:
        return set()
    return {r[0] for r in cur.execute(
        f"SELECT DISTINCT name FROM refs WHERE kind = 'inherit' AND name IN {value_set(store, cur, '_base_names', names)}"
    ).fetchall()}


def set_mtime(cur, path: str, mtime: float | None) -> None:
    """A file touched but unchanged: only its mtime moves."""
    cur.execute("UPDATE files SET mtime = ? WHERE path = ?", [mtime, path])


def clear_skipped(cur) -> None:
    cur.execute("DELETE FROM skipped")


def restore_file_history(store: Store, cur, rows: list[tuple]) -> None:
    """Give re-parsed files back the git figures mined for them (history runs per HEAD only) and,
    where rows carry them, the reach and score of the last whole run: an editor's run keeps its
    files' edges scored as they were (graph/passes.py), so a re-made edge equals the one it replaces."""
    if not rows:
        return
    columns, types = ["path", "churn", "last_change", "reach", "score"], ["VARCHAR", "INTEGER", "DOUBLE", "INTEGER", "DOUBLE"]
    width = len(rows[0])
    cur.execute("CREATE OR REPLACE TEMP TABLE _hist ("
                + ", ".join(f"{c} {t}" for c, t in zip(columns[:width], types[:width])) + ")")
    store.bulk_insert("_hist", columns[:width], types[:width], rows, cur=cur)
    sets = ", ".join(f"{c} = h.{c}" for c in columns[1:width])
    cur.execute(f"UPDATE files SET {sets} FROM _hist h WHERE files.path = h.path")


def import_rows(cur) -> list[tuple]:
    """(path, line, module, name, alias) of every import as written, before resolution."""
    return cur.execute("SELECT DISTINCT path, line, module, name, alias FROM imports").fetchall()


def delete_imports_of(store: Store, cur, paths) -> None:
    cur.execute(f"DELETE FROM imports WHERE path IN (SELECT v FROM {set_temp(store, cur, '_imp_paths', paths)})")


def import_targets(cur) -> dict[str, set]:
    """path -> {(target, binding, strategy)}: where each file's imports land, and how."""
    out: dict[str, set] = {}
    for path, *landing in cur.execute("SELECT path, target, binding, strategy FROM imports").fetchall():
        out.setdefault(path, set()).add(tuple(landing))
    return out


def delete_imports(cur) -> None:
    cur.execute("DELETE FROM imports")


def file_score_inputs(cur) -> list[tuple]:
    """(path, last change or mtime, churn, side effects) of every file."""
    return cur.execute("SELECT path, coalesce(last_change, mtime), churn, side_effects FROM files").fetchall()


def write_file_scores(store: Store, cur, rows: list[tuple]) -> None:
    """rows: (path, reach, score)."""
    cur.execute("CREATE OR REPLACE TEMP TABLE _scores (path VARCHAR, reach INTEGER, score DOUBLE)")
    store.bulk_insert("_scores", ["path", "reach", "score"], ["VARCHAR", "INTEGER", "DOUBLE"], rows, cur=cur)
    cur.execute("UPDATE files SET reach = s.reach, score = s.score FROM _scores s WHERE files.path = s.path")


def symbols_of(cur, path: str) -> list[SymbolRow]:
    return [SymbolRow(*r) for r in cur.execute(
        "SELECT id, name, qualname, kind, start_line, end_line FROM symbols WHERE path = ? "
        "ORDER BY start_line", [path]).fetchall()]


def symbols_named_like(cur, query: str, limit: int) -> list[tuple]:
    """(path, name, qualname, kind, start_line) of symbols whose name contains `query`
    (any case), shortest names first."""
    pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return cur.execute(
        "SELECT path, name, qualname, kind, start_line FROM symbols WHERE name ILIKE ? ESCAPE '\\' "
        "ORDER BY length(name), name, path LIMIT ?", [pattern, limit]).fetchall()


def file_row(cur, path: str):
    return cur.execute("SELECT path, lang, is_test, score FROM files WHERE path = ?", [path]).fetchone()


def test_paths(cur) -> set[str]:
    return {r[0] for r in cur.execute("SELECT path FROM files WHERE is_test").fetchall()}


def lang_family(families: dict[str, str], column: str = "lang") -> str:
    """SQL for the language family of a files row's `column` (`families`: language -> family, as
    index/languages.py's resolver; a language not named is its own)."""
    cases = " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in sorted(families.items()) if k != v and "'" not in k + v)
    return f"CASE {column} {cases} ELSE {column} END" if cases else column


def unresolved_call_sites(cur, wanted: list[tuple[str, str]], families: dict[str, str],
                          min_confidence: float = 0.0) -> int:
    """Call sites that could reach one of `wanted` ((a symbol's name, its file)): named like it, in
    a file of its language family, that no CALLS edge at or above `min_confidence` resolves and
    whose receiver is not known to be something else (a builtin, a local name)."""
    if not wanted:
        return 0
    names, paths = [n for n, _p in wanted], [p for _n, p in wanted]
    return cur.execute(f"""
        WITH fam AS (SELECT path, {lang_family(families)} AS fam FROM files),
        wanted AS (SELECT DISTINCT w.name, f.fam FROM (SELECT unnest(?::VARCHAR[]) AS name, unnest(?::VARCHAR[]) AS path) w
                   JOIN fam f ON f.path = w.path),
        resolved AS (SELECT DISTINCT src_path, line, name FROM edges
                     WHERE kind = 'CALLS' AND confidence >= ? AND name IN (SELECT name FROM wanted))
        SELECT count(*) FROM refs r JOIN fam f ON f.path = r.path
        SEMI JOIN wanted w ON w.name = r.name AND w.fam = f.fam
        ANTI JOIN resolved e ON e.src_path = r.path AND e.line = r.line AND e.name = r.name
        WHERE r.kind = 'call' AND coalesce(r.rtype, '') NOT IN ('builtin', 'local')""",
                       [names, paths, min_confidence]).fetchone()[0]


def unresolved_imports(cur) -> int:
    return cur.execute("SELECT count(*) FROM imports WHERE strategy = 'unresolved'").fetchone()[0]


def state_digest(cur) -> str:
    """The indexed files as one value (each path with its content's hash): equal, the same rows."""
    count, mixed = cur.execute("SELECT count(*), bit_xor(hash(path, hash)) FROM files").fetchone()
    return f"{count}:{mixed}"


def has_files(cur) -> bool:
    return cur.execute("SELECT count(*) FROM files").fetchone()[0] > 0


def remove_all(cur) -> None:
    """Every file's rows and every edge, git's too (the next run mines them again), and the
    search index (its documents are made again from the new chunks)."""
    for table in _PER_FILE_TABLES + ("edges",) + fulltext.TABLES:
        cur.execute(f"DELETE FROM {table}")
    cur.execute("DELETE FROM meta WHERE key IN ('git_head', 'resolver_inputs')")
