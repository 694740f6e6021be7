"""Test selection's unresolved calls (store/test_reads.py) kept across the graphs that follow an
edit: the rows of the files an edit touched are read again, the others kept.

Read whole that is 200-250 ms of CPU on the stdlib (every call site against every CALLS edge);
one file's rows, ~10-25 ms. What a row depends on, from the queries' text:
- its own file: the call sites, the imports, the test flag, the CALLS edges made there. A file
  whose content or test flag changed is among the changed files; a file whose edges changed (a
  call re-resolved elsewhere, an import now landing on another file) among the touched ones.
- other files' existence and test flags (`files m`, `files f`): any file added, deleted or
  turned test or not reads the rows whole again.
- for `tests`, what a file a test imports names from declares (its module variables' types, what
  their classes declare: store/test_reads.py `declarations`): where a changed file's moved, the
  `tests` rows of the test files importing names from it are read again (`_declared_again`).
- for `dispatch`, whether the call's name is defined anywhere (`symbols`): only the changed
  files' symbols moved, so only names they defined before or define now can change that.
  A name defined now has no row anywhere (dropped, no read); a name no longer defined by them
  may have rows in any file (read by name).
- for `untyped` (calls and reads), whether the name is a method somewhere: the methods of every file are
  kept by file; a name that becomes a method, or stops being one, anywhere is read by name.
- `classes` (the class symbols) move with the changed files' symbols only; `raised` rows (held as ids,
  as `untyped`) with their own file's call sites only; `silent` rows with their own file's symbols
  and call sites only.

No row holds a line: when every run since the last graph only moved lines (a comment typed: the
index's refs version, store/code.py, stayed), graph/follow.py keeps the last graph's rows unread.

A graph loaded whole reads every row, made into the rows kept (`read_kept`), and each
graph that follows keeps them: the first edit after a load reads only its files' rows. (It read
them all, when the load kept none: at 10,740 files ~1.9 s and a peak of ~1 GB, the graph
already held.) The large kinds (`untyped`, the methods of each file, the classes of each file)
are held as ids of the graph's names tables (`names`: nodes, `calls`: called names), which the
graphs that follow share and only grow: the tables hold each string once already. The graph
holds `unresolved_calls`, made from the rows (`calls`).
"""

from __future__ import annotations

import itertools

import numpy as np

from memory_lsp.store import test_reads
from memory_lsp.store.allocator import Purging

MAX_PATHS = 16  # beyond these, one whole read (~250 ms) is about as fast as a read per file


def read_kept(cur, names, called, release=None) -> dict:
    """Every row as `kept` makes them, one kind read and made ids at a time: the strings of one
    kind alive at once (all kinds' at 11,282 files: ~90 MB, held under the graph load's peak). Each
    statement's freed memory is handed back as it ends: at 10,740 files the five statements kept
    ~460 MB between them (BENCHMARKS.md bp); `release` (graph/impact.py `load`) runs after each."""
    purging, tables, out = Purging(cur), (names, called), {}
    for kind in _KEEP:
        if kind in _CHUNKED:
            out[kind] = _concat([_KEEP[kind](chunk, tables)
                                 for chunk in test_reads.unresolved_row_chunks(purging, kind, CHUNK_ROWS, release)])
        else:
            out[kind] = _KEEP[kind](test_reads.unresolved_rows(purging, (kind,))[kind], tables)
        if release is not None:
            release(cur)
    return _with_counts(out, tables)


CHUNK_ROWS = 16_384  # the rows of a large kind made ids at a time (`read_kept`)
_CHUNKED = ("methods", "untyped", "raised", "silent")  # kinds kept as id columns: chunks concatenate


def follow(old, cur, paths: list[str], is_test: dict[str, bool], same_files: bool,
           names_before: set[str], names_now: set[str]) -> tuple[dict, dict]:
    """(the rows to keep with the new graph, `unresolved_calls` as test_reads gives them).
    `paths`: the files changed or touched; `is_test`: their test flags now (absent: deleted);
    `same_files`: no file was added or deleted and no test flag changed."""
    before, names, called = old.unresolved_rows, old.table, old.calls
    if not same_files or len(paths) > MAX_PATHS:
        rows = read_kept(cur, names, called)
    else:
        rows = _update(before, cur, paths, is_test, names_before, names_now)
    # a kind whose rows stayed keeps the last graph's columns (sorting ~50,000 rows: ~30 ms)
    moved = {kind for kind in KINDS if not _unchanged(kind, rows, before)}
    now = calls(rows, moved)
    return rows, {kind: now[kind] if kind in moved else old.unresolved_calls[kind] for kind in KINDS}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[c], b[c]) for c in a)


KINDS = ("tests", "dispatch", "untyped", "classes", "raised", "silent")


