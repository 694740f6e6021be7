"""Which name-guessed calls test selection walks (graph/tests_reach.py): at a call site, the guesses
at methods of a class the caller holds an instance of (graph/tests_held.py `Holding`).

Measured on six registry packages against coverage.py (bench/BENCHMARKS.md ad): walking every name
guess listed tests that never run the code.
"""

from __future__ import annotations

import numpy as np

from memory_lsp.graph import held_memo
from memory_lsp.graph.steps import csr_rows
from memory_lsp.graph.tests_held import Holding, holders


def guesses(g, rows: np.ndarray, guessed: np.ndarray, holds: Holding) -> np.ndarray:
    """The name-guessed steps walked: at a call site, the guesses at methods of classes the
    caller holds (`Holding`) when there are some; else every guess of the site but those at an
    override of another guess's method (the base's stands for it: making the subclass would
    be a call the graph knows) and those at a Python method named like a builtin type's
    (`environ.get(key)`, `headers.update(d)`: the receiver nothing types is likelier a dict)."""
    walked = np.zeros(len(rows), dtype=bool)
    steps = np.flatnonzero(guessed)
    if not len(steps):
        return walked
    around = holders(g).holder_of(rows[steps], g.n)
    around = np.where((around >= 0) & holds.is_class[np.maximum(around, 0)], around, -1).astype(np.int64)
    caller = g.step_node[steps].astype(np.int64)
    held = around < 0  # a guess at a function, or at a method of no class known: walked
    ask = np.flatnonzero(~held)
    held[ask] = holds.makes(caller[ask], around[ask])
    walked[steps] = held
    # the call sites (caller, line) where no guess is held: all but the overrides of another's method
    line = g.e["line"][g.step_edge[steps]].astype(np.int64)
    _, site = np.unique(caller * (1 << 32) + (line & 0xFFFFFFFF), return_inverse=True)
    some = np.zeros(len(steps), dtype=bool)
    some[site[held]] = True
    rest = np.flatnonzero(~some[site])  # none of these is held: each guesses at a class's method
    at, c = site[rest], around[rest]
    # each step's class's bases (but itself), then which of them its site also guesses at
    classes = np.unique(c)
    bases = [sorted(b for b in holds.up(k) if b != k) for k in classes.tolist()]
    ptr = np.zeros(len(classes) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in bases], out=ptr[1:])
    flat = np.array([b for group in bases for b in group], dtype=np.int64)
    k = np.searchsorted(classes, c)
    owner = np.repeat(np.arange(len(rest)), ptr[k + 1] - ptr[k])
    base = flat[csr_rows(ptr, k)]
    guessed_too = held_memo.among(at[owner] * (1 << 32) + base, np.unique(at * (1 << 32) + c))
    overridden = np.zeros(len(rest), dtype=bool)
    overridden[owner[guessed_too]] = True
    walked[steps[rest]] = ~overridden & ~holders(g).builtin[rows[steps[rest]]]
    return walked
