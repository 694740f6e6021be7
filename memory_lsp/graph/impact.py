"""Impact: what depends on a file or symbol, how (the path that explains it), and which tests.

The traversal runs over an in-memory adjacency built once from the edges table (a recursive CTE
over the same edges takes 12-113 ms). `ImpactGraph.load` is what a long-lived process (the
server) keeps; after a re-index, graph/follow.py builds the next one from it. It is held
compact: the node names as one UTF-8 buffer in byte order (`Names`: ids by bisection), every edge's
columns as numpy arrays, and the adjacency in CSR form (one row of steps per node: the node reached
and the edge taken), a few dozen bytes per edge rather than a Python object each. It also holds what
`impact` needs besides the walk (which files and symbols exist, each file's symbols, and per called
name the best confidence of each call site) so no query runs per answer. Confidences are held as
codes into a small table of their values (graph/confidences.py).

Direction: X depends on T when X IMPORTS/CALLS/INHERITS T, uses T as a pytest fixture
(USES_FIXTURE), when T DRIVES X, or when X and T CO_CHANGE. Tests are the test files whose tests
call into the target (graph/tests_reach.py).

Confidence: a dependent is as sure as the least sure edge on its path; a walk with
`min_confidence` does not cross edges below it. The default keeps what bench/bench_truth.py found
right at least 9 times in 10 (name-only guesses fall below it).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from memory_lsp.graph import confidences, follow_unresolved, overridden, steps, tests_carry, tests_reach
from memory_lsp.graph.steps import csr
from memory_lsp.graph.names import Names, family_of
from memory_lsp.store import graph_reads, test_reads

DEFAULT_MIN_CONFIDENCE = 0.5
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


def gather(ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of every value of `rows` (in row order, then value order) and, for each, the
    index in `rows` of its row."""
    starts, lens = ptr[rows], ptr[rows + 1] - ptr[rows]
    total = int(lens.sum())
    owner = np.repeat(np.arange(len(rows)), lens)
    offsets = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens) + np.repeat(starts, lens)
    return offsets, owner


# r: the edge's rowid when it was read (ascending: table order); fp: its fingerprint (graph/follow.py);
# confidence: a code into the graph's `confidences` (wider than uint8 past 256 values)
EDGE_COLUMNS = ("src", "dst", "src_path", "dst_path", "kind", "strategy", "line", "confidence", "score", "fp", "r")
EDGE_TYPES = (np.int32, np.int32, np.int32, np.int32, np.int8, np.int16, np.int32, np.uint8, np.float64, np.uint64,
              np.int64)