def _table(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Rows as columns of codes, distinct, in the order of their columns (the same rows: the same arrays)."""
    if not len(next(iter(columns.values()))):
        return columns
    order = np.lexsort(tuple(columns[c] for c in reversed(columns)))
    columns = {c: v[order] for c, v in columns.items()}
    new = np.ones(len(order), dtype=bool)
    new[1:] = np.logical_or.reduce([v[1:] != v[:-1] for v in columns.values()])
    return {c: v[new] for c, v in columns.items()}


def _concat(parts: list[dict]) -> dict[str, np.ndarray]:
    return _table({c: np.concatenate([p[c] for p in parts]) for c in parts[0]})


def _where(rows: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    return {c: v[keep] for c, v in rows.items()}


def _id_rows(tables: tuple, read: dict, on_self: bool = True, named: bool = True) -> dict[str, np.ndarray]:
    """`untyped` rows (or `raised` rows: `on_self` False, no `read` either; `silent` rows: neither, nor
    `named`) as ids of the tables."""
    names, called = tables
    columns = {"path": names, "src": names, **({"name": called} if named else {})}
    flags = ("on_self", "read") if on_self else ()
    if not read or not len(read["path"]):
        return {**{c: np.zeros(0, np.int32) for c in columns}, **{f: np.zeros(0, bool) for f in flags}}
    return _table({**{c: table.intern(read[c].tolist()) for c, table in columns.items()},
                   **{f: np.asarray(read[f], dtype=bool) for f in flags}})


def kept(read: dict, names, called) -> dict:
    """The rows to keep from a whole read (store/test_reads.py `unresolved_rows`): ids of `names`
    (nodes) and `called` (call names), the graph's tables (`tables`: the two, whose ids they are)."""
    tables = (names, called)
    return _with_counts({kind: _KEEP[kind](read[kind], tables) for kind in _KEEP}, tables)


def _methods(read: dict, tables: tuple) -> dict[str, np.ndarray]:
    names, called = tables
    return _table({"path": names.intern(read["path"].tolist()), "name": called.intern(read["name"].tolist())})


# each kind as it is kept, in this order (names unknown to the tables are added in it)
_KEEP = {"methods": _methods,
         "tests": lambda read, _tables: _tests_by_path(read),
         "dispatch": lambda read, _tables: set(zip(read["path"].tolist(), read["name"].tolist(), read["src"].tolist())),
         "untyped": lambda read, tables: _id_rows(tables, read),
         "raised": lambda read, tables: _id_rows(tables, read, False),
         "silent": lambda read, tables: _id_rows(tables, read, False, False),
         "classes": lambda read, tables: _classes_by_path(tables[0], read["id"].tolist()),
         "declared": lambda read, _tables: dict(zip(read["path"].tolist(), read["fp"].tolist()))}


def _with_counts(rows: dict, tables: tuple) -> dict:
    counted, counts = np.unique(rows["methods"]["name"], return_counts=True)
    return {**rows, "method_files": dict(zip(counted.tolist(), counts.tolist())), "tables": tables}


def _by_path(pairs) -> dict[str, frozenset]:
    """(path, row) pairs as each path's rows: an edit replaces its files' groups, never scans every row
    (a set of every class filtered by path took ~25 ms an edit at 10,740 files). No group is empty, so
    two are equal exactly when their rows are."""
    groups: dict[str, set] = {}
    for path, row in pairs:
        groups.setdefault(path, set()).add(row)
    return {path: frozenset(rows) for path, rows in groups.items()}


def _tests_by_path(read: dict) -> dict[str, frozenset]:
    return _by_path(zip(read["path"].tolist(), zip(read["src"].tolist(), read["module"].tolist(),
                                                   np.asarray(read["held"], dtype=bool).tolist())))


def _classes_by_path(names, ids: list[str]) -> dict[str, tuple]:
    """Each file's classes as the sorted ids of their names (as strings: ~14 MB at 10,740 files)."""
    found = _by_path(zip((c.partition("::")[0] for c in ids), names.intern(ids).tolist()))
    return {path: tuple(sorted(group)) for path, group in found.items()}


def _unchanged(kind: str, rows: dict, before: dict) -> bool:
    if not all(a is b for a, b in zip(rows["tables"], before["tables"])):  # ids compare only in the same tables
        return False
    if kind in ("untyped", "raised", "silent"):
        return _same(rows[kind], before[kind])
    return rows[kind] == before[kind]


def _update(rows: dict, cur, paths: list[str], is_test: dict[str, bool], names_before: set[str],
            names_now: set[str]) -> dict:
    tables = names, called = rows["tables"]
    redo = set(paths)
    gone_names = names_before - names_now  # may be undefined anywhere now: read by name
    drop_names = names_now | gone_names
    tests, classes = dict(rows["tests"]), dict(rows["classes"])
    for path in redo:
        tests.pop(path, None)
        classes.pop(path, None)
    dispatch = {r for r in rows["dispatch"] if r[0] not in redo and r[1] not in drop_names}
    redo_codes = names.intern(paths)
    untyped = [_where(rows["untyped"], ~np.isin(rows["untyped"]["path"], redo_codes))]
    raised = [_where(rows["raised"], ~np.isin(rows["raised"]["path"], redo_codes))]
    silent = [_where(rows["silent"], ~np.isin(rows["silent"]["path"], redo_codes))]
    methods = [_where(rows["methods"], ~np.isin(rows["methods"]["path"], redo_codes))]
    # how many files define a method of each name, kept (not derived: np.setxor1d of the names
    # before and after took 30 ms an edit at 11,282 files)
    counts = dict(rows["method_files"])
    flipped = set()  # names that became a method somewhere, or stopped being one anywhere
    for path, code in zip(paths, redo_codes.tolist()):
        had = set(rows["methods"]["name"][rows["methods"]["path"] == code].tolist())
        read = test_reads.unresolved_rows_of(cur, path, is_test[path]) if path in is_test else None
        has = set()
        if read is not None:
            if is_test[path]:
                tests.update(_tests_by_path(read["tests"]))
            else:
                dispatch.update(zip(read["dispatch"]["path"].tolist(), read["dispatch"]["name"].tolist(),
                                    read["dispatch"]["src"].tolist()))
            untyped.append(_id_rows(tables, read["untyped"]))
            raised.append(_id_rows(tables, read["raised"], False))
            silent.append(_id_rows(tables, read["silent"], False, False))
            sym, made = read["symbols"], set()
            for kind, sym_id, name in zip(sym["kind"].tolist(), sym["id"].tolist(), sym["name"].tolist()):
                if kind == "class":
                    made.add(sym_id)
                else:
                    has.add(name)
            classes.update(_classes_by_path(names, sorted(made)))
        has = set(called.intern(sorted(has)).tolist())
        methods.append({"path": np.full(len(has), code, dtype=np.int32), "name": np.array(sorted(has), dtype=np.int32)})
        for name in had - has:
            counts[name] -= 1
            if not counts[name]:
                del counts[name]
                flipped.add(name)
        for name in has - had:
            counts[name] = counts.get(name, 0) + 1
            if counts[name] == 1:
                flipped.add(name)
    declared = _declared_again(rows, cur, [p for p in paths if is_test.get(p) is False], tests, redo)
    if gone_names:
        read = test_reads.rows_named(cur, "dispatch", sorted(gone_names))
        dispatch.update(zip(read["path"].tolist(), read["name"].tolist(), read["src"].tolist()))
    untyped = _concat(untyped)
    if flipped:  # rows anywhere: those of these names again
        untyped = _concat([_where(untyped, ~np.isin(untyped["name"], sorted(flipped))),
                           _id_rows(tables, test_reads.rows_named(cur, "untyped", sorted(called[c] for c in flipped)))])
    return {"tests": tests, "dispatch": dispatch, "untyped": untyped, "classes": classes, "raised": _concat(raised),
            "silent": _concat(silent), "methods": _concat(methods), "method_files": counts, "tables": tables,
            "declared": declared}


def _declared_again(rows: dict, cur, code: list[str], tests: dict, redo: set[str]) -> dict[str, str]:
    """The files' declarations (store/test_reads.py `declarations`) now; where those of a file in `code`
    moved, the `tests` rows of the test files importing names from it read again into `tests`."""
    declared, now = dict(rows["declared"]), test_reads.declarations(cur, code) if code else {}
    moved = [path for path in code if now.get(path) != declared.get(path)]
    for path in code:
        declared.pop(path, None)
    declared.update(now)
    for path in sorted(test_reads.importing_tests(cur, moved) - redo) if moved else ():
        tests.pop(path, None)
        tests.update(_tests_by_path(test_reads.tests_of(cur, path)))
    return declared


def calls(rows: dict, kinds=KINDS) -> dict[str, dict[str, np.ndarray]]:
    """What test_reads.unresolved_calls reads, from the kept rows (of `kinds`): `tests` and
    `dispatch` as its strings in its order; `untyped`, `raised` and `classes` as ids of the rows'
    tables, distinct, in id order."""
    out = {}
    if "tests" in kinds:
        tests = sorted(frozenset().union(*rows["tests"].values()))
        out["tests"] = {"src": test_reads.object_column([r[0] for r in tests]), "module": test_reads.object_column([r[1] for r in tests]),
                        "held": np.array([r[2] for r in tests], dtype=bool)}
    if "dispatch" in kinds:
        dispatch = sorted({(src, path) for path, _name, src in rows["dispatch"]})
        out["dispatch"] = {"src": test_reads.object_column([r[0] for r in dispatch]), "path": test_reads.object_column([r[1] for r in dispatch])}
    if "untyped" in kinds:
        untyped = rows["untyped"]
        out["untyped"] = _table({"src": untyped["src"], "name": untyped["name"], "on_self": untyped["on_self"],
                                 "read": untyped["read"]})
    if "raised" in kinds:
        out["raised"] = _table({"src": rows["raised"]["src"], "name": rows["raised"]["name"]})
    if "silent" in kinds:
        out["silent"] = {"src": np.unique(rows["silent"]["src"])}
    if "classes" in kinds:
        groups = rows["classes"].values()
        out["classes"] = {"id": np.unique(np.fromiter(itertools.chain.from_iterable(groups), dtype=np.int32,
                                                      count=sum(map(len, groups))))}
    return out
