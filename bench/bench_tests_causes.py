"""Benchmark ad (causes): why test selection lists a test file that coverage says never runs a
source file. For each false positive of `bench_truth.py --parts tests`, one shortest selecting
path (walking the selection backwards from the file's symbols to an entry of the test file), and
its cause: the first that applies of

    no test in the file   the test file holds no function or class named test*
    file-level rule       no path in the symbol graph; which of graph/tests_reach.py `select`'s rules:
                          blind (an unresolved call of the test file through a module the walk reached),
                          unknown file (asserting on or walked to, no symbol of the file reached),
                          other language, importer (the test file makes no resolved call into the code)
    name guess            a name_unique / name_ambiguous edge on the path
    dispatch              a call through an attribute of self (`self.response_class(...)`)
    class step            a class's maker -> one of its (non-dunder) methods
    not taken             a resolved path the run does not take (a branch, an error path)

    python bench/bench_tests_causes.py --package flask==3.0.3 --truth out.json   # out.json: bench_truth --out
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, deque
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
import truth_corpus  # noqa: E402

from memory_lsp.graph import tests_reach  # noqa: E402
from memory_lsp.graph.impact import ImpactGraph  # noqa: E402
from memory_lsp.workspace import Workspace  # noqa: E402

GUESSES = ("name_unique", "name_ambiguous")


def holds_tests(ws_path: Path, test: str) -> bool:
    src = (ws_path / test).read_text(errors="replace")
    return bool(re.search(r"^\s*(async\s+)?def\s+test|^\s*class\s+Test", src, re.M))


def path_to(g, walk, target_path: str, test_file: str) -> list[int] | None:
    """The nodes from a test entry of `test_file` to a symbol of `target_path`, shortest first found."""
    starts = tests_reach.starts_of(g, target_path, target_path)
    prev = {int(s): None for s in starts if walk.live[s]}
    queue, test = deque(prev), g.node_id(test_file)
    while queue:
        v = queue.popleft()
        if g.path_of[v] == test and not walk.has_caller[v]:
            chain = []
            while v is not None:
                chain.append(v)
                v = prev[v]
            return chain
        up = [int(walk.parent[v])] if walk.parent[v] >= 0 else []
        for u in walk.node[walk.ptr[v]:walk.ptr[v + 1]].tolist() + up:
            if u not in prev and walk.live[u]:
                prev[u] = v
                queue.append(u)
    return None


def cause(g, walk, strategies: dict, chain: list[int] | None) -> str:
    if chain is None:
        return "file-level rule"
    found = set()
    for caller, callee in zip(chain, chain[1:]):
        got = strategies.get((g.names[caller], g.names[callee]))
        if got is not None:
            found |= {"name guess" for s in got if s in GUESSES}
        elif walk.parent[callee] == caller:
            leaf = g.names[callee].rsplit(".", 1)[-1]
            holder = g.names[caller].rsplit("::", 1)[-1].rsplit(".", 1)[-1]
            if holder[:1].isupper() and not g.is_test[g.path_of[callee]] and not leaf.startswith("__"):
                found.add("class step")
        else:
            found.add("dispatch")
    return next((c for c in ("name guess", "dispatch", "class step") if c in found), "not taken")


def file_rule(g, reach, source: str, test: str) -> str:
    """Which of `tests_reach.select`'s rules beside the walk lists `test` for the file `source`."""
    own, t = g.node_id(source), g.node_id(test)
    deps, _ = g.walk(source, source, 3)
    files = {int(g.path_of[g.node_id(d.node)]) for d in deps if g.node_id(d.node) is not None} | {own}
    files.discard(-1)
    blind = [src for f in files for src in reach.blind.get(f, ())]
    if blind and t in reach.test_files(g, np.array(blind, dtype=np.int64)):
        via = sorted({g.names[f] for f in files if set(reach.blind.get(f, ())) & set(blind)})
        return "blind (" + ", ".join(via[:3]) + ")"
    asserting = {a for f in files for a in g.assert_src[g.assert_ptr[f]:g.assert_ptr[f + 1]].tolist()}
    if t in asserting | files:
        if tests_reach._ext(test) not in reach.call_exts:
            return "other language"
        return "unknown file (" + ("asserting" if t in asserting else "walked to") + ")"
    return "importer"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", required=True)
    ap.add_argument("--truth", required=True, help="bench_truth.py --parts tests --out file")
    ap.add_argument("--paths", action="store_true", help="print each false positive's path")
    args = ap.parse_args()
    runs = json.loads(Path(args.truth).read_text())  # one entry per package: this package's
    pairs = next(r for r in runs if r["corpus"] == args.package)["tests"]["false_positives"]
    ws_path = truth_corpus.workspace(args.package)
    ws = Workspace.open(ws_path, db=corpora.fresh_db("causes-" + args.package.split("==")[0]))
    ws.index()
    g = ImpactGraph.load(ws.store)
    reach = tests_reach.TestReach(g, g.unresolved_calls)
    walk = reach.walk
    strategies: dict[tuple[str, str], list[str]] = {}
    for src, dst, strategy in ws.store.cursor().execute(
            "SELECT src, dst, coalesce(strategy, '') FROM edges "
            "WHERE kind IN ('CALLS', 'INHERITS', 'USES_FIXTURE')").fetchall():
        strategies.setdefault((src, dst), []).append(strategy)
    causes = Counter()
    for test, source in pairs:
        chain = None if not holds_tests(ws_path, test) else path_to(g, walk, source, test)
        why = "no test in the file" if not holds_tests(ws_path, test) else cause(g, walk, strategies, chain)
        if why == "file-level rule" and args.paths:
            why += ": " + file_rule(g, reach, source, test)
        causes[why.partition(":")[0]] += 1
        if args.paths:
            print(f"{test} <- {source}: {why}" + "".join(f"\n    {g.names[v]}" for v in chain or ()))
    print(json.dumps({"package": args.package, "false_positives": len(pairs), "causes": dict(causes.most_common())}))
    ws.close()


if __name__ == "__main__":
    main()
