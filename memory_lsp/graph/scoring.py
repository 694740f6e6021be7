"""Node and edge scores (seed 000), at file level.

node = recency + frequency + centrality + side_effect_cost
  recency = exp(-age_days / 7) (age of the last git change, else of the file's mtime)
  frequency = log1p(commits touching the file)  (git churn stands in for access counts)
  centrality = log1p(reachability * 2 + causal_in), reachability = how many files depend on
               this one directly or transitively (IMPORTS, CALLS, INHERITS)
  side_effect_cost = log1p(side-effect categories) * 0.5
edge = score(src) + score(dst) + causal 1.0 + cost 0.5 + log1p(support) * 0.3
  causal: IMPORTS, CALLS, INHERITS, DRIVES, ASSERTS_ON; cost: ASSERTS_ON or a source file with
  side effects (computed in SQL over the files' scores: store/edges.py write_edge_scores)
"""

from __future__ import annotations

import math
import time

from memory_lsp.store import code, edges
from memory_lsp.store.db import Store

DEPENDENCY_KINDS = ("IMPORTS", "CALLS", "INHERITS")  # what reachability follows
SCORES_KEPT_S = 3600  # a start that changed nothing keeps scores this recent (refresh_scores)
EDGE_WEIGHTS = edges.EdgeWeights(causal_kinds=("IMPORTS", "CALLS", "INHERITS", "DRIVES", "ASSERTS_ON"),
                                 causal=1.0, cost=0.5, support=0.3)


def reachability(nodes: list[str], pairs: list[tuple[str, str]]) -> tuple[dict[str, int], dict[str, int]]:
    """For each node: how many nodes reach it (transitive dependents), and direct dependents.

    Strongly connected components are collapsed (Tarjan, iterative), then dependents' sets
    are unioned as Python int bitsets in topological order: milliseconds for 10,000 files.
    """
    index = {n: i for i, n in enumerate(nodes)}
    dependents: list[list[int]] = [[] for _ in nodes]
    direct = [0] * len(nodes)
    for dependent, dependency in pairs:
        a, b = index.get(dependent), index.get(dependency)
        if a is None or b is None:
            continue
        dependents[b].append(a)
        direct[b] += 1
    comp = _tarjan(dependents)
    ncomp = max(comp) + 1 if comp else 0
    members = [0] * ncomp
    succ: list[set[int]] = [set() for _ in range(ncomp)]
    for v, c in enumerate(comp):
        members[c] |= 1 << v
        for w in dependents[v]:
            if comp[w] != c:
                succ[c].add(comp[w])
    # Tarjan numbers components in reverse topological order: successors come first
    reach = [0] * ncomp
    for c in range(ncomp):
        bits = 0
        for d in succ[c]:
            bits |= reach[d] | members[d]
        reach[c] = bits
    out = {}
    for v, n in enumerate(nodes):
        c = comp[v]
        bits = reach[c] | (members[c] & ~(1 << v))
        out[n] = bin(bits).count("1")
    return out, {n: direct[i] for i, n in enumerate(nodes)}


def _tarjan(adj: list[list[int]]) -> list[int]:
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    ncomp = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            recurse = False
            while i < len(adj[v]):
                w = adj[v][i]
                i += 1
                if index[w] == -1:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comp


def node_score(age_days: float, churn: int, reach: int, causal_in: int, side_effects: int) -> float:
    return (math.exp(-max(age_days, 0.0) / 7) + math.log1p(churn)
            + math.log1p(reach * 2 + causal_in) + math.log1p(side_effects) * 0.5)


def refresh_scores(store: Store, changed: bool = True) -> None:
    """Score files and edges again. A whole run that changed no file and no history (an editor's
    start) keeps scores made within SCORES_KEPT_S: only their age moved (exp(-days / 7): 0.006 an
    hour), and scoring 11,000 files cost that start 0.4 s and ~6 MB kept (BENCHMARKS.md ax)."""
    if not changed and time.time() - float(store.meta("scored_at") or 0) < SCORES_KEPT_S:
        return
    rows = code.file_score_inputs(store.conn)
    nodes = [r[0] for r in rows]
    reach, direct = reachability(nodes, edges.dependency_pairs(store.conn, DEPENDENCY_KINDS))
    now = time.time()
    scores = []
    for path, when, churn, effects in rows:
        age = (now - when) / 86400 if when else 365.0
        n_effects = len([e for e in (effects or "").split(",") if e])
        scores.append((path, reach[path], round(node_score(age, churn or 0, reach[path], direct[path], n_effects), 4)))
    with store.transaction() as cur:
        code.write_file_scores(store, cur, scores)
        edges.write_edge_scores(cur, EDGE_WEIGHTS)
        edges.fill_fingerprints(cur)
        store.set_meta("scored_at", str(now), cur)
