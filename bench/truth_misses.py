"""What bench_truth.py counts wrong, one line each, to sort by cause (issue 12 items 1, 3, 6).

    python bench/truth_misses.py flask==3.0.3 [--min-confidence 0.5] [--impact]

Prints, for one corpus: every CALLS edge at a site jedi answers that names another target
("false", with its strategy and the ref's receiver and rtype), every site jedi resolves inside
the workspace with no edge at or above the threshold ("miss", same details, what jedi says);
with --impact, the sampled targets' false and missed dependents, each with the site (the edge)
that links it (false) or the jedi site (missed).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_truth  # noqa: E402
import corpora  # noqa: E402
import truth_corpus  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--min-confidence", type=float, default=0.5)
    ap.add_argument("--impact", action="store_true")
    args = ap.parse_args()
    ws_path = truth_corpus.workspace(args.spec)
    ws = Workspace.open(ws_path, db=corpora.fresh_db("misses-" + args.spec.split("==")[0]))
    ws.index()
    cur = ws.store.cursor()
    refs = {(p, ln, n): (r, t) for p, ln, n, r, t in cur.execute(
        "SELECT path, line, name, receiver, rtype FROM refs WHERE kind = 'call'").fetchall()}
    truth = truth_corpus.calls_truth(args.spec, ws_path)
    ours, defs = bench_truth.our_calls(cur), bench_truth.symbol_at(cur)
    causes = Counter()
    for site in truth:
        t = site["truth"]
        if t is None:
            continue
        key = (site["path"], site["line"], site["name"])
        right = {defs[tuple(x)] for x in t if tuple(x) in defs} if t not in ("external", "local") else set()
        if t not in ("external", "local") and not right:
            continue  # jedi's target is no symbol here: bench_truth.py does not score the site
        recv, rtype = refs.get(key, (None, None))
        edges = ours.get(key, [])
        for dst, strategy, conf in edges:
            if dst not in right:
                causes["false " + strategy] += 1
                print(f"false {strategy} {conf:.2f} {key[0]}:{key[1]} {recv}.{key[2]} rtype={rtype} -> {dst}"
                      f" (jedi: {sorted(right) or t})")
        if right and not any(d in right and c >= args.min_confidence for d, _, c in edges):
            causes["miss"] += 1
            print(f"miss {key[0]}:{key[1]} {recv}.{key[2]} rtype={rtype} jedi={sorted(right)}"
                  f" ours={[(d, s, round(c, 2)) for d, s, c in edges]}")
    if args.impact:
        _impact(ws, cur, truth, defs, ours, args.min_confidence, causes)
    print(dict(causes))
    ws.close()


def _impact(ws, cur, truth, defs, ours, min_conf, causes) -> None:
    """The same sample bench_truth.score_impact takes, with the false and missed dependents."""
    _, graph = bench_truth.score_calls(cur, truth, min_conf)
    spans = bench_truth.enclosing(cur)
    kinds = dict(cur.execute("SELECT id, kind FROM symbols").fetchall())

    def caller(path, line):
        return next((i for _, a, b, i in spans.get(path, ()) if a <= line <= b), None)
    callers = {c: {caller(p, ln) for p, ln in sites} - {None} for c, sites in graph.items()}
    funcs = sorted(c for c, v in callers.items() if v and kinds.get(c) in ("function", "method"))
    # the edges into each callee, with the site's jedi answer
    answer = {(s["path"], s["line"], s["name"]): s["truth"] for s in truth}
    into = defaultdict(list)
    for key, edges in ours.items():
        for dst, strategy, conf in edges:
            if conf >= min_conf:
                into[dst].append((caller(key[0], key[1]), key, strategy))
    bad_edges = Counter()
    for target in random.Random(12).sample(funcs, min(150, len(funcs))):
        want, frontier = set(), {target}
        for _ in range(3):
            frontier = {c for f in frontier for c in callers.get(f, ())} - want - {target}
            want |= frontier
        got = ws.impact(target, depth=3)
        have = {f"{d['path']}::{d['symbol']}": d for d in got["dependents"] if d["symbol"]
                and set(d["edge_kinds"]) == {"CALLS"} and d.get("confidence", 1) >= min_conf}
        for x in sorted(set(have) - want):
            via = have[x]["via"]
            prev = via[-2] if len(via) > 1 else target
            why = [(k, s, answer.get(k, "no-site")) for c, k, s in into.get(prev, []) if c == x]
            for k, s, a in why:
                bad_edges[(k, s, str(a)[:60])] += 1
            causes["impact false"] += 1
            print(f"impact-false {target} <- {x} via {via[-3:]} edges={why[:2]}")
        for x in sorted(want - set(have)):
            causes["impact miss"] += 1
            print(f"impact-miss {target} <- {x}")
    for (k, s, a), n in bad_edges.most_common(40):
        print(f"bad-edge x{n} {k} {s} jedi={a}")


if __name__ == "__main__":
    main()
