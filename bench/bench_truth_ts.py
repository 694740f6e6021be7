"""Benchmark al: TypeScript CALLS and impact against TypeScript's own type checker (issue 12 item 1,
"the same ideas where they apply in TS/JS").

Per corpus, an npm package's own TypeScript sources (its src/, package.json and a tsconfig.json;
no build outputs) indexed by memory-lsp, and the truth from the TypeScript compiler API
(bench/ts_calls_truth.cjs: the symbol the checker gives each call's and `new`'s name, aliases
followed), scored exactly as bench_truth.py scores Python against jedi: CALLS precision per
strategy and recall on the sites the checker sends inside the project, impact at depth 3.

    python bench/bench_truth_ts.py [--packages zod rxjs] [--min-confidence 0.5] [--out f.json]

Needs node/npm: the packages and typescript are npm-installed into $MEMORY_LSP_BENCH_DIR/ts-calls.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
from bench_imports_other import ZOD_TSCONFIG  # noqa: E402
from bench_truth import judged_pairs, score_calls, score_impact  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402

HOME = corpora.CACHE / "ts-calls"
TYPESCRIPT = "5.9.3"  # the last release with the JavaScript compiler API (7 is the native port)
TSCONFIG = {"compilerOptions": {"target": "es2020", "module": "esnext", "moduleResolution": "bundler",
                                "lib": ["es2020", "dom"], "noEmit": True, "skipLibCheck": True, "types": []},
            "include": ["src/**/*.ts"]}
PACKAGES = {"zod": ("4.6.7", ZOD_TSCONFIG),  # functional API over classes; its tests live in src/
            "rxjs": ("7.8.2", TSCONFIG)}  # classes and methods: Observable, Subscriber, Subject


def npm(*args: str) -> None:
    done = subprocess.run(["npm", *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"npm {' '.join(args)} failed:\n{done.stderr}")


def typescript() -> Path:
    where = HOME / "typescript" / "node_modules" / "typescript"
    if not (where / "package.json").exists():
        npm("install", "--prefix", str(HOME / "typescript"), f"typescript@{TYPESCRIPT}")
    return where


def corpus(name: str) -> Path:
    """The package's src/ and package.json, with a tsconfig.json, made once."""
    version, tsconfig = PACKAGES[name]
    dest = HOME / f"{name}-{version}"
    if (dest / ".complete").exists():
        return dest
    HOME.mkdir(parents=True, exist_ok=True)
    npm("pack", f"{name}@{version}", "--pack-destination", str(HOME))
    shutil.rmtree(dest, ignore_errors=True)
    unpacked = HOME / f"{name}-unpacked"
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(HOME / f"{name}-{version}.tgz") as tar:
        tar.extractall(unpacked, filter="data")
    dest.mkdir()
    shutil.copytree(unpacked / "package" / "src", dest / "src",
                    ignore=shutil.ignore_patterns("*.js", "*.json"))  # sources only: no build outputs or configs
    shutil.copy(unpacked / "package" / "package.json", dest / "package.json")
    (dest / "tsconfig.json").write_text(json.dumps(tsconfig, indent=1))
    shutil.rmtree(unpacked)
    (dest / ".complete").write_text("")
    return dest


def calls_truth(ws: Path) -> list[dict]:
    cache = ws.parent / f"{ws.name}.calls.json"
    if not cache.exists():
        done = subprocess.run(["node", str(Path(__file__).with_name("ts_calls_truth.cjs")), str(typescript()),
                               str(ws)], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"ts_calls_truth.cjs failed:\n{done.stderr}")
        cache.write_text(done.stdout)
    return json.loads(cache.read_text())


def run(name: str, min_conf: float) -> dict:
    ws_path = corpus(name)
    truth = calls_truth(ws_path)
    ws = Workspace.open(ws_path, db=corpora.fresh_db("truth-ts-" + name))
    t = time.perf_counter()
    report = ws.index()
    out: dict = {"corpus": f"{name} {PACKAGES[name][0]}", "files": report.files,
                 "index_s": round(time.perf_counter() - t, 2), "typescript": TYPESCRIPT}
    cur = ws.store.cursor()
    out["calls"], graph = score_calls(cur, truth, min_conf)
    out["impact"] = score_impact(ws, cur, graph, min_conf, judged=judged_pairs(cur, truth))
    ws.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packages", nargs="+", default=list(PACKAGES), choices=list(PACKAGES))
    ap.add_argument("--min-confidence", type=float, default=0.0,
                    help="score what impact lists at this threshold (default: everything)")
    ap.add_argument("--out", help="write the JSON here as well")
    args = ap.parse_args()
    text = json.dumps([run(name, args.min_confidence) for name in args.packages], indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
