"""The impact graph follows an edit: after a re-index of a few files, the next graph is built
from the last one and the rows that changed, not read whole again (seconds at 10,000 files).

What changed is found, not assumed. Edges: every edge's rowid and 64-bit fingerprint (DuckDB's
hash of the columns the graph reads, kept in the row: store/edges.py) in table order, against those
the last graph holds; an edge
at a rowid the last graph read with the same fingerprint keeps its columns from there, the others
are read by rowid (a checkpoint may renumber the rows: then they all are, or the graph is read
whole). So
an edge re-resolved anywhere (a call in another file that now resolves elsewhere, a DOCUMENTS
edge) is seen, and the new edge list is the table's, in its order (ties in score keep that
order, as a fresh load does). Files: each file's content hash and test flag; a changed, new or
deleted file's symbol rows and call sites are read again, and so are the call sites of every
file whose CALLS edges changed (an edge deleted and made again with the same fingerprint, as an
editor's run re-makes the edges into a re-parsed file, changed nothing of its file). The steps
(CSR) are the last graph's with the new edges' merged in (graph/steps.py). Confidences are codes
into a table the new edges' and call sites' values are appended to (graph/confidences.py).

Names only grow: a graph shares its names with the graphs that follow it (a name nothing uses
any more answers as a fresh load's unknown name does). `follow` gives up (None: load whole)
when a large part changed.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.graph import confidences, follow_unresolved, tests_carry
from memory_lsp.graph.impact import EDGE_COLUMNS, EDGE_TYPES, ImpactGraph
from memory_lsp.graph.steps import among
from memory_lsp.store import graph_reads, test_reads

MAX_CHANGED_FILES = 400  # beyond these a whole load is about as fast
MAX_NEW_EDGES = 0.2  # share of the edges read again beyond which a whole load is about as fast


def follow(old: ImpactGraph, store, release=None) -> ImpactGraph | None:
    """The graph of the index as it is now, from `old` and what changed since; None when so
    much changed that a whole load is the better way."""
    with graph_reads.graph_transaction(store.cursor()) as cur:
        now = graph_reads.edge_fingerprints(cur)
        new_fp, rowid = np.asarray(now["fp"]).astype(np.uint64), np.asarray(now["r"]).astype(np.int64)
        source = _matches(old.e, rowid, new_fp)
        fresh_at = np.flatnonzero(source < 0)
        if len(fresh_at) > MAX_NEW_EDGES * max(len(new_fp), 1000):
            return None
        files_now = graph_reads.files_state(cur)
        changed, files = _files(old, files_now)
        if len(changed) > MAX_CHANGED_FILES:
            return None
        fresh = graph_reads.edges_at(cur, rowid[fresh_at]) if len(fresh_at) else None
        edges, resolved_in, touched = _edges(old, new_fp, rowid, source, fresh_at, fresh)
        sites_of = sorted(set(changed) | resolved_in)
        symbols = graph_reads.symbols_of_files(cur, changed) if changed else None
        sites = graph_reads.call_sites_of_files(cur, sites_of) if sites_of else None
        version = graph_reads.refs_version(cur)
        if version is not None and version == old.refs_version and old.unresolved_calls:
            # every run since moved lines only (a comment typed): test selection's unresolved calls,
            # which hold no lines, are the last graph's
            rows, unresolved = old.unresolved_rows, dict(old.unresolved_calls)
        else:  # the rows of the files changed or touched read again
            redo = sorted((set(changed) | touched) - {None})
            rows, unresolved = follow_unresolved.follow(old, cur, redo, _test_flags(files_now, redo),
                                                        _same_files(old, files_now), _names_before(old, changed),
                                                        _names_now(symbols))
        unresolved["reexports"] = test_reads.reexports_since(cur, (old.unresolved_calls or {}).get("reexports"))
    if release is not None:
        release(store.cursor())
    table = old.table
    old_to_new = np.full(len(old.e["fp"]), -1, dtype=np.int64)  # the kept edges' indexes now
    old_to_new[source[source >= 0]] = np.flatnonzero(source >= 0)
    calls, edges["confidences"] = _sites(old, sites_of, sites, edges["confidences"])
    graph = ImpactGraph(table, files, edges, _symbols(old, changed, symbols), calls,
                        following=(old, old_to_new, fresh_at))
    graph.unresolved_calls, graph.unresolved_rows, graph.refs_version = unresolved, rows, version
    tests_carry.carry_from(old, graph, old_to_new, fresh_at)
    return graph


def _test_flags(now: dict, paths: list[str]) -> dict[str, bool]:
    """The test flag of each of `paths` that is indexed now."""
    want = set(paths)
    return {p: bool(t) for p, t in zip(np.asarray(now["path"]).tolist(), np.asarray(now["is_test"]).tolist())
            if p in want}


def _same_files(old: ImpactGraph, now: dict) -> bool:
    """The same files as the last graph's, each with the same test flag."""
    before = np.sort(old.file_ph[~old.is_test[old.file_node]]), np.sort(old.file_ph[old.is_test[old.file_node]])
    ph, test = np.asarray(now["ph"]).astype(np.uint64), np.asarray(now["is_test"]).astype(bool)
    return np.array_equal(before[0], np.sort(ph[~test])) and np.array_equal(before[1], np.sort(ph[test]))


