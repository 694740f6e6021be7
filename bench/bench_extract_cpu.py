"""Per-file extraction CPU time (index/extract.py alone, no database): the cost of what the
Python query captures, base against branch.

    python bench/bench_extract_cpu.py [--files 300] [--rounds 3] [--base PATH]
    python bench/bench_extract_cpu.py --root DIR --language typescript --base PATH   # another language

Extracts the same random sample of stdlib files (seed 7) in one child process per run, the
branch's code and then the code at --base (PYTHONPATH), alternating `--rounds` times; prints each
run's process time and the medians' ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

CHILD = r"""
import json, random, sys, time
from memory_lsp.index import extract, languages
files = json.loads(sys.argv[1])
datas = [(p, open(p, "rb").read()) for p in files]
lang = sys.argv[2]
extract.extract("warm", b"f()\n", lang)  # grammar and query loaded once
t = time.process_time()
for p, data in datas:
    extract.extract(p, data, lang)
print(json.dumps({"cpu_s": time.process_time() - t, "module": extract.__file__}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base", required=True, help="the base commit's source tree (its memory_lsp/ parent)")
    ap.add_argument("--root", help="a folder of another language's files (default: the stdlib)")
    ap.add_argument("--language", default="python", help="with --root: the language name (typescript...)")
    args = ap.parse_args()
    import random

    from memory_lsp.index import languages

    if args.root:
        files = sorted(str(p) for p in Path(args.root).rglob("*") if p.is_file()
                       and (lang := languages.language_for(str(p))) and lang.name == args.language)
    else:
        files = sorted(str(p) for p in corpora.stdlib_source_files())
    sample = random.Random(7).sample(files, min(args.files, len(files)))
    runs: dict[str, list[float]] = {"branch": [], "base": []}
    for _ in range(args.rounds):
        for label in ("branch", "base"):
            env = dict(os.environ)
            if label == "base":
                env["PYTHONPATH"] = args.base
            out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(sample), args.language], env=env, cwd="/",
                                 capture_output=True, text=True, check=True)
            got = json.loads(out.stdout)
            runs[label].append(round(got["cpu_s"], 3))
            print(label, got, flush=True)
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(json.dumps({"files": len(sample), "runs": runs, "median": med,
                      "ratio": round(med["branch"] / med["base"], 3)}))


if __name__ == "__main__":
    main()
