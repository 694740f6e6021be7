"""Benchmark k: recall on a real project nobody here wrote (Flask 3.0.3 + Werkzeug 3.0.3), issue 15 item 7.

The corpus is the two projects' sdists (src/ and tests/), fetched once with `pip download` into
the bench cache (never committed). Into a fresh memory log go the 56 memories of
`recall/memories.json` (each written after reading the cited code; every citation anchors or the
run stops) and the rule files of `recall/rules/` (written in the style of real CLAUDE.md,
AGENTS.md, .cursorrules, .windsurfrules, copilot-instructions.md and .cursor/rules/*.mdc files),
imported as a user would (`memory-lsp import`): a few hundred standing rules, most of them
unrelated to any one question or file.

Measured for a user who never ran `memory-lsp embed` (nothing embedded ahead of the queries):
- search: the 70 questions of `recall/queries.json`, k=10, modes bm25 / vector / hybrid, with
  `--kind all` and `--kind memory`: recall@1, recall@5 (expected memories in the top 5 over all
  expected), MRR@10 (first expected memory); and for 4 questions nothing here answers, how many
  results come back;
- per file with cited memories: the rank of its first own memory in `memories --file F`, and
  how many of its own memories (cited in F, up to 5) `context --file F --budget 800` includes.

    python bench/bench_recall_eval.py [--no-model] [--out bench/results/recall_eval.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import corpora  # noqa: E402

from memory_lsp import commands  # noqa: E402
from memory_lsp.paths import MEMORY_DIR  # noqa: E402
from memory_lsp.workspace import Workspace  # noqa: E402

DATA = HERE / "recall"
PACKAGES = {"flask": "3.0.3", "werkzeug": "3.0.3"}
RULE_FILES = {"CLAUDE.md": "CLAUDE.md", "AGENTS.md": "AGENTS.md", "cursorrules.txt": ".cursorrules",
              "windsurfrules.txt": ".windsurfrules", "copilot-instructions.md": ".github/copilot-instructions.md"}
K = 10


def corpus() -> Path:
    """src/ and tests/ of both sdists under one root: flask/, werkzeug/, tests_flask/, tests_werkzeug/."""
    dest = corpora.CACHE / "recall-flask"
    if (dest / ".complete").exists():
        return dest
    pkgs = corpora.CACHE / "pkgs"
    pkgs.mkdir(parents=True, exist_ok=True)
    wanted = [f"{name}=={version}" for name, version in PACKAGES.items()]
    if not all((pkgs / f"{n}-{v}.tar.gz").exists() for n, v in PACKAGES.items()):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        "-d", str(pkgs), *wanted], check=True)
    shutil.rmtree(dest, ignore_errors=True)
    for name, version in PACKAGES.items():
        with tarfile.open(pkgs / f"{name}-{version}.tar.gz") as tar:
            tar.extractall(pkgs, filter="data")
        top = pkgs / f"{name}-{version}"
        shutil.copytree(top / "src" / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(top / "tests", dest / f"tests_{name}", ignore=shutil.ignore_patterns("__pycache__"))
    (dest / ".complete").write_text("")
    return dest


def place_rules(root: Path) -> None:
    for name in sorted(p.name for p in (DATA / "rules").iterdir()):
        target = root / (RULE_FILES.get(name) or f".cursor/rules/{name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(DATA / "rules" / name, target)


def build() -> tuple[Workspace, dict[str, str], dict]:
    root = corpus()
    shutil.rmtree(root / MEMORY_DIR, ignore_errors=True)
    shutil.rmtree(root / ".cursor", ignore_errors=True)
    place_rules(root)
    ws = Workspace.open(root, db=corpora.fresh_db("recall-eval"))
    t = time.perf_counter()
    ws.index(workers=2)
    index_s = time.perf_counter() - t
    keys = {}
    for m in json.loads((DATA / "memories.json").read_text())["memories"]:
        written = ws.book.teach(m["text"], m["type"], cite=m["cite"])  # a citation that does not anchor stops here
        keys[written.memory.id] = m["key"]
    imported = ws.book.import_rules()
    ws.sync_memories()
    cur = ws.store.cursor()
    stats = {"files": cur.execute("SELECT count(*) FROM files").fetchone()[0], "index_s": round(index_s, 1),
             "memories": len(keys), "imported_rules": len(imported.created),
             "scoped_rules": sum(1 for m in imported.created if m.scope != "global")}
    return ws, keys, stats


def search_scores(ws, keys: dict[str, str], queries: list[dict], mode: str, kind: str) -> dict:
    r1, r5, rr, seconds = [], [], [], []
    for q in queries:
        t = time.perf_counter()
        found = ws.search(q["q"], kind=kind, k=K, mode=mode)["results"]
        seconds.append(time.perf_counter() - t)
        ranked = [keys.get(r["id"]) for r in found]
        expect = set(q["expect"])
        r1.append(float(ranked[:1] and ranked[0] in expect or 0))
        r5.append(len(expect & set(ranked[:5])) / len(expect))
        rr.append(next((1 / (i + 1) for i, key in enumerate(ranked) if key in expect), 0.0))
    n = len(queries)
    return {"recall@1": round(sum(r1) / n, 3), "recall@5": round(sum(r5) / n, 3), "mrr@10": round(sum(rr) / n, 3),
            "median_ms": round(1000 * statistics.median(seconds), 1), "first_ms": round(1000 * seconds[0], 1)}


def file_scores(ws, keys: dict[str, str]) -> dict:
    """For each cited file: the rank of its first own memory in `memories --file`, and how many of
    its own memories (up to 5) `context --file F --budget 800` holds."""
    own: dict[str, set[str]] = {}
    for m in ws.memories():
        if m.id in keys:
            for c in m.citations:
                own.setdefault(c.path, set()).add(m.id)
    ranks, covered, wanted, per_file = [], 0, 0, {}
    for path, ids in sorted(own.items()):
        listed = [m["id"] for m in commands.run(ws, "memory.memories", {"file": path})["memories"]]
        rank = next((i + 1 for i, mid in enumerate(listed) if mid in ids), None)
        ranks.append(rank or len(listed) + 1)
        packed = commands.run(ws, "memory.context", {"file": [path], "budget": 800})
        need = min(5, len(ids))
        got = min(need, len(ids & set(packed["memories"])))
        covered, wanted = covered + got, wanted + need
        per_file[path] = {"own": len(ids), "first_own_rank": rank, "listed": len(listed),
                          "context_has": got, "context_tokens": packed["tokens"],
                          "said_left_out": f"memory-lsp memories --file {path}" in packed["text"]}
    return {"files": len(own), "first_own_at_rank_1": round(sum(r == 1 for r in ranks) / len(ranks), 3),
            "median_first_own_rank": statistics.median(ranks),
            "context_800_coverage": round(covered / wanted, 3),
            "files_fully_covered": sum(1 for f in per_file.values() if f["context_has"] == min(5, f["own"])),
            "per_file": per_file}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(HERE / "results" / "recall_eval.json"))
    parser.add_argument("--no-model", action="store_true",
                        help="as if the embedding model were not installed: no vectors at all")
    args = parser.parse_args()
    ws, keys, stats = build()
    if args.no_model:  # what a search meets when the model cannot load
        ws.retriever()._embedder_error = "the benchmark runs without the model"
    data = json.loads((DATA / "queries.json").read_text())
    print(json.dumps(stats))
    out = {"corpus": stats, "search": {}, "misses": {}}
    for kind in ("all", "memory"):
        for mode in ("bm25", "vector", "hybrid"):
            scores = search_scores(ws, keys, data["queries"], mode, kind)
            out["search"][f"{mode}/{kind}"] = scores
            print(f"{mode:7s} --kind {kind:7s} {json.dumps(scores)}")
    for q in data["misses"]:
        result = ws.search(q, kind="memory", k=K)
        out["misses"][q] = {"results": len(result["results"]), "note": result["note"]}
    print("misses:", json.dumps(out["misses"]))
    out["files"] = file_scores(ws, keys)
    print("files:", json.dumps({k: v for k, v in out["files"].items() if k != "per_file"}))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1))
    ws.close()


if __name__ == "__main__":
    main()