def _names_before(old: ImpactGraph, changed: list[str]) -> set[str]:
    """The names the changed files' symbols had in the last graph."""
    if not changed:
        return set()
    ids = old.sym_call[among(old.sym_path, old.table.intern(changed), len(old.table))]
    return {old.calls[i] for i in np.unique(ids[ids >= 0]).tolist()}


def _names_now(rows: dict | None) -> set[str]:
    return set() if rows is None else {n for n in np.asarray(rows["name"]).tolist() if n is not None}


def _matches(old: dict, rowid: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """For each edge now, the index of the old edge at the same rowid with the same fingerprint,
    or -1 (a new row; or every row, after a checkpoint renumbered them). Both lists are in rowid
    order, so the search runs over sorted values."""
    if not len(old["r"]) or not len(rowid):
        return np.full(len(rowid), -1, dtype=np.int64)
    top = int(max(old["r"][-1], rowid[-1]))
    if 0 <= int(min(old["r"][0], rowid[0])) and top < 4 * len(rowid) + 1024:
        # rowids are dense (DuckDB numbers rows in order, deletes leave gaps until a checkpoint):
        # a table from rowid to old index, where searching every rowid took ~10 ms on the stdlib
        where = np.full(top + 1, -1, dtype=np.int32)
        where[old["r"]] = np.arange(len(old["r"]), dtype=np.int32)
        at = where[rowid].astype(np.int64)
        same = at >= 0
        same[same] = old["fp"][at[same]] == fp[same]
        at[~same] = -1
        return at
    at = np.minimum(np.searchsorted(old["r"], rowid), len(old["r"]) - 1)
    return np.where((old["r"][at] == rowid) & (old["fp"][at] == fp), at, -1)


def _files(old: ImpactGraph, now: dict) -> tuple[list[str], dict]:
    """(paths whose rows may have changed: new, edited or deleted files; the files' columns)."""
    paths = np.asarray(now["path"]).tolist()
    fp, ph = np.asarray(now["fp"]).astype(np.uint64), np.asarray(now["ph"]).astype(np.uint64)
    # a file known before keeps its node (found by the hash of its path: a name lookup per file
    # costs ~1 s at 10,000 files); new files' paths are interned
    node = np.full(len(paths), -1, dtype=np.int64)
    if len(old.file_ph):
        order = np.argsort(old.file_ph)
        at = np.minimum(np.searchsorted(old.file_ph[order], ph), len(order) - 1)
        hit = old.file_ph[order[at]] == ph
        node[hit] = old.file_node[order[at[hit]]]
    new = np.flatnonzero(node < 0)
    node[new] = old.table.intern([paths[k] for k in new.tolist()])
    before = np.zeros(len(old.table), dtype=np.uint64)
    was = np.zeros(len(before), dtype=bool)
    before[old.file_node], was[old.file_node] = old.file_fp, True
    differs = ~was[node] | (before[node] != fp)
    gone = old.file_node[~among(old.file_node, node, len(old.table))]
    changed = [paths[k] for k in np.flatnonzero(differs).tolist()] + [old.names[i] for i in gone.tolist()]
    order = np.argsort(node, kind="stable")
    return changed, {"node": node[order], "is_test": np.asarray(now["is_test"])[order], "fp": fp[order],
                     "ph": ph[order]}


def _edges(old: ImpactGraph, new_fp, rowid, source, fresh_at, fresh) -> tuple[dict, set[str], set[str]]:
    """The edge columns in the table's order now, the files whose CALLS edges changed, and the
    files whose edges of any kind changed."""
    kinds, strategies = list(old.kinds), list(old.strategies)
    n = len(new_fp)
    kept = source >= 0
    at = np.maximum(source, 0)  # one gather per column; the fresh rows are overwritten below
    out = {column: np.take(old.e[column], at) for column in EDGE_COLUMNS} if len(old.e["fp"]) else \
        {column: np.zeros(n, dtype=dtype) for column, dtype in zip(EDGE_COLUMNS, EDGE_TYPES)}
    out["confidences"] = old.confidences
    resolved_in: set[str] = set()
    calls = old.kinds.index("CALLS") if "CALLS" in old.kinds else -1
    removed = np.ones(len(old.e["fp"]), dtype=bool)
    removed[source[kept]] = False
    # an edge deleted and made again the same (a re-parsed file's IMPORTS into it, say) moved no
    # row of its file: only edges whose fingerprint is not among the other side's count
    made = ~np.isin(new_fp[fresh_at], old.e["fp"][removed])  # fresh rows unlike every removed one
    out_at = np.flatnonzero(removed)  # a few rows: the test runs there only
    removed[out_at] = ~np.isin(old.e["fp"][out_at], new_fp[fresh_at])
    resolved_in.update(old.names[i] for i in np.unique(old.e["src_path"][removed & (old.e["kind"] == calls)]).tolist())
    touched = {old.names[i] for i in np.unique(old.e["src_path"][removed]).tolist()}
    if fresh is not None:
        if not np.array_equal(np.asarray(fresh["fp"]).astype(np.uint64), new_fp[fresh_at]):
            raise RuntimeError("the edges changed while they were read")  # one transaction: never
        for column in ("src", "dst", "src_path", "dst_path"):
            out[column][fresh_at] = old.table.intern(np.asarray(fresh[column]).tolist())
        for column, table in (("kind", kinds), ("strategy", strategies)):
            values = np.asarray(fresh[column]).tolist()
            for v in values:
                if v not in table:
                    table.append(v)
            out[column][fresh_at] = [table.index(v) for v in values]
        for column in ("line", "score", "fp"):
            out[column][fresh_at] = np.asarray(fresh[column])
        out["confidences"], codes = confidences.coded(old.confidences, fresh["confidence"])
        out["confidence"] = out["confidence"].astype(codes.dtype, copy=False)  # wider past 256 values
        out["confidence"][fresh_at] = codes
        made_src = np.asarray(fresh["src_path"])[made].tolist()
        resolved_in.update(p for p, k in zip(made_src, np.asarray(fresh["kind"])[made].tolist()) if k == "CALLS")
        touched.update(made_src)
    out["r"] = rowid
    out["kinds"], out["strategies"] = kinds, strategies
    return out, resolved_in, touched


def _symbols(old: ImpactGraph, changed: list[str], rows: dict | None) -> dict:
    """The symbol rows of the files that did not change, then those of the changed files as read."""
    drop = old.table.intern(changed)
    keep = ~among(old.sym_path, drop, len(old.table))
    node, path, call = old.sym_node[keep], old.sym_path[keep], old.sym_call[keep]
    kinds, kind, start, end = list(old.sym_kinds), old.sym_kind[keep], old.sym_start[keep], old.sym_end[keep]
    if rows is not None and len(rows["id"]):
        kinds += sorted(set(np.asarray(rows["kind"]).tolist()) - set(kinds))
        code = {k: i for i, k in enumerate(kinds)}
        kind = np.concatenate([kind, np.array([code[k] for k in np.asarray(rows["kind"]).tolist()], dtype=np.uint8)])
        start, end = np.concatenate([start, rows["start"]]), np.concatenate([end, rows["end"]])
        node = np.concatenate([node, old.table.intern(np.asarray(rows["id"]).tolist())])
        path = np.concatenate([path, old.table.intern(np.asarray(rows["path"]).tolist())])
        names = np.asarray(rows["name"]).tolist()
        known = [k for k, v in enumerate(names) if v is not None]
        ids = np.full(len(names), -1, dtype=np.int32)  # a symbol without a name has no call sites
        ids[known] = old.calls.intern([names[k] for k in known])
        call = np.concatenate([call, ids])
    return {"node": node, "path": path, "call": call, "kind": kind, "start": start, "end": end, "kinds": kinds}


def _sites(old: ImpactGraph, paths: list[str], rows: dict | None, values: np.ndarray) -> tuple[dict, np.ndarray]:
    """The call sites of the other files, with those of `paths` as read now, sorted by name; and
    the confidences' `values` with those of the sites read appended."""
    keep = ~among(old.site_file, old.table.intern(paths), len(old.table))
    name, file, best = old.site_name[keep], old.site_file[keep], old.site_best[keep]
    if rows is not None and len(rows["name"]):
        new_name = old.calls.intern(np.asarray(rows["name"]).tolist())
        new_file = old.table.intern(np.asarray(rows["path"]).tolist())
        values, new_best = confidences.coded(values, rows["best"])
        order = np.argsort(new_name, kind="stable")
        at = np.searchsorted(name, new_name[order], side="right")
        name, file = np.insert(name, at, new_name[order]), np.insert(file, at, new_file[order])
        best = np.insert(best.astype(new_best.dtype, copy=False), at, new_best[order])  # np.insert keeps best's type
    return {"table": old.calls, "name": name, "file": file, "best": best}, values
