"""Benchmark v: IMPORTS in TypeScript, C and Go against tsc, gcc -MM and go list (issue 12 item 7).

Each corpus is indexed by memory-lsp in a child process (a fresh copy, `Workspace.index`), once
with this checkout and once with `--base` (another checkout, e.g. `git worktree add /tmp/base
22a9869`), and compared with a tool nobody here wrote, run on the same copy:

  ts  zod (npm pack zod@4.6.7: its src/ and its build outputs side by side, no tsconfig; the
      one written beside it is zod's own repository setting, `customConditions: ["@zod/source"]`,
      moduleResolution bundler). Truth: `tsc --traceResolution`, every (importing file,
      resolved file) pair inside the package for the files of src/. Ours: IMPORTS rows of the
      same files. Split by specifier: relative, and the package's own name (`zod/v4`, ...).
  c   brotli (pip download brotli==1.2.1 --no-binary: C sources under c/ with c/include/brotli/,
      python/_brotli.c). Truth: `gcc -MM -MG -Ic/include` per .c file: every workspace header the
      translation unit reads. Ours: the headers reachable from the .c file over IMPORTS rows.
      Twice: the workspace as shipped (include/ folder rule) and with a compile_commands.json
      that says `-Ic/include` for every .c file (the compile-db rule).
  go  golang.org/x/text 0.7.0 (Debian golang-golang-x-text-dev, /usr/share/gocode). Truth:
      `go list -e -json ./...` on linux/amd64 (package imports inside the module, the files that
      build leaves out), and go/build's own `Context.MatchFile` run over every GOOS/GOARCH of
      `go tool dist list`, every Go release tag prefix and cgo on/off (a small Go program, go
      run): a file some configuration leaves out is conditional. Ours: package pairs from the
      edges between files linux/amd64 builds, against go list's imports; every edge from or to
      a conditional file should be marked `go_build_tag`, and no other.

    nice -n 10 python bench/bench_imports_other.py --base /tmp/base-s4-langs [--only ts c go]

Needs node/npm (tsc is npm-installed into the cache), gcc, go (apt-get install golang-go
golang-golang-x-text-dev). The corpora are kept in $MEMORY_LSP_BENCH_DIR/imports-other.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

HOME = corpora.CACHE / "imports-other"
ZOD, TSC, BROTLI = "4.6.7", "7.0.2", "1.2.1"
GO_TEXT = Path("/usr/share/gocode/src/golang.org/x/text")
HOST = ("linux", "amd64")
# strategies of edges that hold in some builds only (memory_lsp.index.resolvers.CONDITIONAL_STRATEGIES)
CONDITIONAL = frozenset({"go_build_tag", "rust_cfg", "c_preprocessor"})
ZOD_TSCONFIG = {"compilerOptions": {"target": "es2022", "module": "esnext", "moduleResolution": "bundler",
                                    "customConditions": ["@zod/source"], "noEmit": True,
                                    "skipLibCheck": True, "types": []},
                "include": ["src/**/*.ts"]}

INDEX_CHILD = r"""
import json, sys
from memory_lsp.workspace import Workspace
import memory_lsp
ws = Workspace.open(sys.argv[1])
ws.index(workers=0)
rows = ws.store.cursor().execute("SELECT path, module, target, strategy FROM imports").fetchall()
paths = [r[0] for r in ws.store.cursor().execute("SELECT path FROM files").fetchall()]
ws.close()
print(json.dumps({"imports": rows, "files": paths, "code": memory_lsp.__file__}))
"""


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# ---- corpora ----------------------------------------------------------------------------

def zod_corpus() -> Path:
    dest = HOME / f"zod-{ZOD}"
    if not (dest / ".complete").exists():
        HOME.mkdir(parents=True, exist_ok=True)
        done = run(["npm", "pack", f"zod@{ZOD}", "--pack-destination", str(HOME)])
        assert done.returncode == 0, done.stderr
        shutil.rmtree(dest, ignore_errors=True)
        with tarfile.open(HOME / f"zod-{ZOD}.tgz") as tar:
            tar.extractall(HOME / "zod-tmp", filter="data")
        (HOME / "zod-tmp" / "package").rename(dest)
        (dest / "tsconfig.json").write_text(json.dumps(ZOD_TSCONFIG, indent=1))
        (dest / ".complete").write_text("")
    return dest


def tsc() -> Path:
    exe = HOME / "tsc" / "node_modules" / ".bin" / "tsc"
    if not exe.exists():
        done = run(["npm", "install", "--prefix", str(HOME / "tsc"), f"typescript@{TSC}"])
        assert done.returncode == 0, done.stderr
    return exe


def brotli_corpus() -> Path:
    return corpora.sdist("brotli", BROTLI, HOME)


def gotext_corpus() -> Path:
    dest = HOME / "x-text"
    if not (dest / ".complete").exists():
        if not GO_TEXT.is_dir():
            raise SystemExit("apt-get install golang-golang-x-text-dev")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(GO_TEXT, dest, symlinks=False)
        (dest / ".complete").write_text("")
    return dest


# ---- memory-lsp, in a child process --------------------------------------------------------

def index(corpus: Path, pythonpath: str | None, extra: dict[str, str] | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="imports-other-") as tmp:
        ws = Path(tmp) / corpus.name
        shutil.copytree(corpus, ws, ignore=shutil.ignore_patterns(".complete", ".memory"))
        for rel, text in (extra or {}).items():
            (ws / rel).write_text(text)
        env = dict(os.environ)
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        t0 = time.perf_counter()
        # cwd outside any checkout: `-c` puts the cwd first on sys.path
        done = run([sys.executable, "-c", INDEX_CHILD, str(ws)], env=env, cwd=tmp, timeout=1800)
        assert done.returncode == 0, done.stderr[-2000:]
        out = json.loads(done.stdout)
        out["seconds"] = round(time.perf_counter() - t0, 1)
        if pythonpath:  # the baseline really ran
            assert out["code"].startswith(pythonpath), out["code"]
        return out


def prf(ours: set, truth: set) -> dict:
    hit = len(ours & truth)
    return {"precision": round(hit / len(ours), 3) if ours else None,
            "recall": round(hit / len(truth), 3) if truth else None,
            "ours": len(ours), "truth": len(truth), "both": hit}


# ---- TypeScript: tsc --traceResolution ----------------------------------------------------

_RESOLVING = re.compile(r"^======== Resolving module '([^']+)' from '([^']+)'\. ========$")
_RESOLVED = re.compile(r"^======== Module name '([^']+)' was (?:successfully resolved to '([^']+)'|not resolved)")


def tsc_truth(corpus: Path) -> set[tuple[str, str, str]]:
    done = run([str(tsc()), "-p", "tsconfig.json", "--traceResolution"], cwd=corpus, timeout=1800)
    root, found, current = str(corpus.resolve()) + "/", set(), None
    for line in done.stdout.splitlines():
        m = _RESOLVING.match(line)
        if m:
            current = m.groups()
            continue
        m = _RESOLVED.match(line)
        if m and current and m.group(1) == current[0]:
            spec, importer = current
            target = m.group(2)
            if target and target.startswith(root) and "/node_modules/" not in target:
                found.add((importer[len(root):], target[len(root):], spec))
            current = None
    return found


def bench_ts(base: str | None) -> dict:
    corpus = zod_corpus()
    t0 = time.perf_counter()
    truth = tsc_truth(corpus)
    out = {"corpus": f"zod {ZOD} (npm), typescript {TSC}", "tsc_seconds": round(time.perf_counter() - t0, 1)}
    importers = {t[0] for t in truth}
    for label, pythonpath in (("before", base), ("after", None)):
        if label == "before" and not base:
            continue
        got = index(corpus, pythonpath)
        rows = {(p, t, m.strip("'\"`")) for p, m, t, _s in got["imports"] if t and p.startswith("src/")}
        kinds = {"relative": lambda s: s.startswith("."), "own name": lambda s: not s.startswith(".")}
        out[label] = {"all": prf({r[:2] for r in rows}, {t[:2] for t in truth})}
        for kind, test in kinds.items():
            out[label][kind] = prf({r[:2] for r in rows if test(r[2])}, {t[:2] for t in truth if test(t[2])})
        missed = sorted({t for t in truth if t[:2] not in {r[:2] for r in rows}})
        out[label]["missed_examples"] = missed[:5]
        out[label]["files_in_program_not_indexed"] = len(importers - set(got["files"]))
        out[label]["index_seconds"] = got["seconds"]
    return out


# ---- C: gcc -MM -----------------------------------------------------------------------------

def gcc_truth(corpus: Path, units: list[str], flags: list[str]) -> set[tuple[str, str]]:
    found = set()
    for unit in units:
        done = run(["gcc", "-MM", "-MG", *flags, unit], cwd=corpus)
        deps = done.stdout.replace("\\\n", " ").split(":", 1)[-1].split()
        for dep in deps:
            rel = os.path.normpath(dep)
            if rel != unit and (corpus / rel).is_file() and not rel.startswith(".."):
                found.add((unit, rel))
    return found


def reach(rows, units) -> set[tuple[str, str]]:
    graph = defaultdict(set)
    for p, _m, t, _s in rows:
        if t:
            graph[p].add(t)
    out = set()
    for unit in units:
        seen, stack = set(), [unit]
        while stack:
            for nxt in graph[stack.pop()]:
                if nxt not in seen and nxt != unit:
                    seen.add(nxt)
                    stack.append(nxt)
        out |= {(unit, h) for h in seen}
    return out


def bench_c(base: str | None) -> dict:
    corpus = brotli_corpus()
    units = sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*.c"))
    flags = ["-Ic/include"]
    truth = gcc_truth(corpus, units, flags)
    db = json.dumps([{"directory": ".", "file": u, "arguments": ["gcc", *flags, "-c", u]} for u in units])
    out = {"corpus": f"brotli {BROTLI} (PyPI sdist), {len(units)} .c files, gcc {gcc_version()}",
           "truth_pairs": len(truth)}
    for label, pythonpath in (("before", base), ("after", None)):
        if label == "before" and not base:
            continue
        for mode, extra in (("include/ folders", None), ("compile_commands.json", {"compile_commands.json": db})):
            got = index(corpus, pythonpath, extra)
            ours = reach(got["imports"], units)
            out[f"{label}, {mode}"] = prf(ours, truth)
            out[f"{label}, {mode}"]["missed_examples"] = sorted(truth - ours)[:3]
            out[f"{label}, {mode}"]["wrong_examples"] = sorted(ours - truth)[:3]
            # what a build that takes no #if branch includes: edges not marked conditional
            plain = reach([r for r in got["imports"] if r[3] not in CONDITIONAL], units)
            out[f"{label}, {mode}, unconditional edges only"] = prf(plain, truth)
            out[f"{label}, {mode}"]["marked_edges"] = sum(r[3] in CONDITIONAL for r in got["imports"])
    return out


def gcc_version() -> str:
    return run(["gcc", "-dumpfullversion"]).stdout.strip()


# ---- Go: go list ----------------------------------------------------------------------------

def go_list(corpus: Path, goos: str, goarch: str) -> list[dict]:
    env = dict(os.environ, GOOS=goos, GOARCH=goarch, GOFLAGS="-mod=mod", GOPROXY="off",
               GOTOOLCHAIN="local", CGO_ENABLED="0", GOPATH=str(HOME / "gopath"), GOCACHE=str(HOME / "gocache"))
    done = run(["go", "list", "-e", "-json", "./..."], cwd=corpus, env=env, timeout=600)
    dec, text, i, pkgs = json.JSONDecoder(), done.stdout, 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return pkgs
        obj, i = dec.raw_decode(text, i)
        pkgs.append(obj)


GO_MATCH = r"""package main

