"""Benchmark c: Python IMPORTS edges against grimp (ground truth), module level.

For each package, a copy of its source (bench/corpora.py) is indexed by memory-lsp, and grimp
builds its import graph from the SAME copy (a child process with the copy's parent folder first
on sys.path; the child checks that grimp's package really is the copy). Both graphs are reduced
to internal module -> module edges (pkg/a/b.py -> pkg.a.b, pkg/a/__init__.py -> pkg.a), without
self-edges. Precision and recall of our edges against grimp's are reported per package, and every
disagreeing edge is classified from the import statement that made it (Python's `ast` gives the
statement's context: `if TYPE_CHECKING`, try/except, function body).

    python bench/bench_imports_vs_grimp.py [--packages email asyncio json concurrent xml django]
                                           [--examples 2] [--json-only]

Needs `pip install grimp` (the `bench` extra) and the third-party package (django) installed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

DEFAULT_PACKAGES = ["email", "asyncio", "json", "concurrent", "xml", "django"]

# Runs in a child: grimp must import the copy, not the installed package, so the copy's parent
# folder goes first on sys.path before anything else is imported.
GRIMP_CHILD = r"""
import sys
parent, name = sys.argv[1], sys.argv[2]
sys.path.insert(0, parent)
import importlib.util, json, os, time
t0 = time.perf_counter()
import grimp
spec = importlib.util.find_spec(name)
origin = os.path.realpath(list(spec.submodule_search_locations)[0])
graph = grimp.build_graph(name, include_external_packages=False, cache_dir=None)
edges, details = [], []
for m in sorted(graph.modules):
    for d in sorted(graph.find_modules_directly_imported_by(m)):
        edges.append([m, d])
        for det in graph.get_import_details(importer=m, imported=d):
            details.append([m, d, det["line_number"], det["line_contents"]])
print(json.dumps({"modules": sorted(graph.modules), "edges": edges, "details": details,
                  "origin": origin, "grimp": grimp.__version__ if hasattr(grimp, "__version__") else "",
                  "seconds": time.perf_counter() - t0}))
