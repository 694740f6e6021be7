"""Impact: what depends on a file or symbol, how (the path that explains it), and which tests.

The traversal runs over an in-memory adjacency built once from the edges table (a recursive CTE
over the same edges takes 12-113 ms). `ImpactGraph.load` is what a long-lived process (the
server) keeps and refreshes after a run. It is held compact: every node name interned once to an
integer id, the adjacency in CSR form (numpy arrays: one row of steps per node, their
confidences, scores, lines, kinds and strategies as parallel arrays), so its size is a few
dozen bytes per edge rather than a Python object each. It also holds what `impact` needs
besides the walk (which files and symbols exist, each file's symbols, and per called name the
best confidence of each call site) so no query runs per answer.

Direction: X depends on T when X IMPORTS/CALLS/INHERITS T, uses T as a pytest fixture
(USES_FIXTURE), when T DRIVES X, or when X and T CO_CHANGE. Tests are the test files whose tests
call into the target (graph/tests_reach.py).

Confidence: a dependent is as sure as the least sure edge on its path; a walk with
`min_confidence` does not cross edges below it. The default keeps what bench/bench_truth.py found
right at least 9 times in 10 (name-only guesses fall below it).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field

import numpy as np

from memory_lsp.graph import tests_reach
from memory_lsp.store import graph_reads, test_reads

DEPENDENCY_KINDS = ("IMPORTS", "CALLS", "INHERITS", "USES_FIXTURE")  # src depends on dst
DEFAULT_MIN_CONFIDENCE = 0.5
FORWARD_KINDS = ("DRIVES", "CO_CHANGES")  # dst is affected by src
NO_LINE = -1  # an edge without a line (DRIVES)
SMALL_WALK = 64  # counts walk in plain Python up to this many nodes, with numpy beyond
COUNTS_KEPT = 100_000  # memoised (dependents, tests) counts per graph before the memo starts over


@dataclass
class Dependent:
    node: str  # file path or symbol id
    path: str
    symbol: str | None
    depth: int
    via: list[str]  # the chain of nodes from the target to this one
    edge_kinds: list[str]
    score: float
    confidence: float
    lines: list[int | None] = field(default_factory=list)


def csr(keys: np.ndarray, n: int) -> np.ndarray:
    """Row pointers for values already sorted by `keys` (integers below n)."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=ptr[1:])
    return ptr