// Which files some build configuration leaves out, as go/build decides (Context.MatchFile):
// every GOOS/GOARCH given, every Go release from go1.1 up, cgo on and off, no extra tags.
import (
	"encoding/json"
	"go/build"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	root, out := os.Args[1], map[string]bool{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		excluded := false
		for _, oa := range os.Args[2:] {
			parts := strings.Split(oa, "/")
			for k := 1; k <= len(build.Default.ReleaseTags); k++ {
				for _, cgo := range []bool{true, false} {
					ctx := build.Default
					ctx.GOOS, ctx.GOARCH, ctx.CgoEnabled = parts[0], parts[1], cgo
					ctx.ReleaseTags = build.Default.ReleaseTags[:k]
					if ok, err := ctx.MatchFile(filepath.Dir(p), filepath.Base(p)); err == nil && !ok {
						excluded = true
					}
				}
			}
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = excluded
		return nil
	})
	json.NewEncoder(os.Stdout).Encode(out)
}
"""


def go_build_truth(corpus: Path) -> dict[str, bool]:
    """File -> left out by some configuration, from go/build itself (a Go program, go run)."""
    src = HOME / "gomatch" / "main.go"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(GO_MATCH)
    platforms = run(["go", "tool", "dist", "list"]).stdout.split()
    env = dict(os.environ, GO111MODULE="off", GOPATH=str(HOME / "gopath"), GOCACHE=str(HOME / "gocache"),
               GOTOOLCHAIN="local")
    done = run(["go", "run", str(src), str(corpus.resolve()), *platforms], env=env, timeout=1800)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def bench_go(base: str | None) -> dict:
    corpus = gotext_corpus()
    root = str(corpus.resolve())
    rel = lambda d: os.path.relpath(d, root).replace(os.sep, "/") if d != root else ""  # noqa: E731
    host = go_list(corpus, *HOST)
    dirs = {p["ImportPath"]: rel(p["Dir"]) for p in host}
    known = set(dirs.values())
    truth_pkgs = {(dirs[p["ImportPath"]], dirs[i]) for p in host for i in p.get("Imports", []) if i in dirs}
    source = {}  # file -> left out on the host (linux/amd64)
    for p in host:
        d = rel(p["Dir"])
        for names, left_out in ((p.get("IgnoredGoFiles", []), True), (p.get("GoFiles", []) + p.get("CgoFiles", []), False)):
            for f in names:
                if not f.endswith("_test.go"):
                    source[f"{d}/{f}" if d else f] = left_out
    excluded_somewhere = {f for f, left_out in go_build_truth(corpus).items() if left_out}
    out = {"corpus": f"golang.org/x/text 0.7.0 (Debian), {run(['go', 'version']).stdout.strip()}",
           "packages": len(host), "files": len(source), "left_out_on_host": sum(source.values()),
           "left_out_somewhere": len(excluded_somewhere & set(source))}
    for label, pythonpath in (("before", base), ("after", None)):
        if label == "before" and not base:
            continue
        got = index(corpus, pythonpath)
        edges = {(p, t, s) for p, _m, t, s in got["imports"]
                 if t and p in source and os.path.dirname(t) in known and not t.endswith("_test.go")}
        built = {(os.path.dirname(p), os.path.dirname(t)) for p, t, s in edges
                 if source.get(p) is False and source.get(t) is False} - {(d, d) for d in known}
        marked = {(p, t) for p, t, s in edges if s == "go_build_tag"}
        conditional = {(p, t) for p, t, _s in edges if p in excluded_somewhere or t in excluded_somewhere}
        out[label] = {
            "package imports (edges between files built on linux/amd64 vs go list)": prf(built, truth_pkgs),
            "edges marked go_build_tag vs edges from/to a file go/build leaves out somewhere":
                prf(marked, conditional),
            "edges from/to a file left out on linux/amd64 shown plain": sum(
                1 for p, t, s in edges if s != "go_build_tag" and (source.get(p) or source.get(t))),
            "edges": len(edges), "index_seconds": got["seconds"],
            "missed_package_imports": sorted(truth_pkgs - built)[:5],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="a checkout of the baseline, put first on PYTHONPATH for 'before'")
    parser.add_argument("--only", nargs="*", default=["ts", "c", "go"])
    parser.add_argument("--out", help="write the figures as JSON here too")
    args = parser.parse_args()
    results = {}
    for name, fn in (("ts", bench_ts), ("c", bench_c), ("go", bench_go)):
        if name in args.only:
            results[name] = fn(args.base)
            print(json.dumps({name: results[name]}, indent=1), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
