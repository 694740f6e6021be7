"""Which tests run a file or symbol: the test files whose tests reach it through the symbol graph.

Coverage counts a test as running a file when a line of it runs inside the test (import-time
lines run at collection, outside any test), so what selects a test is what its functions call,
not what its module imports. A test file is selected for a target when one of its entry points
(a symbol in it that nothing calls: a test function or class; helpers and fixtures are reached
through their callers) reaches a symbol of the target, backwards over the CALLS, INHERITS and
USES_FIXTURE edges between symbols at any confidence (a test to run is not a claim: at the
default 0.5, recall fell to 0.98 on click and requests), name guesses only where the caller
holds an instance of the guessed method's class or nothing better is known, and from a nested
function to the function around it and from some methods to their class (graph/tests_held.py:
dunders, properties, methods called through an untyped receiver by a caller holding an instance,
overrides of a base's method called on self; not every method: bench/BENCHMARKS.md ad), and from
a file's symbols to the code that calls through an attribute of self named like nothing defined
(`self.config_class(...)`: a class held in an attribute) in the files importing it, and from every
symbol of a file to what its module-level code calls or holds in another file (a list of processors:
graph/tests_through.py). No depth limit: a test runs its callees however deep (at depth 3, recall
fell to 0.64-0.77 on requests: bench/BENCHMARKS.md aa). A Python test file
with no function or class named test* (helpers, conftest.py, type-check files) holds no tests.

The file-level rule (the test asserts on a file of the answer, or the walk reaches the test
file) stays where the symbol graph knows nothing:
  - test files of a language without CALLS edges in the workspace;
  - an unresolved call in a test file through an import of a workspace file (store/test_reads):
    when the walk reaches that file, the call's symbol counts as reaching the target (and so do
    the tests that use it, when it is a fixture or a helper);
  - test files with no resolved call into non-test code: those asserting on the target's file or
    importing it.
A Python file with no def or class (constants) runs where it is first imported: at collection, unless
a function imports it (jinja2's `generate_lorem_ipsum`), then in the tests reaching that function; a
package's `__init__.py` also where a function imports a module inside the package.
"""

from __future__ import annotations

import bisect

import numpy as np

from memory_lsp.graph import tests_guessed, tests_held, tests_raised, tests_read, tests_through
from memory_lsp.graph.steps import csr, grouped, csr_rows as _rows
from memory_lsp.graph.test_files import ext as _ext
from memory_lsp.graph.test_files import holds_tests_in, inherits_edges
from memory_lsp.graph.test_files import leaf as _leaf

REACH_KINDS = ("CALLS", "INHERITS", "USES_FIXTURE")
GUESSES = ("name_unique", "name_ambiguous", "override")  # edges guessed from a name alone
SMALL = 48  # frontiers walked in plain Python up to this many nodes
BITS_BLOCK = 1 << 15  # steps whose bits are gathered at once while carrying them (`_Walk._bits`)
BITS_BUDGET = 32 << 20  # bytes: each node's tests kept as bits up to this size, else a walk per question


def _node(g, name: str, default=None):
    """The graph's node id of a name it knows."""
    i = g.node_id(name)
    return default if i is None else i


def _protocol_method(name: str) -> bool:
    """A class's `__lt__`, `__repr__`...: run by Python's operators and builtins (a module's `__getattr__` is no method)."""
    return "." in name.partition("::")[2] and _leaf(name).startswith("__") and name.endswith("__")


def _test_calls(g, rows: dict | None) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """A workspace file -> the symbols of test files with an unresolved call through it, and -> those
    calling a module variable of it (store/test_reads.py `tests` rows)."""
    blind: dict[int, list[int]] = {}
    var_callers: dict[int, list[int]] = {}
    if rows is not None:
        for src, module, held in zip(rows["src"].tolist(), rows["module"].tolist(), rows["held"].tolist()):
            t, m = _node(g, src), _node(g, module)
            if t is not None and m is not None and g.is_symbol[t]:  # not a module-level call
                (var_callers if held else blind).setdefault(m, []).append(t)
    return blind, var_callers


