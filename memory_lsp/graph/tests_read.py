"""A method no call names, read by name (a property: `request.accept_languages`; a method handed
on: `hook(self.on_close)`), runs where it is read, for test selection (graph/tests_reach.py).

graph/tests_held.py runs such a method for every maker of its class: nothing calls it, so
nothing else says who runs it. Its reads do (index/reads.py; the `untyped` rows of
store/test_reads.py marked `read`). Where the name is read, the method's class no longer holds
it: a step goes from each reader holding an instance to the method instead. Only where the name
is the class's own: no class outside its subclasses has a method of that name (nothing types a
read: `cache.maxsize` may be any class's `maxsize`), and no base has (an override runs for an
instance of its class: its makers keep it). A read from `self` or `cls` counts in the method's
class, its bases and subclasses only (another class's `self.data` is its own attribute); any
other read where the reader makes an instance, or one of a subclass, within HOLD_DEPTH calls
(tests_held.Holding: `logging.root.handlers` in a conftest is no structlog BoundLogger's). A
method nothing reads, or whose readers hold none, keeps its class's step: a read the text does
not show (`getattr(obj, name)`, a template's `{{ loop.index }}`) may run it.

Measured on werkzeug against coverage (bench/BENCHMARKS.md cq): a class's makers running every
property listed 97 test files that never run the property's code.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.graph.steps import csr

_EMPTY = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))


def read_steps(g, unresolved: dict, parent: np.ndarray, holds, names) -> tuple[np.ndarray, np.ndarray]:
    """(callee, caller) steps from each reader to the methods read by name and called by none, whose
    `parent` (their class, as tests_held.parents left it) is dropped here. `holds`: tests_held's
    Holding (classes and bases); `names`: its Holders (each symbol's holder and leaf)."""
    rows = unresolved.get("untyped")
    if rows is None or not len(rows["src"]):
        return _EMPTY
    src, name = rows["src"].astype(np.int64), rows["name"].astype(np.int64)
    ok = (src >= 0) & (src < g.n) & (name >= 0) & (name < len(g.call_ptr) - 1) & rows["read"].astype(bool)
    src, name, on_self = src[ok], name[ok], rows["on_self"][ok].astype(bool)
    ids = np.flatnonzero(g.is_symbol & (parent >= 0))
    leaf = names.leaf_of(ids, len(g.call_ptr) - 1)
    holder = parent[ids]
    read = np.zeros(len(g.call_ptr) - 1, dtype=bool)
    read[name] = True
    called = np.diff(g.call_ptr) > 0
    pick = (leaf >= 0) & holds.is_class[holder] & ~g.is_test[np.maximum(g.path_of[ids], 0)] & ~names.dunder[ids]
    pick[pick] = read[leaf[pick]] & ~called[leaf[pick]]
    if not pick.any():
        return _EMPTY
    definers: dict[int, set[int]] = {}  # per leaf asked: the classes with a method of that name
    every = np.flatnonzero(g.is_symbol)
    every_holder, every_leaf = names.holder_of(every, g.n), names.leaf_of(every, len(g.call_ptr) - 1)
    asked = np.isin(every_leaf, np.unique(leaf[pick])) & (every_holder >= 0)
    for c, k in zip(every_holder[asked].tolist(), every_leaf[asked].tolist()):
        if holds.is_class[c]:
            definers.setdefault(k, set()).add(c)
    order = np.argsort(name, kind="stable")
    ptr, by_src, by_self = csr(name[order], len(g.call_ptr) - 1), src[order], on_self[order]
    callee, caller = [], []
    for m, c, k in zip(ids[pick].tolist(), holder[pick].tolist(), leaf[pick].tolist()):
        up = set(holds.up(c))
        others = definers.get(k, set()) - {c}
        # another class's method of the name (a read may be of it), or a base's (this one overrides it:
        # it runs for an instance of this class, whose makers keep it)
        if any(o in up or c not in holds.up(o) for o in others):
            continue
        readers = []
        for r, mine in zip(by_src[ptr[k]:ptr[k + 1]].tolist(), by_self[ptr[k]:ptr[k + 1]].tolist()):
            # `self.x`: the reader's class is the method's, a base or a subclass of it; `x.name`: the
            # reader makes one (or a subclass) within HOLD_DEPTH calls (tests_held.Holding)
            holding = any(a in up or c in holds.up(a) for a in holds.around(r)) if mine else holds.holds_one(r, c)
            if holding:
                readers.append(r)
        if readers:
            parent[m] = -1
            callee += [m] * len(readers)
            caller += readers
    return np.array(callee, dtype=np.int32), np.array(caller, dtype=np.int32)
