"""Consolidation (issue 15 item 6): proposals against hand-labelled pairs, and its time on real rules.

1. Each pair of bench/consolidate_cases.json is taught into its own fresh workspace (so pairs do
   not meet each other); `memory.consolidate` runs; a pair is right when the proposal matches
   its label (merge, supersede with the newer kept, or nothing).
2. With --rules DIR: every AGENTS.md, .cursorrules and .mdc under DIR is imported into one
   workspace and consolidate runs once: the number of proposals and the seconds it took.

    python bench/bench_consolidate.py [--rules /tmp/rules]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from memory_lsp.commands import run
from memory_lsp.retrieval.embedder import Embedder
from memory_lsp.workspace.offline import OfflineWorkspace

CASES = Path(__file__).resolve().parent / "consolidate_cases.json"
CODE = "def fetch(url):\n    return url\n\n\ndef close():\n    return None\n"


def judge(label: str, first: list, second: list) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "client.py").write_text(CODE)
        ws = OfflineWorkspace(root)
        ids = [run(ws, "memory.teach", {"text": t, "type": k, "cite": c})["id"]
               for t, k, *c in (first, second)]
        proposals = run(ws, "memory.consolidate", {})["proposals"]
    got = "none" if not proposals else proposals[0]["kind"]
    ok = got == label and (label != "supersede" or proposals[0]["keep"] == ids[1])
    return ok and len(proposals) <= 1, got


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    pairs = json.loads(CASES.read_text())["pairs"]
    by_label: dict[str, list[int]] = {}
    for label, first, second in pairs:
        ok, got = judge(label, first, second)
        by_label.setdefault(label, [0, 0])
        by_label[label][0] += ok
        by_label[label][1] += 1
        if args.verbose and not ok:
            print(f"  WRONG want {label} got {got}: {first[0]} | {second[0]}")
    result = {"pairs": len(pairs), "right": sum(a for a, _ in by_label.values()),
              "by_label": {k: f"{a}/{b}" for k, (a, b) in sorted(by_label.items())}}
    if args.rules:
        with tempfile.TemporaryDirectory() as tmp:
            ws = OfflineWorkspace(Path(tmp))
            files = [p for p in args.rules.rglob("*") if p.is_file()
                     and (p.name in ("AGENTS.md", ".cursorrules") or p.suffix == ".mdc")]
            for p in files:
                target = Path(tmp) / p.relative_to(args.rules)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(p.read_bytes())
            imported = run(ws, "memory.import", {"files": [str(Path(tmp) / p.relative_to(args.rules)) for p in files]})
            started = time.perf_counter()
            done = run(ws, "memory.consolidate", {})
            seconds = time.perf_counter() - started
            texts = [m.text for m in ws.memories()]
            started_embed = time.perf_counter()  # the baseline: embedding the same texts, nothing else
            Embedder().encode(texts)
            embed_seconds = time.perf_counter() - started_embed
            result["real_rules"] = {"files": len(files), "memories": len(imported["created"]),
                                    "embed_only_seconds": round(embed_seconds, 1),
                                    "flagged_at_import": len(imported["duplicates"]),
                                    "proposals": len(done["proposals"]), "similarity": done["similarity"],
                                    "seconds": round(seconds, 1), "ratio_to_embed_only": round(seconds / embed_seconds, 2)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