class TestReach:
    """What test selection needs beyond the walk's arrays, built once per graph."""

    __test__ = False  # not a pytest class

    def __init__(self, g, unresolved: dict | None, memo=None):
        """`memo`: what the last graph's build worked out (graph/held_memo.py), kept where it holds."""
        n = g.n
        unresolved = unresolved or {}
        rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(g.step_ptr).astype(np.int64))
        step_kind = g.e["kind"][g.step_edge]
        kinds = [g.kinds.index(k) for k in REACH_KINDS if k in g.kinds]
        keep = np.isin(step_kind, kinds) & g.is_symbol[rows] & g.is_symbol[g.step_node]
        guessed = np.isin(g.e["strategy"][g.step_edge], [g.strategies.index(s) for s in GUESSES if s in g.strategies])
        dispatch = tests_through.dispatch(g, rows, step_kind, unresolved.get("dispatch"), unresolved.get("reexports"))
        # an instance made only to be raised: its construction runs, nothing its class holds (graph/tests_raised.py)
        is_class = tests_held.classes_of(g, unresolved)
        raising = tests_raised.raise_steps(g, rows, step_kind, keep & ~guessed, is_class, unresolved.get("raised"))
        sure = keep & ~guessed & ~raising
        parent, holds = tests_held.parents(g, unresolved, rows, step_kind, sure, guessed, is_class, memo)
        read = tests_read.read_steps(g, unresolved, parent, holds, tests_held.holders(g))  # a property where it is read
        made = tests_raised.construction_steps(g, rows, raising, holds)
        blind, var_callers = _test_calls(g, unresolved.get("tests"))
        held = tests_through.module_held(g, rows, step_kind, guessed, unresolved.get("silent"), var_callers)
        decorated = tests_through.class_decorated(g, rows, step_kind, is_class, holds.bases_of)
        dispatch = tuple(np.concatenate([dispatch[k], made[k], decorated[k], read[k], held[k]]) for k in (0, 1))
        walked = sure | tests_guessed.guesses(g, rows, keep & guessed, holds)
        self.memo = holds.memo()
        del holds, made, read, sure, raising  # what the walk does not need goes before it is built (the build's peak)
        self.walk = _Walk(g, rows, g.step_node, walked, dispatch, parent, len(held[0]))
        del walked, dispatch
        # test files that call into non-test code through a resolved edge: the symbol graph knows them
        callee, caller = rows[keep], g.step_node[keep]
        test_caller = g.is_test[np.maximum(g.path_of[caller], 0)] & (g.path_of[caller] >= 0)
        into_code = ~g.is_test[np.maximum(g.path_of[callee], 0)]
        self.known = np.zeros(n, dtype=bool)
        self.known[g.path_of[caller[test_caller & into_code]]] = True
        calls = g.kinds.index("CALLS") if "CALLS" in g.kinds else -1
        with_calls = np.unique(g.path_of[rows[step_kind == calls]]) if calls >= 0 else []
        self.call_exts = {_ext(g.names[p]) for p in np.asarray(with_calls).tolist() if p >= 0}
        self.holds_tests = self._holds_tests(g)
        self.blind = blind  # a workspace file -> the symbols of test files with an unresolved call through it

    @property
    def live(self) -> np.ndarray:
        return self.walk.live

    @property
    def plain(self) -> np.ndarray:
        """`live` but through a module's held values."""
        return self.walk.live if self.walk.live_plain is None else self.walk.live_plain

    @property
    def bits(self):
        return self.walk.bits

    def test_files(self, g, starts: np.ndarray) -> list[int]:
        """The test files with a test reaching any of `starts`."""
        return self.walk.test_files(g, starts)

    @staticmethod
    def _holds_tests(g) -> np.ndarray:
        """The test files that hold a test (a Python one: a file the runners collect, test*.py as
        unittest does or *_test.py as pytest also does, with a function or class named test*; a
        test file of helpers, fixtures or type checks, `typing_example.py`, runs no test of its own)."""
        holds, inherits = g.is_test.copy(), inherits_edges(g)
        for f in np.flatnonzero(g.is_test).tolist():
            holds[f] = holds_tests_in(g, f, inherits)
        return holds


def _blocks(keys: np.ndarray, size: int) -> list[tuple[int, int]]:
    """(start, end) of consecutive pieces of sorted `keys` of about `size` values, none splitting a key's run."""
    cuts = [0]
    while cuts[-1] < len(keys):
        at = cuts[-1] + size
        if at < len(keys):
            at = int(np.searchsorted(keys, keys[at], side="left"))  # back to the start of that key's run
            if at <= cuts[-1]:  # a run longer than a block: whole
                at = int(np.searchsorted(keys, keys[cuts[-1]], side="right"))
        cuts.append(min(at, len(keys)))
    return list(zip(cuts, cuts[1:]))


