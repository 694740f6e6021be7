"""Benchmark g: does the graph tell the truth? CALLS, impact, INHERITS and test selection against
tools nobody here wrote (jedi, CPython `__bases__`, coverage.py), on registry packages.

    python bench/bench_truth.py                                  # the default corpora below
    python bench/bench_truth.py --packages flask==3.0.3 --parts calls impact
    python bench/bench_truth.py --packages --parts django     # QuerySet.filter callers only (and jedi's, with its django-stubs)

Per corpus (bench/truth_corpus.py makes the workspace and the cached truths):
  calls      per call site jedi answers (goto, follow_imports): precision of our CALLS edges there
             (an edge at a site jedi sends outside the workspace is wrong), per strategy and for
             edges at or above the default --min-confidence; recall over the sites jedi resolves
             inside the workspace (the site is found when one of our edges names jedi's target);
             super().m() recall alone;
  impact     `impact path::func --depth 3` on up to 150 functions with a caller, against the
             transitive callers (depth 3) of jedi's call graph (the caller of a site is the function
             around it); ours: the symbol dependents reached by CALLS only, as listed by default;
  impact_run the same targets against jedi's callers and the calls the package's tests make when
             run (bench_calls_run.py, CPython's profiler hook): where jedi has no answer (a pytest
             fixture's value), the run may;
  inherits   INHERITS edges of the package's classes against `__bases__` within the package;
  tests      `impact <source file>` tests against coverage per-test contexts (the test files that run
             any line of the file inside a test: import-time lines run at collection, outside any
             test); scored over the source files some test runs.
Needs the `bench` extra (jedi, coverage); the corpora's own tests run in a venv of their own.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_calls_run  # noqa: E402
import corpora  # noqa: E402
import truth_corpus  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402

DEV = ["requests==2.32.3", "click==8.1.8", "attrs==24.2.0"]
HELD_OUT = ["flask==3.0.3",  # never looked at while the resolution was changed
            "itsdangerous==2.2.0", "jinja2==3.1.4",  # nor while test selection was (issue 12 item 5)
            "packaging==24.2"]  # nor while its second part was (BENCHMARKS ad)


def ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def our_calls(cur) -> dict[tuple, list[tuple]]:
    sites = defaultdict(list)
    for path, line, name, dst, strategy, conf in cur.execute(
            "SELECT src_path, line, name, dst, strategy, confidence FROM edges WHERE kind = 'CALLS'").fetchall():
        sites[(path, line, name)].append((dst, strategy or "", conf))
    return sites


def symbol_at(cur) -> dict[tuple, str]:
    return {(p, line, n): i for i, p, line, n in cur.execute(
        "SELECT id, path, start_line, name FROM symbols").fetchall()}


def score_calls(cur, truth: list[dict], min_conf: float) -> tuple[dict, dict]:
    ours, defs = our_calls(cur), symbol_at(cur)
    per = defaultdict(lambda: [0, 0])  # strategy -> [right, all]
    found = resolved = sup_found = sup_all = 0
    unknown_targets = 0
    graph = defaultdict(set)  # callee id -> caller sites' (path, line)
    for site in truth:
        t = site["truth"]
        if t is None:
            continue
        key = (site["path"], site["line"], site["name"])
        right = set()
        if t not in ("external", "local"):
            for p, line, n in t:
                sid = defs.get((p, line, n))
                if sid:
                    right.add(sid)
                    graph[sid].add((site["path"], site["line"]))
            if not right:
                unknown_targets += 1
                continue
        edges = ours.get(key, [])
        for dst, strategy, conf in edges:
            ok = dst in right
            for bucket in (strategy, "all") + (("listed",) if conf >= min_conf else ()):
                per[bucket][0] += ok
                per[bucket][1] += 1
        if right:
            resolved += 1
            hit = any(dst in right for dst, _, _ in edges)
            hit_listed = any(dst in right and c >= min_conf for dst, _, c in edges)
            found += hit
            per["recall_listed"][0] += hit_listed
            per["recall_listed"][1] += 1
            if site["super"]:
                sup_all += 1
                sup_found += hit
    result = {"sites_jedi_resolves": sum(1 for s in truth if s["truth"] is not None),
              "sites_inside": resolved, "precision": ratio(*per["all"]), "recall": ratio(found, resolved),
              "precision_listed": ratio(*per["listed"]), "recall_listed": ratio(*per["recall_listed"]),
              "super_recall": ratio(sup_found, sup_all), "super_sites": sup_all,
              "per_strategy": {k: {"precision": ratio(*v), "edges": v[1]} for k, v in sorted(per.items())
                               if k not in ("all", "listed", "recall_listed")},
              "jedi_targets_not_symbols": unknown_targets}
    return result, graph


def enclosing(cur) -> dict[str, list[tuple]]:
    spans = defaultdict(list)
    for i, p, a, b in cur.execute("SELECT id, path, start_line, end_line FROM symbols").fetchall():
        spans[p].append((b - a, a, b, i))
    for v in spans.values():
        v.sort()
    return spans


def judged_pairs(cur, truth: list[dict]) -> set[tuple]:
    """(caller, callee) pairs with a CALLS edge at a site jedi answers: a dependent reached only
    through edges at sites jedi cannot answer (a pytest fixture's `app.run()`) jedi cannot judge."""
    answered = {(s["path"], s["line"], s["name"]) for s in truth if s["truth"] is not None}
    return {(src, dst) for src, dst, p, line, name in cur.execute(
        "SELECT src, dst, src_path, line, name FROM edges WHERE kind = 'CALLS'").fetchall()
        if (p, line, name) in answered}


def score_impact(ws, cur, graph: dict, min_conf: float, n: int = 150, judged: set | None = None,
                 ran: set | None = None) -> dict:
    """Impact at depth 3 on a sample of functions against the transitive callers in jedi's
    answers; `ran`: (caller, callee) pairs the package's tests made (bench_calls_run.py), added to
    the truth where jedi has no answer (the same sample of targets)."""
    spans = enclosing(cur)
    kinds = dict(cur.execute("SELECT id, kind FROM symbols").fetchall())

    def caller(path, line):
        return next((i for _, a, b, i in spans.get(path, ()) if a <= line <= b), None)
    callers = {callee: {caller(p, line) for p, line in sites} - {None} for callee, sites in graph.items()}
    funcs = sorted(c for c, v in callers.items() if v and kinds.get(c) in ("function", "method"))
    for caller_id, callee in ran or ():
        if caller_id in kinds:
            callers.setdefault(callee, set()).add(caller_id)
    rng = random.Random(12)
    right = listed = truth_n = 0
    judged_right = judged_listed = 0
    worst = []
    for target in rng.sample(funcs, min(n, len(funcs))):
        truth, frontier = set(), {target}
        for _ in range(3):
            frontier = {c for f in frontier for c in callers.get(f, ())} - truth - {target}
            truth |= frontier
        got = ws.impact(target, depth=3)
        ours = {f"{d['path']}::{d['symbol']}" for d in got["dependents"] if d["symbol"]
                and set(d["edge_kinds"]) == {"CALLS"} and d.get("confidence", 1) >= min_conf}
        right += len(ours & truth)
        listed += len(ours)
        if judged is not None:  # the dependents whose every step jedi can judge
            steps = {f"{d['path']}::{d['symbol']}": d["via"] for d in got["dependents"] if d["symbol"]}
            sure = {x for x in ours if all((a, b) in judged for b, a in zip(steps[x], steps[x][1:]))}
            judged_right += len(sure & truth)
            judged_listed += len(sure)
        truth_n += len(truth)
        worst.append((len(truth - ours), target, len(truth), len(ours & truth), got.get("unresolved")))
    worst.sort(reverse=True)
    return {"targets": min(n, len(funcs)), "precision": ratio(right, listed), "recall": ratio(right, truth_n),
            "precision_judged": ratio(judged_right, judged_listed), "judged_share": ratio(judged_listed, listed),
            "most_missed": [{"target": t, "truth": tn, "found": f, "unresolved": u} for _, t, tn, f, u in worst[:3]]}


def score_inherits(cur, truth: dict) -> dict:
    classes = set(truth["classes"])
    pairs = {tuple(p) for p in truth["pairs"]}
    ours = {(s, d) for s, d in cur.execute("SELECT src, dst FROM edges WHERE kind = 'INHERITS'").fetchall()
            if s in classes}
    return {"classes": len(classes), "bases": len(pairs), "precision": ratio(len(ours & pairs), len(ours)),
            "recall": ratio(len(ours & pairs), len(pairs)), "missed": sorted(pairs - ours)[:5],
            "wrong": sorted(ours - pairs)[:5]}


def score_tests(ws, truth: dict[str, list[str]], sources: tuple[str, ...] = ("src/",)) -> dict:
    """`sources`: the folders whose files are scored (src/, and typer's docs_src/ its tests run)."""
    right = listed = truth_n = 0
    files = 0
    wrong, missed = [], []  # (test file, source file): listed and not run; run and not listed
    for path, tests in sorted(truth.items()):
        if not tests or not path.startswith(sources):
            continue
        files += 1
        got = set(ws.impact(path, depth=3)["tests"])
        right += len(got & set(tests))
        listed += len(got)
        truth_n += len(tests)
        wrong += [(t, path) for t in sorted(got - set(tests))]
        missed += [(t, path) for t in sorted(set(tests) - got)]
    return {"source_files": files, "precision": ratio(right, listed), "recall": ratio(right, truth_n),
            "false_positives": wrong, "missed": missed}


def run(spec: str, parts: list[str], min_conf: float) -> dict:
    ws_path = truth_corpus.workspace(spec)
    out: dict = {"corpus": spec, "files": len(truth_corpus.py_files(ws_path))}
    ws = Workspace.open(ws_path, db=corpora.fresh_db("truth-" + spec.split("==")[0]))
    t = time.perf_counter()
    ws.index()
    out["index_s"] = round(time.perf_counter() - t, 2)
    cur = ws.store.cursor()
    if {"calls", "impact", "impact_run"} & set(parts):
        out["calls"], graph = score_calls(cur, truth_corpus.calls_truth(spec, ws_path), min_conf)
        if "impact" in parts:
            out["impact"] = score_impact(ws, cur, graph, min_conf,
                                         judged=judged_pairs(cur, truth_corpus.calls_truth(spec, ws_path)))
        if "impact_run" in parts:  # jedi's callers and the calls the tests made when run
            out["impact_run"] = score_impact(ws, cur, graph, min_conf, ran=bench_calls_run.run_calls(spec, ws_path)[0])
    if "inherits" in parts:
        out["inherits"] = score_inherits(cur, truth_corpus.bases_truth(spec, ws_path))
    if "tests" in parts:
        extra = truth_corpus.EXTRA_PARTS.get(spec.split("==")[0], ())
        out["tests"] = score_tests(ws, truth_corpus.tests_truth(spec, ws_path), ("src/", *(p + "/" for p in extra)))
    ws.close()
    return out


def jedi_filter_callers(root: Path) -> set[str]:
    """The functions (`path::Qual.name`) around the `.filter(` sites of Django's own code that jedi,
    with the django-stubs it bundles, sends to a QuerySet's `filter` (the source's or the stubs')."""
    import re

    import jedi

    project, found = jedi.Project(str(root)), set()
    for f in sorted(root.rglob("*.py")):
        src = f.read_text(errors="replace")
        if ".filter(" not in src:
            continue
        script = jedi.Script(src, path=str(f), project=project)
        for i, line in enumerate(src.split("\n"), 1):
            for m in re.finditer(r"\.filter\(", line):
                try:
                    defs = script.goto(i, m.start() + 1, follow_imports=True)
                except Exception:  # jedi's own errors on odd code: that site has no answer
                    continue
                if any(d.name == "filter" and str(d.module_path or "").endswith(("models/query.py", "models/query.pyi"))
                       for d in defs):
                    context = script.get_context(i, m.start() + 1)
                    rel = f.relative_to(root).as_posix()
                    module = rel[:-3].replace("/", ".")
                    name = (context.full_name or "") if context else ""  # none: module level
                    qual = name[len(module) + 1:] if name.startswith(module + ".") else ""
                    found.add(f"{rel}::{qual}" if qual else rel)
    return found


def django_filter_callers() -> dict:
    """The issue's reference point: callers of QuerySet.filter in Django (codebase-memory-mcp: 42,
    8 of them inside query.py), and against jedi with its django-stubs: the functions each finds."""
    root = corpora.package_copy("django")
    ws = Workspace.open(root, db=corpora.fresh_db("truth-django"))
    ws.index()
    out = {}
    jedi_found = jedi_filter_callers(root)
    for label, floor in (("default", None), ("everything", 0.0)):
        target = "django/db/models/query.py::QuerySet.filter"
        try:
            got = ws.impact(target, depth=1, min_confidence=floor)
        except TypeError:  # the code before issue 12 (a baseline run) lists everything
            got = ws.impact(target, depth=1)
        callers = [d for d in got["dependents"] if d["symbol"] and d["edge_kinds"] == ["CALLS"]]
        ours = {f"{d['path']}::{d['symbol']}" for d in callers}
        out[label] = {"callers": len(callers), "in_query_py": sum(d["path"].endswith("models/query.py")
                                                                  for d in callers),
                      "unresolved": got["unresolved"], "jedi_functions": len(jedi_found),
                      "jedi_only": sorted(jedi_found - ours), "ours_only": sorted(ours - jedi_found)}
    ws.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packages", nargs="*", default=DEV + HELD_OUT)
    ap.add_argument("--parts", nargs="+", default=["calls", "impact", "inherits", "tests"])
    ap.add_argument("--min-confidence", type=float, default=0.0,
                    help="score what impact lists at this threshold (default: everything)")
    ap.add_argument("--out", help="write the JSON here as well")
    args = ap.parse_args()
    results = [run(spec, args.parts, args.min_confidence) for spec in args.packages]
    if "django" in args.parts:
        results.append({"corpus": "django", "queryset_filter": django_filter_callers()})
    text = json.dumps(results, indent=1)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
