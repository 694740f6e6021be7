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
"""

from __future__ import annotations

import numpy as np

from memory_lsp.store import test_reads

MAX_PATHS = 16  # beyond these, one whole read (~250 ms) is about as fast as a read per file


def follow(old, cur, paths: list[str], is_test: dict[str, bool], same_files: bool,
           names_before: set[str], names_now: set[str]) -> tuple[dict, dict]:
    """(the rows to keep with the new graph, `unresolved_calls` as test_reads gives them).
    `paths`: the files changed or touched; `is_test`: their test flags now (absent: deleted);
    `same_files`: no file was added or deleted and no test flag changed."""
    before = getattr(old, "unresolved_rows", None)
    if before is None or not same_files or len(paths) > MAX_PATHS:
        rows = _sets(test_reads.unresolved_rows(cur))
    else:
        rows = _update(before, cur, paths, is_test, names_before, names_now)
    if before is None:  # the last graph was read whole: its columns stay where equal (graph/tests_carry.py)
        now = calls(rows)
        return rows, {kind: old.unresolved_calls[kind] if _same(now[kind], old.unresolved_calls.get(kind))
                      else now[kind] for kind in KINDS}
    # a kind whose rows stayed keeps the last graph's columns (sorting ~50,000 rows: ~30 ms)
    moved = {kind for kind in KINDS if rows[kind] != before[kind]}
    now = calls({kind: rows[kind] if kind in moved else type(rows[kind])() for kind in KINDS})
    return rows, {kind: now[kind] if kind in moved else old.unresolved_calls[kind] for kind in KINDS}


def _same(a: dict, b: dict | None) -> bool:
    return b is not None and a.keys() == b.keys() and all(np.array_equal(a[c], b[c]) for c in a)


KINDS = ("tests", "dispatch", "untyped", "classes")


def _sets(read: dict) -> dict:
    t, d, u = read["tests"], read["dispatch"], read["untyped"]
    methods: dict[str, set[str]] = {}
    for path, name in zip(read["methods"]["path"].tolist(), read["methods"]["name"].tolist()):
        methods.setdefault(path, set()).add(name)
    return {"tests": set(zip(t["path"].tolist(), t["src"].tolist(), t["module"].tolist())),
            "dispatch": set(zip(d["path"].tolist(), d["name"].tolist(), d["src"].tolist())),
            "untyped": _by_path(_untyped(u)), "classes": set(read["classes"]["id"].tolist()),
            "methods": methods, "method_files": _counts(methods)}


def _untyped(read: dict) -> set:
    if not read:
        return set()
    return set(zip(read["path"].tolist(), read["src"].tolist(), read["name"].tolist(),
                   [bool(v) for v in read["on_self"].tolist()]))


def _by_path(rows: set) -> dict[str, frozenset]:
    """`untyped` rows by file (the largest kind, ~50,000 rows on the stdlib): an edit replaces
    its files' sets, the others stay the same objects (rebuilding the whole set took ~35 ms)."""
    out: dict[str, set] = {}
    for row in rows:
        out.setdefault(row[0], set()).add(row)
    return {path: frozenset(r) for path, r in out.items()}


def _counts(methods: dict[str, set[str]]) -> dict[str, int]:
    """name -> how many files define a method of that name."""
    counts: dict[str, int] = {}
    for names in methods.values():
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _update(rows: dict, cur, paths: list[str], is_test: dict[str, bool], names_before: set[str],
            names_now: set[str]) -> dict:
    redo = set(paths)
    gone_names = names_before - names_now  # may be undefined anywhere now: read by name
    drop_names = names_now | gone_names
    tests = {r for r in rows["tests"] if r[0] not in redo}
    dispatch = {r for r in rows["dispatch"] if r[0] not in redo and r[1] not in drop_names}
    untyped = {path: r for path, r in rows["untyped"].items() if path not in redo}
    classes = {c for c in rows["classes"] if c.partition("::")[0] not in redo}
    methods, counts = dict(rows["methods"]), dict(rows["method_files"])
    flipped = set()  # names that became a method somewhere, or stopped being one anywhere
    for path in paths:
        had = methods.pop(path, set())
        read = test_reads.unresolved_rows_of(cur, path, is_test[path]) if path in is_test else None
        has = set()
        if read is not None:
            if is_test[path]:
                tests.update(zip(read["tests"]["path"].tolist(), read["tests"]["src"].tolist(),
                                 read["tests"]["module"].tolist()))
            else:
                dispatch.update(zip(read["dispatch"]["path"].tolist(), read["dispatch"]["name"].tolist(),
                                    read["dispatch"]["src"].tolist()))
            untyped.update(_by_path(_untyped(read["untyped"])))
            sym = read["symbols"]
            for kind, sym_id, name in zip(sym["kind"].tolist(), sym["id"].tolist(), sym["name"].tolist()):
                if kind == "class":
                    classes.add(sym_id)
                else:
                    has.add(name)
        if has:
            methods[path] = has
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
    if flipped:  # rows anywhere: the whole kind again
        rows_now = {r for rs in untyped.values() for r in rs if r[2] not in flipped}
        untyped = _by_path(rows_now | _untyped(test_reads.rows_named(cur, "untyped", sorted(flipped))))
    return {"tests": tests, "dispatch": dispatch, "untyped": untyped, "classes": classes,
            "methods": methods, "method_files": counts}


def calls(rows: dict) -> dict[str, dict[str, np.ndarray]]:
    """`test_reads.unresolved_calls` from the kept rows: distinct, in its order."""
    tests = sorted({(src, module) for _path, src, module in rows["tests"]})
    dispatch = sorted({(src, path) for path, _name, src in rows["dispatch"]})
    untyped = sorted({(src, name, on_self) for rs in rows["untyped"].values() for _path, src, name, on_self in rs})
    return {"tests": {"src": _column([r[0] for r in tests]), "module": _column([r[1] for r in tests])},
            "dispatch": {"src": _column([r[0] for r in dispatch]), "path": _column([r[1] for r in dispatch])},
            "untyped": {"src": _column([r[0] for r in untyped]), "name": _column([r[1] for r in untyped]),
                        "on_self": np.array([r[2] for r in untyped], dtype=bool)},
            "classes": {"id": _column(sorted(rows["classes"]))}}


def _column(values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