class _Walk:
    """The backward walk over one set of steps: callers per callee (CSR), what holds each symbol,
    what some test runs, and each node's test files as bits."""

    def __init__(self, g, rows: np.ndarray, step_node: np.ndarray, keep: np.ndarray,
                 extra: tuple[np.ndarray, np.ndarray], parent: np.ndarray, held: int = 0):
        n = g.n
        self.has_caller = np.bincount(rows[keep], minlength=n) > 0
        # 4 bytes a step in every array of the build that holds one (its peak: BENCHMARKS.md df, dh)
        callee = np.concatenate([rows[keep], extra[0]], dtype=np.int32)
        caller = np.concatenate([step_node[keep], extra[1]], dtype=np.int32)
        # the last `held` steps are a module's held values (tests_through.py): one byte a step says so
        through_held = None
        if held:
            marks = np.zeros(len(callee), dtype=bool)
            marks[len(callee) - held:] = True
            self.ptr, (self.node, through_held) = grouped(callee, n, (caller, marks))
        else:
            self.ptr, (self.node,) = grouped(callee, n, (caller,))
        del callee, caller
        self.parent = parent
        # what some test runs (forwards from every symbol of a test file): a walk from a target
        # never needs to leave it; and what it runs but through held values: the file-level rule
        # turns on that, so that those steps only add tests
        self.live, self.live_plain = self._from_tests(g, np.repeat(np.arange(n, dtype=np.int32), np.diff(self.ptr)),
                                                      self.node, through_held)
        self.bits = self._bits(g)

    def _from_tests(self, g, callee: np.ndarray, caller: np.ndarray, skip: np.ndarray | None = None):
        """The nodes some symbol of a test file reaches: through its calls, fixtures and
        subclasses, and from a class or function to what it holds; and (None without `skip`) those it
        reaches through no step `skip` marks, from the same sorted steps (a second sort cost ~25 MB
        at 11,282 files)."""
        n = g.n
        if skip is None:
            calls_ptr, (calls,) = grouped(caller, n, (callee,))
        else:
            calls_ptr, (calls, skip) = grouped(caller, n, (callee, skip))
        held = np.flatnonzero(self.parent >= 0)
        order = np.argsort(self.parent[held], kind="stable")
        held_ptr, held = csr(self.parent[held][order], n), held[order]
        paths = np.maximum(g.path_of, 0)
        start = np.flatnonzero(g.is_symbol & g.is_test[paths] & (g.path_of >= 0))
        found = []
        for skipped in ((None, skip) if skip is not None else (None,)):
            frontier, live = start, np.zeros(n, dtype=bool)
            live[frontier] = True
            while len(frontier):
                at = _rows(calls_ptr, frontier)
                if skipped is not None:
                    at = at[~skipped[at]]
                nxt = np.unique(np.concatenate([calls[at], held[_rows(held_ptr, frontier)]]))
                nxt = nxt[~live[nxt]]
                live[nxt] = True
                frontier = nxt.astype(np.int64)
            found.append(live)
        return found[0], (found[1] if skip is not None else None)

    def _bits(self, g) -> np.ndarray | None:
        """Per node that some test runs (row `bit_row[node]`; every other node: the last row, zeros),
        the test files whose tests reach it (bit k: self.bit_files[k]), carried once forwards from
        the tests to a fixed point; None when that would take over BITS_BUDGET. A row per node
        was 10.7 MB at 11,282 files, where tests run 25,000 of 280,000 nodes."""
        n = g.n
        paths = np.maximum(g.path_of, 0)
        entries = np.flatnonzero(g.is_symbol & ~self.has_caller & (g.path_of >= 0) & g.is_test[paths])
        self.bit_files, slot = np.unique(g.path_of[entries], return_inverse=True)
        words = max(1, -(-len(self.bit_files) // 64))
        live = np.flatnonzero(self.live)  # the test symbols and all they reach: the bits go nowhere else
        if (len(live) + 1) * words * 8 > BITS_BUDGET:
            return None
        self.zero_row = len(live)  # the row of every node no test runs: zeros
        self.bit_row = row = np.full(n, len(live), dtype=np.int32)
        row[live] = np.arange(len(live), dtype=np.int32)
        bits = np.zeros((len(live) + 1, words), dtype=np.uint64)
        np.bitwise_or.at(bits, (row[entries], slot // 64), np.left_shift(np.uint64(1), (slot % 64).astype(np.uint64)))
        held = np.flatnonzero(self.parent >= 0)  # forwards: caller -> callee, what holds -> what is held
        src = np.concatenate([self.node, self.parent[held]], dtype=np.int32)
        dst = np.concatenate([np.repeat(np.arange(n, dtype=np.int32), np.diff(self.ptr)), held], dtype=np.int32)
        src, dst = row[src[self.live[src]]], row[dst[self.live[src]]]  # what a live node reaches is live
        ptr, (src,) = grouped(dst, len(bits), (src,))
        dst = np.repeat(np.arange(len(bits), dtype=np.int32), np.diff(ptr))
        # semi-naive: each round carries only the bits of the nodes the last round changed (the
        # whole edge list each round took ~2 s over ~36 rounds on the stdlib), BITS_BLOCK steps'
        # bits at a time (all of a round's at once: ~20 MB at 11,282 files, test selection's peak);
        # a block reads the bits the blocks before it grew: the same fixed point
        active = np.zeros(len(bits), dtype=bool)
        active[row[entries]] = True
        while True:
            pick = np.flatnonzero(active[src])
            if not len(pick):
                break
            active = np.zeros(len(bits), dtype=bool)  # what this round changes
            for lo, hi in _blocks(dst[pick], BITS_BLOCK):
                s, d = src[pick[lo:hi]], dst[pick[lo:hi]]  # in dst order
                heads = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
                targets = d[heads]
                grown = np.bitwise_or.reduceat(bits[s], heads, axis=0) | bits[targets]
                changed = np.any(grown != bits[targets], axis=1)
                bits[targets[changed]] = grown[changed]
                active[targets[changed]] = True
        return bits

    def test_files(self, g, starts: np.ndarray) -> list[int]:
        """The test files with a test reaching any of `starts`."""
        if self.bits is None:
            seen = self.reached(starts, g.n)
            entries = np.flatnonzero(seen & ~self.has_caller & g.is_symbol)
            paths = g.path_of[entries]
            paths = paths[paths >= 0]
            return np.unique(paths[g.is_test[paths]]).tolist()
        acc = np.bitwise_or.reduce(self.bits[self.bit_row[starts]], axis=0)
        on = np.flatnonzero(np.unpackbits(acc.view(np.uint8), bitorder="little"))
        return self.bit_files[on[on < len(self.bit_files)]].tolist()

    def reached(self, starts: np.ndarray, n: int) -> np.ndarray:
        """The nodes that reach any of `starts` (them included) and that a test runs, as a mask."""
        seen = np.zeros(n, dtype=bool)
        frontier = np.unique(starts[self.live[starts]]).astype(np.int64)
        seen[frontier] = True
        if len(frontier) <= SMALL:
            frontier = self._small_levels(frontier, seen)
        while len(frontier):
            up = self.parent[frontier]
            nxt = np.unique(np.concatenate([self.node[_rows(self.ptr, frontier)], up[up >= 0]]))
            nxt = nxt[~seen[nxt] & self.live[nxt]]
            seen[nxt] = True
            frontier = nxt.astype(np.int64)
        return seen


    def _small_levels(self, frontier: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """Levels of `reached` in plain Python while they stay within SMALL nodes (numpy's fixed
        cost per call is larger there); the frontier left for numpy when one grows beyond."""
        ptr, node, parent, live = self.ptr, self.node, self.parent, self.live
        todo = frontier.tolist()
        while todo and len(todo) <= SMALL:
            nxt = []
            for v in todo:
                for u in node[ptr[v]:ptr[v + 1]].tolist() + [int(parent[v])]:
                    if u >= 0 and not seen[u] and live[u]:
                        seen[u] = True
                        nxt.append(u)
            todo = nxt
        return np.array(todo, dtype=np.int64)



def starts_of(g, target: str, target_path: str) -> np.ndarray:
    """The symbols whose lines are the target's: a file's symbols, or a symbol and those inside it."""
    own = _node(g, target_path)
    if own is None:
        return np.zeros(0, dtype=np.int64)
    rows = g.file_symbol[g.file_symbol_ptr[own]:g.file_symbol_ptr[own + 1]].astype(np.int64)
    if target == target_path:
        return rows
    names, ids = g.file_symbols_by_name(own, rows)
    # the target, then the names inside it ("A.b"...): after "A." and before "A/" ('/' follows '.')
    at = bisect.bisect_left(names, target)
    found = [ids[at]] if at < len(names) and names[at] == target else []
    found += ids[bisect.bisect_left(names, target + "."):bisect.bisect_left(names, target + "/")]
    return np.array(found, dtype=np.int64)


def select(g, reach: TestReach, target: str, target_path: str, touched: np.ndarray) -> list[int]:
    """The test files (node ids) that run the target; `touched`: the files the walk reached."""
    own = _node(g, target_path)
    found: set[int] = set()
    files = set(touched.tolist()) | ({own} if own is not None else set())
    # an unresolved call through a module the walk reached: as if its symbol called the target
    # (a fixture's reaches the tests using it)
    blind = [src for f in files for src in reach.blind.get(f, ())]
    mine = starts_of(g, target, target_path)
    starts = np.concatenate([mine, np.array(blind, dtype=np.int64)])
    if len(starts):
        found.update(reach.test_files(g, starts))
    # the file-level rule (as before): tests asserting on a file of the answer, tests walked to; for
    # all when no test reaches a symbol of the file through the symbol graph, a test's unresolved call through
    # its module aside: that call says nothing of how the file's code runs (its functions called
    # through a dict: the graph does not know how it runs; a file of constants, run by a function
    # importing it when called; a symbol no test reaches keeps its "0 tests"; a file of which tests reach
    # only protocol methods, which Python's operators run unseen: packaging's `Infinity < x` in a sort key)
    unknown = own is not None and target == target_path and \
        all(_protocol_method(g.names[v]) for v in mine[reach.plain[mine]].tolist())  # a file's live symbols only
    if unknown and not len(mine) and _ext(target_path) in ("py", "pyi"):
        # a file of module-level code only (constants): its lines run where it is first imported, at collection,
        # unless a function imports it (jinja2's `generate_lorem_ipsum`): the tests that reach such a function.
        # A package's `__init__.py` runs for an import of any module inside it (typer's tests import
        # `docs_src.arguments.default.tutorial001` in a fixture: `default/__init__.py` runs there)
        found.update(reach.test_files(g, np.concatenate([_local_importers(g, f) for f in _imported_with(g, own)])))
        unknown = False
    asserting = {t for f in files for t in g.assert_src[g.assert_ptr[f]:g.assert_ptr[f + 1]].tolist()}
    by_files = asserting | {f for f in files if g.is_test[f]}
    found.update(t for t in by_files if unknown or _ext(g.names[t]) not in reach.call_exts)
    if own is not None:  # no resolved call into the code: the tests that import the file or assert on it
        found.update(_direct(g, reach, own))
    found.discard(own)
    return sorted(t for t in found if reach.holds_tests[t])


_NO_TESTS: frozenset = frozenset()


def _direct(g, reach: TestReach, own: int) -> frozenset:
    """The test files importing file `own` or asserting on it that make no resolved call into the
    code; kept per graph (its reach is its own): a file's lenses ask for each of its symbols."""
    kept = g.__dict__.setdefault("_direct_tests", {})
    found = kept.get(own)
    if found is None:
        direct = _importers(g, own) | set(g.assert_src[g.assert_ptr[own]:g.assert_ptr[own + 1]].tolist())
        found = frozenset(t for t in direct if g.is_test[t] and not reach.known[t]) or _NO_TESTS
        kept[own] = found
    return found


def _imported_with(g, f: int) -> list[int]:
    """The files whose import runs file `f`: itself, and for a package's `__init__.py` every file of the package."""
    folder, slash, leaf = g.names[f].rpartition("/")
    if leaf not in ("__init__.py", "__init__.pyi"):
        return [f]
    return [f] + [p for p in np.flatnonzero(g.is_file).tolist() if p != f and g.names[p].startswith(folder + slash)]


def _local_importers(g, f: int) -> np.ndarray:
    """The symbols around an import of file `f` (an IMPORTS edge's first line inside a def of the importer)."""
    lo, hi = int(g.step_ptr[f]), int(g.step_ptr[f + 1])
    at = np.arange(lo, hi)[g.e["kind"][g.step_edge[lo:hi]] == (g.kinds.index("IMPORTS") if "IMPORTS" in g.kinds else -1)]
    found = []
    for importer, line in zip(g.step_node[at].tolist(), g.e["line"][g.step_edge[at]].tolist()):
        rows = np.flatnonzero((g.sym_path == importer) & (g.sym_start <= line) & (g.sym_end >= line))
        if len(rows):
            found.append(int(g.sym_node[rows[np.argmax(g.sym_start[rows])]]))
    return np.array(found, dtype=np.int64)


def _importers(g, f: int) -> set[int]:
    lo, hi = int(g.step_ptr[f]), int(g.step_ptr[f + 1])
    imports = g.kinds.index("IMPORTS") if "IMPORTS" in g.kinds else -1
    return set(g.step_node[lo:hi][g.e["kind"][g.step_edge[lo:hi]] == imports].tolist())

