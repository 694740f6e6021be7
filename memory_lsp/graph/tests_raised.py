"""Test selection's steps for exceptions made to be raised (`raise NotFound(...)`).

A caller that makes an instance only to raise it runs the instance's construction and nothing
else of it: what runs next is up to whoever catches it. Walking such a call to the class ran every
method the class holds for its makers (graph/tests_held.py) and its bases' too: on werkzeug
(bench/BENCHMARKS.md cd), every test reaching `Headers.__getitem__`, which raises
`BadRequestKeyError`, ran `HTTPException.get_response` and from there a whole Response. So a
step from such a caller to a class (the unresolved `raised` rows, store/test_reads.py: its calls
of that name are all raised) goes to the construction methods of the class and its bases
instead, and the caller holds no instance of it.
"""

from __future__ import annotations

import numpy as np

CONSTRUCTION = ("__init__", "__new__", "__post_init__")  # what making an instance runs


def raise_steps(g, rows: np.ndarray, step_kind: np.ndarray, candidates: np.ndarray, is_class: np.ndarray,
                raised: dict | None) -> np.ndarray:
    """Per step (callee `rows`, caller `g.step_node`): whether it is one of `candidates` that is a
    call of a class its caller only raises (`raised`: (src, name) columns, ids of the graph's names
    and called names)."""
    found = np.zeros(len(rows), dtype=bool)
    if raised is None or not len(raised["src"]) or "CALLS" not in g.kinds:
        return found
    pairs: dict[int, set[str]] = {}
    for src, name in zip(raised["src"].tolist(), raised["name"].tolist()):
        if src < g.n:
            pairs.setdefault(src, set()).add(g.calls[name])
    callers = np.fromiter(pairs, dtype=np.int64, count=len(pairs))
    ask = np.flatnonzero(candidates & (step_kind == g.kinds.index("CALLS")) & is_class[rows]
                         & np.isin(g.step_node, callers))
    for k, callee, caller in zip(ask.tolist(), rows[ask].tolist(), g.step_node[ask].tolist()):
        leaf = g.names[callee].partition("::")[2].rsplit(".", 1)[-1]
        found[k] = leaf in pairs[caller]
    return found


def construction_steps(g, rows: np.ndarray, raising: np.ndarray, holds) -> tuple[np.ndarray, np.ndarray]:
    """(callee, caller) steps from each caller of a `raising` step to the construction methods of
    its class and of the class's bases (`holds.up`, graph/tests_held.py)."""
    callee, caller = [], []
    for k in np.flatnonzero(raising).tolist():
        for c in holds.up(int(rows[k])):
            for method in CONSTRUCTION:
                m = g.node_id(f"{g.names[c]}.{method}")
                if m is not None:
                    callee.append(m)
                    caller.append(int(g.step_node[k]))
    return np.array(callee, dtype=np.int64), np.array(caller, dtype=np.int64)