class ImpactGraph:
    def __init__(self, names: Names, files: dict, edges: dict, symbols: dict, calls: dict, following=None):
        """From columns of node ids (see `load`; `graph/follow.py` builds the same columns for a
        graph that follows an edit, and `following`: see `_edges`). `names` is shared by the graphs
        that follow one another: it only grows, and `n` says how many of its names this graph knows."""
        self.table = self.names = names
        self.n = n = len(names)
        self.kinds, self.strategies = edges["kinds"], edges["strategies"]
        self.file_node = files["node"].astype(np.int32)
        self.file_fp, self.file_ph = files["fp"].astype(np.uint64), files["ph"].astype(np.uint64)
        self.is_file = np.zeros(n, dtype=bool)
        self.is_file[self.file_node] = True
        self.is_test = np.zeros(n, dtype=bool)
        self.is_test[self.file_node] = files["is_test"].astype(bool)
        self.sym_node, self.sym_path = symbols["node"].astype(np.int32), symbols["path"].astype(np.int32)
        self.sym_call = symbols["call"].astype(np.int32)
        # what a file's symbols are beside their names (graph/symbol_rows.py: lenses and hovers ask no query)
        self.sym_kind, self.sym_kinds = symbols["kind"].astype(np.uint8), symbols["kinds"]
        self.sym_start, self.sym_end = symbols["start"].astype(np.int32), symbols["end"].astype(np.int32)
        self.is_symbol = np.zeros(n, dtype=bool)
        self.is_symbol[self.sym_node] = True
        # each node's file (the name before '::'): the tests asserting on it are the node's too
        self.path_of = np.full(n, -1, dtype=np.int32)
        known = names.path_of[:n] if names.path_of is not None else np.full(0, -1, dtype=np.int32)
        self.path_of[:len(known)] = known
        self.path_of[self.file_node] = self.file_node
        self.path_of[self.sym_node] = self.sym_path
        for i in np.flatnonzero(self.path_of < 0).tolist():
            self.path_of[i] = names.get(names[i].partition("::")[0], -1)
        names.path_of = self.path_of  # a name's file never changes: the next graph starts from these
        self.confidences = edges["confidences"]  # the values the edges' and call sites' codes stand for
        code = confidences.code_type(len(self.confidences))
        self.e = {c: np.asarray(edges[c]).astype(code if c == "confidence" else t, copy=False)
                  for c, t in zip(EDGE_COLUMNS, EDGE_TYPES)}
        self._edges(n, following)
        self._symbols(n)
        self.calls = calls["table"]  # call names (and symbol names), shared like `names`
        self.site_name, self.site_file = calls["name"].astype(np.int32), calls["file"].astype(np.int32)
        self.site_best = calls["best"].astype(code, copy=False)  # -inf (no CALLS edge) is a value too
        self.call_ptr = csr(self.site_name, len(self.calls))  # sites are sorted by name
        self._counts: dict[tuple, tuple[int, int]] = {}
        self._lock = threading.Lock()
        self._by_name: dict[int, tuple[list[str], list[int]]] = {}  # a file's symbols, sorted by name
        # test selection's inputs (graph/tests_carry.py), set by `load` and graph/follow.py: the unresolved
        # calls, the rows they are made from (graph/follow_unresolved.py), the refs version read with
        # them; and the last graph's selection to carry (None: none was built)
        self.followed = following is not None
        self.unresolved_calls: dict | None = None
        self.unresolved_rows: dict | None = None
        self.refs_version: str | None = None
        self.reach_before: tuple | None = None

    def node_id(self, name: str | None) -> int | None:
        """The node id of a name this graph knows (a later graph may have added more)."""
        i = self.table.get(name) if name is not None else None
        return i if i is not None and i < self.n else None

    def _edges(self, n: int, following=None) -> None:
        """The steps of every node (graph/steps.py) and the tests asserting on each file.
        `following`: (the last graph, its edges' indexes here or -1, the new edges' indexes)."""
        e = self.e
        if following is None:
            found = steps.build(e, self.kinds, n)
        else:
            old, old_to_new, fresh_at = following
            found = steps.follow(old.steps, e, self.kinds, n, old_to_new, fresh_at)
        self.steps = found
        self.step_ptr, self.step_node, self.step_edge = found.ptr, found.node, found.edge
        # walks filter steps by confidence: a copy of the codes beside the steps keeps that a slice, not a gather
        self.step_conf = e["confidence"][self.step_edge]
        kind, src_path, dst_path = e["kind"], e["src_path"], e["dst_path"]
        asserts = kind == (self.kinds.index("ASSERTS_ON") if "ASSERTS_ON" in self.kinds else -1)
        pairs = np.unique(np.stack([dst_path[asserts], src_path[asserts]], axis=1).reshape(-1, 2), axis=0)
        self.assert_ptr, self.assert_src = csr(pairs[:, 0], n), pairs[:, 1].astype(np.int32)

    def _symbols(self, n: int) -> None:
        """Each file's symbols in file order (for validation and `unresolved`)."""
        by_file = np.argsort(self.sym_path, kind="stable")  # file order within each file kept
        self.file_symbol_ptr = csr(self.sym_path[by_file], n)
        self.file_symbol = self.sym_node[by_file]
        self.file_symbol_call = self.sym_call[by_file]
        self.file_symbol_row = by_file.astype(np.int32)

    @classmethod
    def load(cls, store, release=None) -> "ImpactGraph":
        """Read whole. `release`: called with a cursor after each large read (a long-lived process
        hands DuckDB's freed memory back between them, so their peaks do not add up)."""
        release = release or (lambda _cur: None)
        with graph_reads.graph_transaction(store.cursor()) as cur:
            reexports = test_reads.reexports(cur)
            version = graph_reads.refs_version(cur)
            release(cur)
            joined = graph_reads.names(cur, release)
            release(cur)  # DuckDB's copy of the names goes before the lookups are built
            names = Names(*joined)
            joined = graph_reads.call_names(cur)
            release(cur)
            calls = {"table": Names(*joined)}
            del joined
            # test selection's rows before the large reads, while the process is small (that query was the peak:
            # BENCHMARKS.md an), each kind made ids as it is read (their strings held together raised the
            # peak: section ci); kept, so that the first edit reads only its files' rows (graph/follow_unresolved.py)
            rows = follow_unresolved.read_kept(cur, names, calls["table"], release)
            unresolved = follow_unresolved.calls(rows)
            unresolved["reexports"] = reexports
            release(cur)
            edges = {}
            for column in ("src", "dst", "src_path", "dst_path"):
                edges[column] = graph_reads.edge_ends(cur, column)
                release(cur)
            kinds, strategies = graph_reads.labels(cur, "kind"), graph_reads.labels(cur, "strategy")
            edges.update(graph_reads.edges(cur, kinds, strategies), kinds=kinds, strategies=strategies)
            edges["confidences"], edges["confidence"] = confidences.coded(confidences.NONE, edges["confidence"])
            release(cur)
            files = graph_reads.files(cur)
            calls.update(graph_reads.call_sites(cur, release))
            edges["confidences"], calls["best"] = confidences.coded(edges["confidences"], calls["best"])
            release(cur)
            symbols = graph_reads.symbols(cur, release)
        release(store.cursor())
        files["node"] = files.pop("id")
        graph = cls(names, files, edges, symbols, calls)
        graph.unresolved_calls, graph.unresolved_rows, graph.refs_version = unresolved, rows, version
        return graph

    # -- the walk -------------------------------------------------------------------------------------
    def _levels(self, target: str, target_path: str, depth: int, min_confidence: float):
        """Breadth first from the target, one level at a time: (the steps taken, the index of
        each one's parent in the previous level, the nodes reached), in the order a walk that
        visits each frontier node's steps best-scored first would reach them."""
        start = self.node_id(target)
        if start is None:
            return
        seen = np.zeros(self.n, dtype=bool)
        seen[start] = True
        skip = self.node_id(target_path)
        if skip is not None:
            seen[skip] = True  # a file's own symbols never count as its dependents
        frontier = np.array([start], dtype=np.int64)
        sure = self.confidences >= min_confidence  # by code
        for _level in range(depth):
            offsets, owner = gather(self.step_ptr, frontier)
            reached = self.step_node[offsets]
            ok = ~seen[reached] & sure[self.step_conf[offsets]]
            offsets, owner, reached = offsets[ok], owner[ok], reached[ok]
            first = np.sort(np.unique(reached, return_index=True)[1])  # each node's first step
            if not len(first):
                return
            offsets, owner, reached = offsets[first], owner[first], reached[first]
            seen[reached] = True
            yield offsets, owner, reached
            frontier = reached.astype(np.int64)

    def implementation(self, target: str) -> str | None:
        """The module's definition a stub declares (`x.pyi::C.m` -> `x.py::C.m`), if indexed: calls
        link the module's (imports prefer the .py), so what depends on the stub depends on it."""
        path, _, symbol = target.partition("::")
        twin = f"{path[:-1]}::{symbol}" if symbol and path.endswith(".pyi") else None
        return twin if twin is not None and self.has_symbol(twin) else None

    def walk(self, target: str, target_path: str, depth: int,
             min_confidence: float = 0.0) -> tuple[list[Dependent], list[str]]:
        """Breadth first from the target; each node keeps its first (shortest, best-scored) path
        among the edges at or above `min_confidence`. A stub's symbol: its own dependents and its
        implementation's (`implementation`); a method: and the callers of the methods it overrides
        that may run it (graph/overridden.py); each node by its shortest path."""
        deps, tests = self._walk(target, target_path, depth, min_confidence)
        twin = self.implementation(target)
        more, more_tests = self._walk(twin, twin.partition("::")[0], depth, min_confidence) if twin else ([], [])
        more += overridden.dependents(self, twin or target, depth, min_confidence)
        if not more:
            return deps, tests
        best: dict[str, Dependent] = {}
        for d in deps + more:
            if d.node not in best or (d.depth, -d.score) < (best[d.node].depth, -best[d.node].score):
                best[d.node] = d
        return sorted(best.values(), key=lambda d: (d.depth, -d.score)), sorted(set(tests) | set(more_tests))

    def _walk(self, target: str, target_path: str, depth: int,
              min_confidence: float) -> tuple[list[Dependent], list[str]]:
        deps: list[Dependent] = []
        parents = [([target], [], 1.0, 0.0, [])]
        names, kinds, e = self.names, self.kinds, self.e
        touched = []  # each dependent's file (`path_of`: a name lookup per dependent costs more than the walk)
        for level, (offsets, owner, reached) in enumerate(self._levels(target, target_path, depth, min_confidence), 1):
            found = []
            touched.append(self.path_of[reached])
            edge = self.step_edge[offsets]
            steps = zip(owner.tolist(), reached.tolist(), e["kind"][edge].tolist(), e["line"][edge].tolist(),
                        e["score"][edge].tolist(), self.confidences[e["confidence"][edge]].tolist())
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
        touched = np.concatenate(touched) if touched else np.zeros(0, dtype=np.int32)
        touched = touched[touched >= 0]
        return deps, sorted(names[i] for i in self._tests(target, target_path, touched))

    def _tests(self, target: str, target_path: str, touched: list[int] | np.ndarray) -> list[int]:
        """The test files that run the target: those whose tests reach it through the symbol
        graph (at any confidence: a test to run is not a claim), and by the file-level rule
        (asserting on a touched file) those the symbol graph does not know (graph/tests_reach.py)."""
        touched = np.unique(np.asarray(touched, dtype=np.int64))
        return tests_reach.select(self, self.test_reach(), target, target_path, touched)

    def test_reach(self) -> tests_reach.TestReach:
        """Test selection's arrays, built on the first question (two threads may: same result) or before
        the server publishes the graph; the last graph's if an edit changed nothing they read (tests_carry)."""
        reach = self.__dict__.get("_reach")
        if reach is None:
            reach = self._reach = tests_carry.reach(self)
        return reach

    tests_ready = property(lambda self: self.__dict__.get("_reach") is not None)

    def counts(self, target: str, target_path: str, depth: int, min_confidence: float = 0.0,
               tests_from: int = 0) -> tuple[int, int | None]:
        """(dependents, tests) as `walk` counts them, without building the answer; tests None below `tests_from`
        dependents (a lens says nothing there; test selection was half of a heavy file's lenses). Memoised."""
        key = (target, target_path, depth, min_confidence)
        found = self._counts.get(key)
        if found is None or found[1] is None and found[0] >= tests_from:
            merged = self.implementation(target) is not None or overridden.overridden(self, target)[0]
            found = None if merged else self._small_counts(target, target_path, depth, min_confidence, tests_from)
            if found is None:  # walks merged (a stub's, an override's), or more than SMALL_WALK nodes
                found = overridden.counts(self, target, target_path, depth, min_confidence, tests_from)
            with self._lock:
                if len(self._counts) >= COUNTS_KEPT:
                    self._counts.clear()
                self._counts[key] = found
        return found

    def file_symbols_by_name(self, file: int, rows: np.ndarray) -> tuple[list[str], list[int]]:
        """The names of a file's symbols (`rows`), sorted, and their ids: memoised, as a file's
        lenses look up each of its symbols (a pass over the file's names each: ~90,000 for 300)."""
        found = self._by_name.get(file)
        if found is None:
            pairs = sorted((self.names[i], i) for i in rows.tolist())
            found = ([name for name, _i in pairs], [i for _name, i in pairs])
            with self._lock:
                if len(self._by_name) >= COUNTS_KEPT // 100:
                    self._by_name.clear()
                self._by_name[file] = found
        return found

    def _small_counts(self, target: str, target_path: str, depth: int, min_confidence: float, tests_from: int):
        """`counts` in plain Python while the walk stays within SMALL_WALK nodes (most lenses
        and hovers: numpy's fixed cost per call is larger there); None beyond."""
        start, own = self.node_id(target), self.node_id(target_path)
        if start is None:
            tests = 0 if own is None else None if tests_from > 0 else len(self._tests(target, target_path, []))
            return 0, tests
        ptr, step_node, step_conf = self.step_ptr, self.step_node, self.step_conf
        sure = (self.confidences >= min_confidence).tolist()  # by code
        seen, reached, frontier = {start, own}, [], [start]
        for _level in range(depth):
            nxt = []
            for node in frontier:
                lo, hi = int(ptr[node]), int(ptr[node + 1])
                if hi - lo > SMALL_WALK:
                    return None
                for found, code in zip(step_node[lo:hi].tolist(), step_conf[lo:hi].tolist()):
                    if sure[code] and found not in seen:
                        seen.add(found)
                        nxt.append(found)
            reached += nxt
            if len(reached) > SMALL_WALK or not nxt:
                break
            frontier = nxt
        if len(reached) > SMALL_WALK:
            return None
        if len(reached) < tests_from:
            return len(reached), None
        paths = [p for p in self.path_of[reached].tolist() if p >= 0] if reached else []
        return len(reached), len(self._tests(target, target_path, paths))

    # -- what `impact` needs besides the walk ------------------------------------------------------------
    def has_file(self, path: str) -> bool:
        i = self.node_id(path)
        return i is not None and bool(self.is_file[i])

    def is_test_file(self, path: str) -> bool:
        i = self.node_id(path)
        return i is not None and bool(self.is_test[i])

    def has_symbol(self, node: str) -> bool:
        i = self.node_id(node)
        return i is not None and bool(self.is_symbol[i])

    def qualnames(self, path: str) -> list[str]:
        """The qualified names defined in `path`, in file order (as `store.code.symbols_of`)."""
        i = self.node_id(path)
        if i is None:
            return []
        rows = self.file_symbol[self.file_symbol_ptr[i]:self.file_symbol_ptr[i + 1]].tolist()
        return [self.names[s].partition("::")[2] for s in rows]

    def unresolved(self, nodes: list[str], symbols_of: str | None, min_confidence: float) -> int:
        """Call sites that could reach one of `nodes` (symbols; and every symbol of the file
        `symbols_of`): named like it, in a file of its language family (a Go `string(b)` never runs
        Python's `string`), that no CALLS edge at or above `min_confidence` resolves (as
        `store.code.unresolved_call_sites`)."""
        n_calls = len(self.call_ptr) - 1
        wanted: dict[int, set[int]] = {}  # name id -> the families of the files that define it
        for node in nodes:
            path, _, qualname = node.partition("::")
            k = self.calls.get(qualname.rsplit(".", 1)[-1])
            if k is not None and k < n_calls:
                wanted.setdefault(k, set()).add(family_of(path))
        i = self.node_id(symbols_of)
        if i is not None:
            rows = self.file_symbol_call[self.file_symbol_ptr[i]:self.file_symbol_ptr[i + 1]]
            for k in rows[(rows >= 0) & (rows < n_calls)].tolist():
                wanted.setdefault(k, set()).add(family_of(symbols_of))
        total = 0
        unsure = self.confidences < min_confidence  # by code
        for k, families in wanted.items():
            lo, hi = int(self.call_ptr[k]), int(self.call_ptr[k + 1])
            open_sites = self.site_file[lo:hi][unsure[self.site_best[lo:hi]]]
            if len(open_sites):
                total += int(np.count_nonzero(np.isin(self.names.families(open_sites), list(families))))
        return total
