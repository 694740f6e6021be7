"""Import of real rule files (issue 15 item 5): types against a person's reading, lead-ins, filler.

The rule files are real projects' and are not committed; put them in a folder first:

    mkdir -p /tmp/rules/langcrew /tmp/rules/pydantic-ai
    git -C <clone of 01-ai/langcrew> show ec5a0d40:.cursorrules > /tmp/rules/langcrew/.cursorrules
    git -C <clone of pydantic/pydantic-ai> show 4fda3898:AGENTS.md > /tmp/rules/pydantic-ai/AGENTS.md
    python bench/bench_import.py --dir /tmp/rules

bench/import_labels.json holds the type a person gave each rule (by line); the figure is the share
of labelled rules the importer types the same way, plus the share typed `fact` and `policy`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from memory_lsp.memory.rules import parse_rules

LABELS = Path(__file__).resolve().parent / "import_labels.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True, type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    labels = json.loads(LABELS.read_text())
    right = judged = 0
    kinds: Counter = Counter()
    items_total = 0
    for rel, spec in labels["files"].items():
        path = args.dir / rel
        items = parse_rules(path.name, path.read_text())
        items_total += len(items)
        kinds.update(i.type for i in items)
        by_line = {str(i.line): i for i in items}
        for line, kind in spec["types"].items():
            got = by_line.get(line)
            judged += 1
            right += got is not None and got.type == kind
            if args.verbose and (got is None or got.type != kind):
                print(f"  {rel}:{line} want {kind} got {got.type if got else 'nothing'}: "
                      f"{got.text[:80] if got else ''}")
        for line, lead in labels["lead_ins"].get(rel, {}).items():
            got = by_line.get(line)
            print(f"  lead-in {rel}:{line}: {'kept' if got and lead in got.text else 'lost'}")
    print(json.dumps({"rules": items_total, "judged": judged, "type_agreement": round(right / judged, 3),
                      "share_fact": round(kinds["fact"] / items_total, 3),
                      "share_policy": round(kinds["policy"] / items_total, 3), "types": dict(kinds)}, indent=2))


if __name__ == "__main__":
    main()
