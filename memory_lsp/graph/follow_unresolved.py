"""Test selection's unresolved calls (store/test_reads.py) kept across the graphs that follow an
edit: the rows of the files an edit touched are read again, the others kept.

Read whole that is 200-250 ms of CPU on the stdlib (every call site against every CALLS edge);
one file's rows, ~10-25 ms. What a row depends on, from the queries' text:
- its own file: the call sites, the imports, the test flag, the CALLS edges made there. A file
  whose content or test flag changed is among the changed files; a file whose edges changed (a
  call re-resolved elsewhere, an import now landing on another file) among the touched ones.
- other files' existence and test flags (`files m`, `files f`): any file added, deleted or
  turned test or not reads the rows whole again.
- for `dispatch`, whether the call's name is defined anywhere (`symbols`): only the changed
  files' symbols moved, so only names they defined before or define now can change that.
  A name defined now has no row anywhere (dropped, no read); a name no longer defined by them
  may have rows in any file (read by name).
- for `untyped`, whether the call's name is a method somewhere: the methods of every file are
  kept by file; a name that becomes a method, or stops being one, anywhere is read by name.
- `classes` (the class symbols) move with the changed files' symbols only.

No row holds a line: when every run since the last graph only moved lines (a comment typed: the
index's refs version, store/code.py, stayed), graph/follow.py keeps the last graph's rows unread.

A graph loaded whole reads every row (`read_whole`) and each graph that follows keeps them: the
first edit after a load reads only its files' rows. (It read them all, when the load kept none:
at 10,740 files ~1.9 s and a peak of ~1 GB, the graph already held; kept from the load, ~+18 MB.)
The two large kinds (`untyped`, and the methods of each file) are held as columns of codes into
`Words`, each distinct string once. The graph holds `unresolved_calls`, made from the rows
(`calls`): its `untyped` and `classes` columns as ids of its names tables.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.store import test_reads
from memory_lsp.store.allocator import Purging

MAX_PATHS = 16  # beyond these, one whole read (~250 ms) is about as fast as a read per file


def read_whole(cur) -> dict:
    """Every row, as a graph loaded whole keeps them. Each statement's freed memory is handed back
    as it ends: at 10,740 files the five statements kept ~460 MB between them (BENCHMARKS.md bp)."""
    return _sets(test_reads.unresolved_rows(Purging(cur)))


def follow(old, cur, paths: list[str], is_test: dict[str, bool], same_files: bool,
           names_before: set[str], names_now: set[str]) -> tuple[dict, dict]:
    """(the rows to keep with the new graph, `unresolved_calls` as test_reads gives them).
    `paths`: the files changed or touched; `is_test`: their test flags now (absent: deleted);
    `same_files`: no file was added or deleted and no test flag changed."""
    before = old.unresolved_rows
    if not same_files or len(paths) > MAX_PATHS:
        rows = read_whole(cur)
    else:
        rows = _update(before, cur, paths, is_test, names_before, names_now)
    # a kind whose rows stayed keeps the last graph's columns (sorting ~50,000 rows: ~30 ms)
    moved = {kind for kind in KINDS if not _unchanged(kind, rows, before)}
    now = calls(rows, old.table, old.calls, moved)
    return rows, {kind: now[kind] if kind in moved else old.unresolved_calls[kind] for kind in KINDS}


def _same(a: dict, b: dict | None) -> bool:
    return b is not None and a.keys() == b.keys() and all(np.array_equal(a[c], b[c]) for c in a)


KINDS = ("tests", "dispatch", "untyped", "classes")


class Words:
    """Each distinct string of the kept `untyped` and `methods` rows once, numbered as first seen;
    shared by the rows of the graphs that follow (they only grow). Those rows are codes: at 11,282
    files their ~178,000 and ~132,000 rows were 78 MB as Python tuples, sets and a string per
    row, which the server kept from its first edit on."""

    def __init__(self):
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        self._ids_in: dict[int, tuple] = {}  # id(a names table) -> (it, each code's id there or -1)

    def codes(self, values) -> np.ndarray:
        ids, words = self.ids, self.words
        out = np.empty(len(values), dtype=np.int32)
        for k, v in enumerate(values):
            i = ids.get(v)
            if i is None:
                v = _fresh(v)
                i = ids[v] = len(words)
                words.append(v)
            out[k] = i
        return out

    def ids_in(self, table, codes: np.ndarray) -> np.ndarray:
        """The ids in `table` (a graph's `Names`) of the words `codes` number, new names added to it
        (a followed graph's new symbols, which it adds as it is built); each word looked up once
        per table (a string round trip of the 175,000 untyped calls at 11,282 files: ~0.3 s)."""
        known = self._ids_in.get(id(table))
        if known is None or known[0] is not table:
            known = self._ids_in[id(table)] = (table, np.zeros(0, dtype=np.int32))
        ids = known[1]
        if len(ids) < len(self.words):
            ids = np.concatenate([ids, np.full(len(self.words) - len(ids), -1, dtype=np.int32)])
            self._ids_in[id(table)] = (table, ids)
        wanted = np.unique(codes[ids[codes] < 0])
        if len(wanted):
            ids[wanted] = table.intern([self.words[c] for c in wanted.tolist()])
        return ids[codes]


def _fresh(value):
    """A string of its own: the read's strings sit among millions that die with the read, and the
    ~110,000 kept (at 11,282 files) held 36 of Python's 1 MiB arenas from being handed back: the
    server after five edits 426 -> 392 MB (BENCHMARKS.md ba)."""
    return value.encode().decode() if type(value) is str else value


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


def _untyped(words: Words, read: dict) -> dict[str, np.ndarray]:
    if not read or not len(read["path"]):
        return {"path": np.zeros(0, np.int32), "src": np.zeros(0, np.int32), "name": np.zeros(0, np.int32),
                "on_self": np.zeros(0, bool)}
    return _table({"path": words.codes(read["path"].tolist()), "src": words.codes(read["src"].tolist()),
                   "name": words.codes(read["name"].tolist()), "on_self": np.asarray(read["on_self"], dtype=bool)})


def _sets(read: dict) -> dict:
    t, d, words = read["tests"], read["dispatch"], Words()
    methods = _table({"path": words.codes(read["methods"]["path"].tolist()),
                      "name": words.codes(read["methods"]["name"].tolist())})
    names, counts = np.unique(methods["name"], return_counts=True)
    return {"tests": _tests_by_path(t),
            "dispatch": set(zip(d["path"].tolist(), d["name"].tolist(), d["src"].tolist())),
            "untyped": _untyped(words, read["untyped"]),
            "classes": _classes_by_path(read["classes"]["id"].tolist()),
            "methods": methods, "method_files": dict(zip(names.tolist(), counts.tolist())), "words": words}


def _by_path(pairs) -> dict[str, frozenset]:
    """(path, row) pairs as each path's rows: an edit replaces its files' groups, never scans every row
    (a set of every class filtered by path took ~25 ms an edit at 10,740 files). No group is empty, so
    two are equal exactly when their rows are."""
    groups: dict[str, set] = {}
    for path, row in pairs:
        groups.setdefault(path, set()).add(row)
    return {path: frozenset(rows) for path, rows in groups.items()}


def _tests_by_path(read: dict) -> dict[str, frozenset]:
    return _by_path(zip(read["path"].tolist(), zip(read["src"].tolist(), read["module"].tolist())))


def _classes_by_path(ids) -> dict[str, frozenset]:
    return _by_path((c.partition("::")[0], c) for c in ids)


def _unchanged(kind: str, rows: dict, before: dict) -> bool:
    if kind == "untyped":  # codes compare only under the same words (a whole read numbers them anew)
        return rows["words"] is before["words"] and _same(rows[kind], before[kind])
    return rows[kind] == before[kind]


def _update(rows: dict, cur, paths: list[str], is_test: dict[str, bool], names_before: set[str],
            names_now: set[str]) -> dict:
    words = rows["words"]
    redo = set(paths)
    gone_names = names_before - names_now  # may be undefined anywhere now: read by name
    drop_names = names_now | gone_names
    tests, classes = dict(rows["tests"]), dict(rows["classes"])
    for path in redo:
        tests.pop(path, None)
        classes.pop(path, None)
    dispatch = {r for r in rows["dispatch"] if r[0] not in redo and r[1] not in drop_names}
    redo_codes = words.codes(paths)
    untyped = [_where(rows["untyped"], ~np.isin(rows["untyped"]["path"], redo_codes))]
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
            untyped.append(_untyped(words, read["untyped"]))
            sym, made = read["symbols"], set()
            for kind, sym_id, name in zip(sym["kind"].tolist(), sym["id"].tolist(), sym["name"].tolist()):
                if kind == "class":
                    made.add(sym_id)
                else:
                    has.add(name)
            classes.update(_classes_by_path(made))
        has = set(words.codes(sorted(has)).tolist())
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
    if gone_names:
        read = test_reads.rows_named(cur, "dispatch", sorted(gone_names))
        dispatch.update(zip(read["path"].tolist(), read["name"].tolist(), read["src"].tolist()))
    untyped = _concat(untyped)
    if flipped:  # rows anywhere: those of these names again
        untyped = _concat([_where(untyped, ~np.isin(untyped["name"], sorted(flipped))),
                           _untyped(words, test_reads.rows_named(cur, "untyped", sorted(words.words[c] for c in flipped)))])
    return {"tests": tests, "dispatch": dispatch, "untyped": untyped, "classes": classes,
            "methods": _concat(methods), "method_files": counts, "words": words}


def calls(rows: dict, names, calls, kinds=KINDS) -> dict[str, dict[str, np.ndarray]]:
    """`as_ids(test_reads.unresolved_calls)` from the kept rows (of `kinds`), ids of `names` and
    `calls` (the graph's tables): distinct, in its order."""
    out = {}
    if "tests" in kinds:
        tests = sorted(frozenset().union(*rows["tests"].values()))
        out["tests"] = {"src": _column([r[0] for r in tests]), "module": _column([r[1] for r in tests])}
    if "dispatch" in kinds:
        dispatch = sorted({(src, path) for path, _name, src in rows["dispatch"]})
        out["dispatch"] = {"src": _column([r[0] for r in dispatch]), "path": _column([r[1] for r in dispatch])}
    if "untyped" in kinds:
        untyped, words = rows["untyped"], rows["words"]
        out["untyped"] = _table({"src": words.ids_in(names, untyped["src"]), "name": words.ids_in(calls, untyped["name"]),
                                 "on_self": untyped["on_self"]})
    if "classes" in kinds:
        out["classes"] = {"id": np.unique(names.intern(sorted(c for group in rows["classes"].values() for c in group)))}
    return out


def _column(values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