def gather(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of every value of `rows` (in row order, then value order) and, for each, the
    index in `rows` of its row."""
    starts, lens = ptr[rows], ptr[rows + 1] - ptr[rows]
    total = int(lens.sum())
    owner = np.repeat(np.arange(len(rows)), lens)
    offsets = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)
    return offsets, owner


def labels(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Text values (a few distinct ones) as small ints with their lookup table."""
    table: dict[str, int] = {}
    got = [table.setdefault(v, len(table)) for v in values.tolist()]
    return list(table), np.array(got, dtype=np.int16)


class ImpactGraph:
    def __init__(self, files: dict, symbols: dict, edges: dict, calls: dict):
        """From the columns of `store.graph_reads` (see `load`; an edge's text columns are
        callables, read one at a time). Node ids: the files in path order, then the symbols,
        then any other name an edge carries."""
        self.names: list[str] = files["path"].tolist()
        self.ids = {name: i for i, name in enumerate(self.names)}
        n_files = len(self.names)
        symbol_node = self._intern(symbols["id"])
        symbol_path = self._intern(symbols["path"])
        src, dst, src_path, dst_path = (self._intern(edges[c]()) for c in ("src", "dst", "src_path", "dst_path"))
        n = len(self.names)
        self.is_file = np.arange(n) < n_files
        self.is_test = np.zeros(n, dtype=bool)
        self.is_test[:n_files] = files["is_test"].astype(bool)
        self.is_symbol = np.zeros(n, dtype=bool)
        self.is_symbol[symbol_node] = True
        # each node's file (the name before '::'): the tests asserting on it are the node's too
        self.path_of = np.full(n, -1, dtype=np.int32)
        self.path_of[:n_files] = np.arange(n_files)
        self.path_of[symbol_node] = symbol_path
        for i in np.flatnonzero(self.path_of < 0).tolist():
            self.path_of[i] = self.ids.get(self.names[i].partition("::")[0], -1)
        self._edges(edges, src, dst, src_path, dst_path, n)
        self._symbols(symbols, symbol_node, symbol_path, calls, n)
        self._counts: dict[tuple, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def _intern(self, values: np.ndarray) -> np.ndarray:
        """Node ids of the names (new names get new ids)."""
        ids, names = self.ids, self.names
        got = [ids.get(v, -1) for v in values.tolist()]
        for k in [k for k, i in enumerate(got) if i < 0]:
            got[k] = ids.setdefault(values[k], len(names))
            if got[k] == len(names):
                names.append(values[k])
        return np.array(got, dtype=np.int64)

    def _edges(self, edges: dict, src, dst, src_path, dst_path, n: int) -> None:
        """The steps of every node (CSR) and the tests asserting on each file."""
        self.kinds, kind = labels(edges["kind"]())  # step_kind and step_strategy index these
        self.strategies, strategy = labels(edges["strategy"]())
        line, conf, score = edges["line"].astype(np.int32), edges["confidence"].astype(np.float64), edges["score"]
        order = np.arange(len(src), dtype=np.int64)
        is_dep = np.isin(kind, [self.kinds.index(k) for k in DEPENDENCY_KINDS if k in self.kinds])
        is_fwd = np.isin(kind, [self.kinds.index(k) for k in FORWARD_KINDS if k in self.kinds])
        lifted = is_dep & ((src != src_path) | (dst != dst_path))  # symbol edge: also at file level
        # the steps in the order they were appended to per-node lists before (an edge's own step,
        # then its file-level copy), so a stable sort by score keeps that order on ties
        pick = [is_dep, lifted, is_fwd]
        key = np.concatenate([dst[is_dep], dst_path[lifted], src[is_fwd]])
        seq = np.concatenate([2 * order[is_dep], 2 * order[lifted] + 1, 2 * order[is_fwd]])
        step_score = np.concatenate([score[m] for m in pick]).astype(np.float64)
        sort = np.lexsort((seq, -step_score, key))
        self.step_ptr = csr(key[sort], n)
        self.step_node = np.concatenate([src[is_dep], src_path[lifted], dst[is_fwd]]).astype(np.int32)[sort]
        self.step_score = step_score[sort]
        self.step_conf = np.concatenate([conf[m] for m in pick])[sort]
        self.step_kind = np.concatenate([kind[m] for m in pick]).astype(np.int8)[sort]
        self.step_line = np.concatenate([line[m] for m in pick])[sort]
        self.step_strategy = np.concatenate([strategy[m] for m in pick])[sort]
        asserts = kind == (self.kinds.index("ASSERTS_ON") if "ASSERTS_ON" in self.kinds else -1)
        pairs = np.unique(np.stack([dst_path[asserts], src_path[asserts]], axis=1).reshape(-1, 2), axis=0)
        self.assert_ptr, self.assert_src = csr(pairs[:, 0], n), pairs[:, 1].astype(np.int32)

    def _symbols(self, symbols: dict, symbol_node, symbol_path, calls: dict, n: int) -> None:
        """Each file's symbols in file order (for validation and `unresolved`) and the call sites
        by name."""
        self.call_ids = {name: k for k, name in enumerate(calls["name"].tolist())}
        self.call_ptr = np.zeros(len(self.call_ids) + 1, dtype=np.int64)
        np.cumsum(calls["sites"], out=self.call_ptr[1:])
        self.call_best = calls["best"].astype(np.float64)
        by_file = np.argsort(symbol_path, kind="stable")  # file order within each file kept
        self.file_symbol_ptr = csr(symbol_path[by_file], n)
        self.file_symbol = symbol_node[by_file].astype(np.int32)
        call = np.array([self.call_ids.get(name, -1) for name in symbols["name"].tolist()], dtype=np.int32)
        self.file_symbol_call = call[by_file]

    @classmethod
    def load(cls, store) -> "ImpactGraph":
        with graph_reads.graph_transaction(store.cursor()) as cur:
            edges = graph_reads.edge_columns(cur)
            for column in graph_reads.EDGE_TEXT:  # read when interned: one column of names at a time
                edges[column] = functools.partial(graph_reads.edge_text, cur, column)
            graph = cls(graph_reads.files(cur), graph_reads.symbols(cur), edges, graph_reads.call_site_confidences(cur))
            graph.unresolved_calls = test_reads.unresolved_calls(cur)  # for _tests
            return graph

    # -- the walk -------------------------------------------------------------------------------------
    def _levels(self, target: str, target_path: str, depth: int, min_confidence: float):
        """Breadth first from the target, one level at a time: (the steps taken, the index of
        each one's parent in the previous level, the nodes reached), in the order a walk that
        visits each frontier node's steps best-scored first would reach them."""
        start = self.ids.get(target)
        if start is None:
            return
        seen = np.zeros(len(self.names), dtype=bool)
        seen[start] = True
        skip = self.ids.get(target_path)
        if skip is not None:
            seen[skip] = True  # a file's own symbols never count as its dependents
        frontier = np.array([start], dtype=np.int64)
        for _level in range(depth):
            offsets, owner = gather(self.step_ptr, frontier)
            reached = self.step_node[offsets]
            ok = ~seen[reached] & (self.step_conf[offsets] >= min_confidence)
            offsets, owner, reached = offsets[ok], owner[ok], reached[ok]
            first = np.sort(np.unique(reached, return_index=True)[1])  # each node's first step
            if not len(first):
                return
            offsets, owner, reached = offsets[first], owner[first], reached[first]
            seen[reached] = True
            yield offsets, owner, reached
            frontier = reached.astype(np.int64)

    def walk(self, target: str, target_path: str, depth: int,
             min_confidence: float = 0.0) -> tuple[list[Dependent], list[str]]:
        """Breadth first from the target; each node keeps its first (shortest, best-scored) path
        among the edges at or above `min_confidence`."""
        deps: list[Dependent] = []
        parents = [([target], [], 1.0, 0.0, [])]
        names, kinds = self.names, self.kinds
        for level, (offsets, owner, reached) in enumerate(self._levels(target, target_path, depth, min_confidence), 1):
            found = []
            steps = zip(owner.tolist(), reached.tolist(), self.step_kind[offsets].tolist(),
                        self.step_line[offsets].tolist(), self.step_score[offsets].tolist(),
                        self.step_conf[offsets].tolist())
            for parent, node, kind, line, step_score, step_conf in steps:
                via, edge_kinds, conf, score, lines = parents[parent]
                name = names[node]
                path, _, symbol = name.partition("::")
                dep = Dependent(name, path, symbol or None, level, via + [name], edge_kinds + [kinds[kind]],
                                round(score + step_score / level, 4), round(min(conf, step_conf), 4),
                                lines + [None if line == NO_LINE else line])
                deps.append(dep)
                found.append((dep.via, dep.edge_kinds, dep.confidence, dep.score, dep.lines))
            parents = found
        deps.sort(key=lambda d: (d.depth, -d.score))
        touched = [self.ids[d.path] for d in deps if d.path in self.ids]
        return deps, sorted(names[i] for i in self._tests(target, target_path, touched))

    def _tests(self, target: str, target_path: str, touched: list[int] | np.ndarray) -> list[int]:
        """The test files that run the target: those whose tests reach it through the symbol
        graph (at any confidence: a test to run is not a claim), and by the file-level rule
        (asserting on a touched file) those the symbol graph does not know (graph/tests_reach.py)."""
        reach = self.__dict__.get("_reach")
        if reach is None:  # built on the first question (two threads may both build it: same result)
            reach = self._reach = tests_reach.TestReach(self, getattr(self, "unresolved_calls", None))
        touched = np.unique(np.asarray(touched, dtype=np.int64))
        return tests_reach.select(self, reach, target, target_path, touched)

    def counts(self, target: str, target_path: str, depth: int, min_confidence: float = 0.0) -> tuple[int, int]:
        """(dependents, tests) as `walk` would count them, without building the answer;
        memoised (the graph never changes once loaded)."""
        key = (target, target_path, depth, min_confidence)
        found = self._counts.get(key)
        if found is None:
            found = self._small_counts(target, target_path, depth, min_confidence)
            if found is None:
                reached = [r for _o, _p, r in self._levels(target, target_path, depth, min_confidence)]
                nodes = np.concatenate(reached) if reached else np.zeros(0, dtype=np.int64)
                paths = self.path_of[nodes]
                found = (len(nodes), len(self._tests(target, target_path, paths[paths >= 0])))
            with self._lock:
                if len(self._counts) >= COUNTS_KEPT:
                    self._counts.clear()
                self._counts[key] = found
        return found

    def _small_counts(self, target: str, target_path: str, depth: int, min_confidence: float):
        """`counts` in plain Python while the walk stays within SMALL_WALK nodes (most lenses
        and hovers: numpy's fixed cost per call is larger there); None beyond."""
        start, own = self.ids.get(target), self.ids.get(target_path)
        if start is None:
            return (0, 0) if own is None else (0, len(self._tests(target, target_path, [])))
        ptr, step_node, step_conf = self.step_ptr, self.step_node, self.step_conf
        seen, reached, frontier = {start, own}, [], [start]
        for _level in range(depth):
            nxt = []
            for node in frontier:
                lo, hi = int(ptr[node]), int(ptr[node + 1])
                if hi - lo > SMALL_WALK:
                    return None
                for found, conf in zip(step_node[lo:hi].tolist(), step_conf[lo:hi].tolist()):
                    if conf >= min_confidence and found not in seen:
                        seen.add(found)
                        nxt.append(found)
            reached += nxt
            if len(reached) > SMALL_WALK or not nxt:
                break
            frontier = nxt
        if len(reached) > SMALL_WALK:
            return None
        paths = [p for p in self.path_of[reached].tolist() if p >= 0] if reached else []
        return len(reached), len(self._tests(target, target_path, paths))

    # -- what `impact` needs besides the walk ------------------------------------------------------------
    def has_file(self, path: str) -> bool:
        i = self.ids.get(path)
        return i is not None and bool(self.is_file[i])

    def is_test_file(self, path: str) -> bool:
        i = self.ids.get(path)
        return i is not None and bool(self.is_test[i])

    def has_symbol(self, node: str) -> bool:
        i = self.ids.get(node)
        return i is not None and bool(self.is_symbol[i])

    def qualnames(self, path: str) -> list[str]:
        """The qualified names defined in `path`, in file order (as `store.code.symbols_of`)."""
        i = self.ids.get(path)
        if i is None:
            return []
        rows = self.file_symbol[self.file_symbol_ptr[i]:self.file_symbol_ptr[i + 1]].tolist()
        return [self.names[s].partition("::")[2] for s in rows]

    def unresolved(self, names: set[str], symbols_of: str | None, min_confidence: float) -> int:
        """Call sites named one of `names` (and of every symbol of the file `symbols_of`) that no
        CALLS edge at or above `min_confidence` resolves (as `store.code.unresolved_call_sites`)."""
        wanted = {self.call_ids[n] for n in names if n in self.call_ids}
        i = self.ids.get(symbols_of) if symbols_of is not None else None
        if i is not None:
            rows = self.file_symbol_call[self.file_symbol_ptr[i]:self.file_symbol_ptr[i + 1]]
            wanted.update(rows[rows >= 0].tolist())
        total = 0
        for k in wanted:
            lo, hi = int(self.call_ptr[k]), int(self.call_ptr[k + 1])
            total += int(np.searchsorted(self.call_best[lo:hi], min_confidence, side="left"))
        return total
