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
    if before is None:
        return rows, calls(rows)
    # a kind whose rows stayed keeps the last graph's columns (sorting ~5,000 rows: ~10 ms)
    now = calls({kind: rows[kind] if rows[kind] != before[kind] else set() for kind in rows})
    return rows, {kind: now[kind] if rows[kind] != before[kind] else old.unresolved_calls[kind] for kind in rows}


def _sets(read: dict) -> dict:
    t, d = read["tests"], read["dispatch"]
    return {"tests": set(zip(t["path"].tolist(), t["src"].tolist(), t["module"].tolist())),
            "dispatch": set(zip(d["path"].tolist(), d["name"].tolist(), d["src"].tolist()))}


def _update(rows: dict, cur, paths: list[str], is_test: dict[str, bool], names_before: set[str],
            names_now: set[str]) -> dict:
    redo = set(paths)
    gone_names = names_before - names_now  # may be undefined anywhere now: read by name
    drop_names = names_now | gone_names
    tests = {r for r in rows["tests"] if r[0] not in redo}
    dispatch = {r for r in rows["dispatch"] if r[0] not in redo and r[1] not in drop_names}
    for path in paths:
        if path not in is_test:
            continue  # deleted: no rows
        read = test_reads.unresolved_rows_of(cur, path, is_test[path])
        if is_test[path]:
            tests.update(zip(read["path"].tolist(), read["src"].tolist(), read["module"].tolist()))
        else:
            dispatch.update(zip(read["path"].tolist(), read["name"].tolist(), read["src"].tolist()))
    if gone_names:
        read = test_reads.dispatch_rows_named(cur, sorted(gone_names))
        dispatch.update(zip(read["path"].tolist(), read["name"].tolist(), read["src"].tolist()))
    return {"tests": tests, "dispatch": dispatch}


def calls(rows: dict) -> dict[str, dict[str, np.ndarray]]:
    """`test_reads.unresolved_calls` from the kept rows: distinct, in its order."""
    tests = sorted({(src, module) for _path, src, module in rows["tests"]})
    dispatch = sorted({(src, path) for path, _name, src in rows["dispatch"]})
    return {"tests": {"src": _column([r[0] for r in tests]), "module": _column([r[1] for r in tests])},
            "dispatch": {"src": _column([r[0] for r in dispatch]), "path": _column([r[1] for r in dispatch])}}


def _column(values: list[str]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
