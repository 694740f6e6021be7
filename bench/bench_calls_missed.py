"""Benchmark g (misses): the call sites `bench_truth.py --parts calls` counts as missed (jedi
resolves them inside the package, no CALLS edge of ours names jedi's target), each with the edges
made there, the receiver's type as the index wrote it, and the line; then the count per type.
What to read first when a package's recall falls short (section bg: werkzeug).

    python bench/bench_calls_missed.py werkzeug==3.0.4
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_truth  # noqa: E402
import corpora  # noqa: E402
import truth_corpus  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402


def kind_of(rtype: str | None, edges: list) -> str:
    if edges:
        return "an edge elsewhere"
    if rtype is None:
        return "untyped"
    return "a mark not resolved" if rtype.startswith("->") else f"typed {rtype}" if rtype in ("builtin", "local", "super") \
        else "typed, no method found"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package", help="a registry spec, as bench_truth.py takes it (name==version)")
    args = ap.parse_args()
    ws_path = truth_corpus.workspace(args.package)
    ws = Workspace.open(ws_path, db=corpora.fresh_db("truth-" + args.package.split("==")[0]))
    ws.index()
    cur = ws.store.cursor()
    ours, defs = bench_truth.our_calls(cur), bench_truth.symbol_at(cur)
    rtypes = {(p, line, n): t for p, line, n, t in cur.execute(
        "SELECT path, line, name, rtype FROM refs WHERE kind = 'call'").fetchall()}
    kinds: Counter = Counter()
    missed = 0
    for site in truth_corpus.calls_truth(args.package, ws_path):
        truth = site["truth"]
        if truth in (None, "external", "local"):
            continue
        right = {defs.get((p, line, n)) for p, line, n in truth} - {None}
        key = (site["path"], site["line"], site["name"])
        edges = ours.get(key, [])
        if not right or any(dst in right for dst, _, _ in edges):
            continue
        missed += 1
        kind = kind_of(rtypes.get(key), edges)
        kinds[kind] += 1
        text = (ws_path / site["path"]).read_text(errors="replace").splitlines()[site["line"] - 1].strip()
        made = [(dst.split("::")[-1], strategy) for dst, strategy, _ in edges]
        print(f"{site['path']}:{site['line']} {site['name']} -> {sorted(right)[0]}  [{kind}: "
              f"{rtypes.get(key)}] ours={made} | {text[:100]}")
    ws.close()
    print(f"\n{missed} missed sites")
    for kind, n in kinds.most_common():
        print(f"{n:6d}  {kind}")


if __name__ == "__main__":
    main()