"""


def module_of(path: str) -> str | None:
    """pkg/a/b.py -> pkg.a.b; pkg/a/__init__.py -> pkg.a (paths relative to the copy's root)."""
    if not path.endswith((".py", ".pyi")):
        return None
    parts = path.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts else None


def run_grimp(root: Path, name: str) -> dict:
    out = subprocess.run([sys.executable, "-c", GRIMP_CHILD, str(root), name],
                         capture_output=True, text=True, cwd="/")
    if out.returncode:
        raise SystemExit(f"grimp failed on {name}:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    copy = (root / name).resolve()
    if Path(result["origin"]) != copy:
        # already imported at interpreter start-up (importlib, encodings...): grimp read the
        # installed package, which is fine only if it holds exactly the files of the copy
        if _py_tree(Path(result["origin"])) != _py_tree(copy):
            raise SystemExit(f"grimp read {result['origin']}, which differs from the copy {copy}")
        result["origin"] += " (installed; same .py files as the copy)"
    return result


def _py_tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.py")
            if "__pycache__" not in p.parts}


def run_ours(root: Path, name: str) -> dict:
    from memory_lsp.service import Workspace

    t0 = time.perf_counter()
    ws = Workspace.open(root, db=corpora.fresh_db(f"imports-{name}"))
    ws.index()
    seconds = time.perf_counter() - t0
    cur = ws.store.cursor()
    files = [r[0] for r in cur.execute("SELECT path FROM files WHERE lang = 'python'").fetchall()]
    edges = cur.execute("SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = 'IMPORTS'").fetchall()
    rows = cur.execute("SELECT path, line, module, name, target, strategy FROM imports").fetchall()
    skipped = cur.execute("SELECT path, reason FROM skipped").fetchall()
    ws.close()
    return {"files": files, "edges": edges, "imports": rows, "skipped": skipped, "seconds": seconds}


# -- statement context --------------------------------------------------------------------------

class _Contexts:
    """Per file: the ast import statement at each line and what encloses it."""

    def __init__(self, root: Path):
        self.root = root
        self._cache: dict[str, dict[int, tuple[ast.AST, list[str]]]] = {}

    def at(self, path: str, line: int) -> tuple[ast.AST | None, list[str]]:
        if path not in self._cache:
            self._cache[path] = self._index(path)
        return self._cache[path].get(line, (None, []))

    def _index(self, path: str) -> dict:
        try:
            tree = ast.parse((self.root / path).read_bytes())
        except (SyntaxError, ValueError, OSError):
            return {}
        out = {}

        def walk(node, ctx):
            for child in ast.iter_child_nodes(node):
                c = ctx
                if isinstance(node, ast.If) and child in node.body and _is_type_checking(node.test):
                    c = ctx + ["TYPE_CHECKING"]
                elif isinstance(node, ast.If):
                    c = ctx + ["if"]
                elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                    c = ctx + ["try"]
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    c = ctx + ["function"]
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    out[child.lineno] = (child, c)
                walk(child, c)

        walk(tree, [])
        return out


def _is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _stmt_text(node: ast.AST | None) -> str:
    return ast.unparse(node) if node is not None else "?"


# -- classification -------------------------------------------------------------------------------

def classify_missing(src: str, dst: str, lines: list[int], ctx: _Contexts, path_of: dict[str, str],
                     our_rows_at: dict, modules: set[str]) -> str:
    """A grimp edge we lack: why."""
    if src not in path_of or dst not in path_of:
        return "module not indexed by us (discovery excluded or skipped the file)"
    path = path_of[src]
    for line in lines:
        node, where = ctx.at(path, line)
        rows = our_rows_at.get((path, line), [])
        if not rows:
            return "statement not captured by our query"
        targets = {r[4] for r in rows}
        if targets == {None}:
            if any(r[5] == "unresolved" for r in rows):
                return "resolver: left unresolved"
            return "resolver: treated as external"
        if isinstance(node, ast.ImportFrom) and node.level and dst not in {module_of(t) for t in targets if t}:
            return "resolver: relative import resolved elsewhere"
    return "resolver: statement resolved to other module(s)"


def classify_extra(src: str, dst: str, rows: list[tuple], ctx: _Contexts, grimp_at: dict,
                   modules: set[str]) -> str:
    """An edge of ours grimp lacks: why (rows = our import rows src -> dst)."""
    if src not in modules or dst not in modules:
        return "module grimp does not know (not importable for grimp)"
    for path, line, module, name, _target, strategy in rows:
        node, where = ctx.at(path, line)
        grimp_here = grimp_at.get((src, line), set())
        if node is None:
            return "no import statement at that line (query matched something else)"
        if grimp_here:
            return "same statement, grimp resolved to another module"
        return "grimp records nothing for this statement"
    return "?"


def compare(name: str, ours: dict, grimp: dict, root: Path, examples: int) -> dict:
    path_of = {}
    for f in ours["files"]:
        m = module_of(f)
        if m is not None:
            path_of.setdefault(m, f)
    modules = set(grimp["modules"])
    our_edges = set()
    for s, d in ours["edges"]:
        ms, md = module_of(s), module_of(d)
        if ms and md and ms != md:
            our_edges.add((ms, md))
    grimp_edges = {(a, b) for a, b in grimp["edges"] if a != b}
    tp = our_edges & grimp_edges
    fp = our_edges - grimp_edges
    fn = grimp_edges - our_edges

    ctx = _Contexts(root)
    our_rows_at = defaultdict(list)
    our_rows_edge = defaultdict(list)
    for row in ours["imports"]:
        our_rows_at[(row[0], row[1])].append(row)
        if row[4]:
            our_rows_edge[(module_of(row[0]), module_of(row[4]))].append(row)
    grimp_lines = defaultdict(list)
    grimp_at = defaultdict(set)
    for a, b, line, _text in grimp["details"]:
        grimp_lines[(a, b)].append(line)
        grimp_at[(a, line)].add(b)

    classes: dict[str, dict] = {}

    def add(side, cls, edge, path, line):
        node, where = ctx.at(path, line) if path else (None, [])
        key = f"{side}: {cls}"
        entry = classes.setdefault(key, {"count": 0, "contexts": Counter(), "examples": []})
        entry["count"] += 1
        entry["contexts"]["/".join(where) or "module level"] += 1
        if len(entry["examples"]) < examples:
            entry["examples"].append({"edge": f"{edge[0]} -> {edge[1]}", "at": f"{path}:{line}",
                                      "statement": _stmt_text(node), "context": "/".join(where)})

    for edge in sorted(fn):
        lines = sorted(grimp_lines.get(edge, [])) or [0]
        cls = classify_missing(edge[0], edge[1], lines, ctx, path_of, our_rows_at, modules)
        add("missing", cls, edge, path_of.get(edge[0]), lines[0])
    for edge in sorted(fp):
        rows = sorted(our_rows_edge.get(edge, []), key=lambda r: r[1])
        cls = classify_extra(edge[0], edge[1], rows, ctx, grimp_at, modules)
        add("extra", cls, edge, rows[0][0] if rows else None, rows[0][1] if rows else 0)
    for entry in classes.values():
        entry["contexts"] = dict(entry["contexts"].most_common())

    our_modules = set(path_of)
    return {
        "package": name,
        "modules": {"ours": len(our_modules), "grimp": len(modules),
                    "only_ours": sorted(our_modules - modules)[:10],
                    "only_grimp": sorted(modules - our_modules)[:10]},
        "edges": {"ours": len(our_edges), "grimp": len(grimp_edges), "true_positives": len(tp),
                  "extra": len(fp), "missing": len(fn)},
        "precision": round(len(tp) / len(our_edges), 4) if our_edges else None,
        "recall": round(len(tp) / len(grimp_edges), 4) if grimp_edges else None,
        "disagreements": dict(sorted(classes.items(), key=lambda kv: -kv[1]["count"])),
        "skipped_by_us": ours["skipped"][:10],
        "grimp_read": grimp["origin"],
        "seconds": {"ours_index": round(ours["seconds"], 2), "grimp": round(grimp["seconds"], 2)},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES)
    ap.add_argument("--examples", type=int, default=2)
    ap.add_argument("--json-only", action="store_true")
    args = ap.parse_args()
    results = []
    for name in args.packages:
        root = corpora.package_copy(name)
        ours = run_ours(root, name)
        grimp = run_grimp(root, name)
        results.append(compare(name, ours, grimp, root, args.examples))
    import grimp as grimp_mod  # noqa: F401  (version only)
    from importlib.metadata import version

    out = {"machine": {"nproc": os.cpu_count(), "python": sys.version.split()[0],
                       "grimp": version("grimp")},
           "packages": results}
    print(json.dumps(out, indent=2))
    if args.json_only:
        return
    print()
    print(f"{'package':<12}{'modules':>8}{'ours':>7}{'grimp':>7}{'TP':>7}{'prec':>8}{'recall':>8}")
    for r in results:
        e = r["edges"]
        print(f"{r['package']:<12}{r['modules']['grimp']:>8}{e['ours']:>7}{e['grimp']:>7}"
              f"{e['true_positives']:>7}{r['precision'] or 0:>8.3f}{r['recall'] or 0:>8.3f}")
    print()
    for r in results:
        for cls, entry in r["disagreements"].items():
            ex = entry["examples"][0]
            print(f"{r['package']:<12}{entry['count']:>5}  {cls}  e.g. {ex['edge']} ({ex['at']}: {ex['statement']})")


if __name__ == "__main__":
    main()
