"""Steps test selection walks where the graph has no edge (graph/tests_reach.py), as (callee, caller)
arrays: calls through an attribute holding a class, what a module's own code holds or made at
import and runs later, and the dunders of a class decorating a definition.
"""

from __future__ import annotations

import numpy as np

DECORATOR_DUNDERS = ("__call__", "__get__")  # what an instance of a class decorating a definition runs


def module_held(g, rows: np.ndarray, step_kind: np.ndarray, guessed: np.ndarray,
                silent: dict | None, var_callers: dict[int, list[int]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Steps (callee, caller) from every symbol of a non-test file that makes a call, to what its module-level
    code calls or holds in another file (index/aliases.py `held_values`): structlog's `_config.py` holds its
    default processors and makes its logger factory at import, and they run when its `get_logger` is used, in
    the tests (coverage counts no import-time line: the call alone would select nothing). Sure edges only, and
    no decorator's (`decorators`): it runs at import, on what it decorates. A symbol making no call at all
    (`silent`: store/test_reads.py) runs none of them: `reset_defaults`, which a conftest's autouse fixture
    calls before every test, only assigns them. `var_callers`: file -> the symbols of test files calling a module
    variable of it (`mistune.html(text)`, `html = create_markdown(plugins=[...])`: what its code gave the instance runs
    in the call), which run them too."""
    empty = np.zeros(0, dtype=np.int64)
    if "CALLS" not in g.kinds:
        return empty, empty
    src = g.step_node
    at = (step_kind == g.kinds.index("CALLS")) & g.is_file[src] & g.is_symbol[rows] & ~guessed
    at &= ~g.is_test[np.maximum(src, 0)]
    at[at] = ~np.isin(rows[at], decorators(g, rows, step_kind))
    at[at] = ~_stubs(g, src[at])  # a stub's module-level code never runs (numpy's __init__.pyi: 23,016 steps)
    # another file's only: the file's own are run by its tests anyway, and a file whose tests reach only protocol
    # methods (`repr(Infinity)` of `Infinity = InfinityType()`) keeps the file-level rule (tests_reach.py); a test
    # calling a module variable runs the file's own too (mistune's `create_markdown` in its __init__)
    var_callers = var_callers or {}
    at &= (g.path_of[rows] != src) | np.isin(src, list(var_callers))
    pairs = np.unique(src[at].astype(np.int64) << 32 | rows[at])  # each (file, callee) once, not per line
    callee, files = pairs & 0xFFFFFFFF, pairs >> 32
    # straight from each symbol of the file to each callee: through the file's node, the steps
    # `dispatch` makes from a file to all its symbols would join every symbol of the file to every other
    calling = np.ones(g.n, dtype=bool)
    if silent is not None:
        calling[silent["src"][(silent["src"] >= 0) & (silent["src"] < g.n)]] = False
    own = g.path_of[callee] == files
    held = [g.file_symbol[g.file_symbol_ptr[f]:g.file_symbol_ptr[f + 1]].astype(np.int64) if not mine else empty
            for f, mine in zip(files.tolist(), own.tolist())]
    held = [np.concatenate([h[calling[h]], np.array(var_callers.get(f, ()), dtype=np.int64)])
            for h, f in zip(held, files.tolist())]
    if not held:
        return empty, empty
    return np.repeat(callee, [len(h) for h in held]), np.concatenate(held)


def _stubs(g, files: np.ndarray) -> np.ndarray:
    """Per file node of `files`, whether it is a Python stub (`.pyi`)."""
    ids = np.unique(files)
    stub = np.array([g.names[f].endswith(".pyi") for f in ids.tolist()], dtype=bool)  # one test per file
    return stub[np.searchsorted(ids, files)] if len(ids) else np.zeros(len(files), dtype=bool)


def decorators(g, rows: np.ndarray | None = None, step_kind: np.ndarray | None = None) -> np.ndarray:
    """The functions and classes some module-level code calls on the line right above a definition of
    its file: a decorator's (attrs' `@attrs(slots=True)` over `class VersionInfo`), wherever else called."""
    return np.unique(decorated_sites(g, rows, step_kind) >> 32)


def decorated_sites(g, rows: np.ndarray | None = None, step_kind: np.ndarray | None = None) -> np.ndarray:
    """Each decorator (`decorators`) with the definition under it, as `callee << 32 | definition`, sorted.
    Lines decide them, which a digest of steps does not see: graph/tests_carry.py hashes them too."""
    found = g.__dict__.get("_decorated")  # kept on the graph: its build and its digest both ask
    if found is not None:
        return found
    if "CALLS" not in g.kinds:
        return np.zeros(0, dtype=np.int64)
    if rows is None:  # `rows`, `step_kind`: the graph's own, where the caller has them
        rows = np.repeat(np.arange(g.n, dtype=np.int32), np.diff(g.step_ptr).astype(np.int64))
        step_kind = g.e["kind"][g.step_edge]
    at = np.flatnonzero((step_kind == g.kinds.index("CALLS")) & g.is_file[g.step_node] & g.is_symbol[rows])
    at = at[~_stubs(g, g.step_node[at])]  # a stub's lines (held nothing) decide nothing
    files = g.step_node[at].astype(np.int64)
    line = g.e["line"][g.step_edge[at]].astype(np.int64)
    mine = np.flatnonzero(np.isin(g.sym_path, np.unique(files)))  # the definitions' first lines in those files
    starts = g.sym_path[mine].astype(np.int64) << 32 | g.sym_start[mine].astype(np.int64)
    order = np.argsort(starts, kind="stable")
    starts, mine = starts[order], mine[order]
    under = np.searchsorted(starts, files << 32 | (line + 1))
    above = under < len(starts)
    above[above] = starts[under[above]] == (files[above] << 32 | (line[above] + 1))
    pairs = rows[at[above]].astype(np.int64) << 32 | g.sym_node[mine[under[above]]].astype(np.int64)
    found = g._decorated = np.unique(pairs)
    return found


def class_decorated(g, rows: np.ndarray, step_kind: np.ndarray, is_class: np.ndarray,
                    bases_of) -> tuple[np.ndarray, np.ndarray]:
    """Steps (callee, caller) from a definition a workspace class decorates (`@wsgify def app(req)`) to
    that class's `__call__` and `__get__`, its own or a base's: the name is an instance of the class, so a
    call of it, even through a parameter (webob's `req.get_response(app)`), or a read of it runs them.
    `bases_of`: a class's direct bases (graph/tests_held.py `Holding.bases_of`)."""
    sites = decorated_sites(g, rows, step_kind)
    sites = sites[is_class[sites >> 32]]
    empty = np.zeros(0, dtype=np.int64)
    if not len(sites):
        return empty, empty
    dunders: dict[int, list[int]] = {}
    for c in np.unique(sites >> 32).tolist():
        seen, todo, found = {c}, [c], {}
        while todo:  # the class, then its bases: the nearest definition of each dunder
            k = todo.pop(0)
            for dunder in DECORATOR_DUNDERS:
                i = g.node_id(f"{g.names[k]}.{dunder}")
                if dunder not in found and i is not None and g.is_symbol[i]:
                    found[dunder] = i
            todo += [b for b in bases_of(k) if b not in seen and not seen.add(b)]
        dunders[c] = list(found.values())
    callee, caller = [], []
    for c, symbol in zip((sites >> 32).tolist(), (sites & 0xFFFFFFFF).tolist()):
        callee += dunders[c]
        caller += [symbol] * len(dunders[c])
    return np.array(callee, dtype=np.int64), np.array(caller, dtype=np.int64)


def dispatch(g, rows: np.ndarray, step_kind: np.ndarray, found: dict | None,
             reexports: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """Steps for calls through an attribute holding a class or function (`self.config_class(...)`,
    named like nothing defined; `found`: the unresolved `dispatch` rows): the symbol making one may run
    any file its own file imports, or takes a name from through modules re-exporting it (`reexports`: jinja2's filters, whose
    FILTERS environment.py takes from defaults.py). As steps (callee, caller): each symbol of
    such a file -> that file's node -> the symbols making such calls in the files importing it."""
    empty = np.zeros(0, dtype=np.int64)
    if found is None or not len(found["src"]) or "IMPORTS" not in g.kinds:
        return empty, empty
    makers: dict[int, list[int]] = {}
    for src, path in zip(found["src"].tolist(), found["path"].tolist()):
        i, f = g.node_id(src), g.node_id(path)
        if i is not None and f is not None and g.is_symbol[i]:
            makers.setdefault(f, []).append(i)
    imports = (step_kind == g.kinds.index("IMPORTS")) & g.is_file[rows]
    pairs = list(zip(rows[imports].tolist(), g.step_node[imports].tolist()))  # (imported, importer)
    for importer, imported in zip(*(reexports[c].tolist() for c in ("path", "target"))) if reexports else ():
        pair = (g.node_id(imported), g.node_id(importer))
        if None not in pair:
            pairs.append(pair)
    callee, caller = [], []
    for imported, importer in pairs:
        for maker in makers.get(importer, ()):
            callee.append(imported)
            caller.append(maker)
    files = np.unique(np.array(callee, dtype=np.int64))
    held = [g.file_symbol[g.file_symbol_ptr[f]:g.file_symbol_ptr[f + 1]] for f in files.tolist()]
    symbols = np.concatenate(held) if held else empty
    owners = np.repeat(files, [len(h) for h in held]) if held else empty
    return (np.concatenate([np.array(callee, dtype=np.int64), symbols]),
            np.concatenate([np.array(caller, dtype=np.int64), owners]))
