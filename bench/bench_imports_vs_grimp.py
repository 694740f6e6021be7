"""Benchmark c: Python IMPORTS edges against grimp (ground truth), module level.

For each package, a copy of its source (bench/corpora.py) is indexed by memory-lsp, and grimp
builds its import graph from the SAME copy (a child process puts the copy's parent folder first
on sys.path; if the package was already imported at interpreter start-up, grimp reads the
installed one and the run checks that it holds exactly the copy's .py files). Both graphs are
reduced to internal module -> module edges (pkg/a/b.py -> pkg.a.b, pkg/a/__init__.py -> pkg.a)
without self-edges (grimp keeps `from . import attr` in pkg/__init__.py as pkg -> pkg; our edges
table never holds a file -> same file edge).

Three scores per package:
  all         every IMPORTS edge of ours, including those from .pyi stubs and from .py files
              outside a package chain (folders without __init__.py), which grimp never scans;
  scope       only edges between .py files of modules grimp knows: the like-for-like comparison;
  statements  (importer, imported, line) triples in that scope: which statement made the edge
              (an edge both sides have may still come from different statements).
Every disagreeing edge (and statement) is classified from the import statement behind it (Python's `ast` gives
the statement and its context: `if TYPE_CHECKING`, try/except, function body).

    python bench/bench_imports_vs_grimp.py                       # email asyncio json concurrent xml django
    python bench/bench_imports_vs_grimp.py --packages numpy pip setuptools lib2to3 probe

`probe` is a small generated package with one import construct per line (TYPE_CHECKING, try,
function-level, multi-line, missing submodule, stub-only module, namespace folder, dynamic
import...), to see how each side treats each construct. Needs `pip install grimp` (the `bench`
extra) and the third-party packages named (django) installed.
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
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

DEFAULT_PACKAGES = ["email", "asyncio", "json", "concurrent", "xml", "django"]

GRIMP_CHILD = r"""
import sys
parent, name = sys.argv[1], sys.argv[2]
sys.path.insert(0, parent)  # before anything else is imported
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
                  "origin": origin, "seconds": time.perf_counter() - t0}))
"""

# One construct per line; grimp's verdict in the comments (checked with grimp 3.19).
PROBE = {
    "__init__.py": "from . import a\nfrom . import attr_only\nfrom .sub import *\nattr_only = 1\n",
    "a.py": """\
from __future__ import annotations
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from probe.b import T
try:
    import probe.fast
except ImportError:
    import probe.slow as fast
import probe.sub.mod as m, probe.c
from probe.sub import (
    mod2,
    value,
)
from probe.sub \\
    import mod3
import importlib
importlib.import_module("probe.dyn")
__import__("probe.dyn2")
from probe import b, not_a_module
import probe.missing
from probe.missing2 import x
import probe.sub.notthere
from probe.sub.notthere import y
import probe.ns.nsmod
from probe.ns import nsmod2
from .. import too_high
def f():
    from . import lazy
class K:
    import probe.klass
import probe.stub
from probe.deep.inner import leaf
from probe.deep import inner
import probe.sub
from . import sub
from .sub.mod import X
""",
    **{f"{m}.py": "X = 1\n" for m in ("b", "c", "fast", "slow", "dyn", "dyn2", "lazy", "klass")},
    "sub/__init__.py": "value = 1\nmod2 = 'an attribute that shadows the submodule'\n",
    "sub/mod.py": "", "sub/mod2.py": "", "sub/mod3.py": "",
    "ns/nsmod.py": "", "ns/nsmod2.py": "",  # ns/ has no __init__.py
    "stub.pyi": "def foo() -> None: ...\n",  # a compiled module's stub: no .py
    "deep/__init__.py": "", "deep/inner/__init__.py": "", "deep/inner/leaf.py": "",
}


def package_root(name: str) -> Path:
    if name != "probe":
        return corpora.package_copy(name)
    dest = corpora.CACHE / "probe"
    for rel, text in PROBE.items():
        path = dest / "probe" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    return dest


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
                         capture_output=True, text=True, cwd="/", env={**os.environ, "RUST_BACKTRACE": "0"})
    if out.returncode:
        raise SystemExit(f"grimp failed on {name}:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    copy = (root / name).resolve()
    if Path(result["origin"]) != copy:
        # imported at interpreter start-up (importlib...): grimp read the installed package,
        # which is fine only when it holds exactly the copy's files
        if _py_tree(Path(result["origin"])) != _py_tree(copy):
            raise SystemExit(f"grimp read {result['origin']}, which differs from the copy {copy}")
        result["origin"] += " (installed; identical .py files)"
    return result


def _py_tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.py")
            if "__pycache__" not in p.parts}


def run_ours(root: Path, name: str) -> dict:
    from memory_lsp.workspace import Workspace

    t0 = time.perf_counter()
    ws = Workspace.open(root, db=corpora.fresh_db(f"imports-{name}"))
    ws.index()
    seconds = time.perf_counter() - t0
    cur = ws.store.cursor()
    files = [r[0] for r in cur.execute("SELECT path FROM files WHERE lang = 'python'").fetchall()]
    edges = cur.execute("SELECT DISTINCT src_path, dst_path FROM edges WHERE kind = 'IMPORTS'").fetchall()
    rows = cur.execute("SELECT path, line, module, name, target, strategy FROM imports").fetchall()
    skipped = dict(cur.execute("SELECT path, reason FROM skipped").fetchall())
    ws.close()
    return {"files": files, "edges": edges, "imports": rows, "skipped": skipped, "seconds": seconds}


# -- statement context --------------------------------------------------------------------------

class Statements:
    """Per file: the ast import statement starting at each line and what encloses it."""

    def __init__(self, root: Path):
        self.root = root
        self._cache: dict[str, dict[int, tuple[ast.AST, list[str]]]] = {}

    def at(self, path: str | None, line: int) -> tuple[ast.AST | None, list[str]]:
        if path is None:
            return None, []
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
                if isinstance(node, ast.If):
                    type_checking = child in node.body and _is_type_checking(node.test)
                    c = ctx + ["TYPE_CHECKING" if type_checking else "if"]
                elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                    c = ctx + ["try"]
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    c = ctx + ["function"]
                elif isinstance(node, ast.ClassDef):
                    c = ctx + ["class"]
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    out[child.lineno] = (child, c)
                walk(child, c)

        walk(tree, [])
        return out


def _is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _excluded_by(rel: str) -> str | None:
    from memory_lsp.index.discover import _Ignore
    from memory_lsp.settings import DEFAULT_EXCLUDES

    return next((pat for pat in DEFAULT_EXCLUDES if _Ignore.from_lines([pat]).ignored(rel, False)), None)


# -- comparison ------------------------------------------------------------------------------------

class Compare:
    def __init__(self, name: str, root: Path, ours: dict, grimp: dict):
        self.name, self.root, self.ours, self.grimp = name, root, ours, grimp
        self.stmts = Statements(root)
        self.grimp_modules = set(grimp["modules"])
        self.path_of: dict[str, str] = {}  # module -> our .py file (else .pyi)
        for f in sorted(ours["files"], key=lambda p: p.endswith(".pyi")):
            m = module_of(f)
            if m is not None:
                self.path_of.setdefault(m, f)
        self.rows_at = defaultdict(list)  # (path, line) -> our import rows
        self.rows_of_edge = defaultdict(list)  # (src module, dst module) -> our import rows
        for row in ours["imports"]:
            self.rows_at[(row[0], row[1])].append(row)
            if row[4] and row[4] != row[0]:
                self.rows_of_edge[(module_of(row[0]), module_of(row[4]))].append(row)
        self.grimp_lines = defaultdict(list)
        self.grimp_at = defaultdict(set)
        for a, b, line, _text in grimp["details"]:
            self.grimp_lines[(a, b)].append(line)
            self.grimp_at[(a, line)].add(b)

    def edges(self, scope: bool) -> tuple[set, set]:
        ours = set()
        for s, d in self.ours["edges"]:
            ms, md = module_of(s), module_of(d)
            if not ms or not md or ms == md:
                continue
            if scope and not (s.endswith(".py") and d.endswith(".py")
                              and ms in self.grimp_modules and md in self.grimp_modules):
                continue
            ours.add((ms, md))
        return ours, {(a, b) for a, b in self.grimp["edges"] if a != b}

    # an edge of grimp's that we lack
    def why_missing(self, src: str, dst: str, line: int | None = None) -> tuple[str, str | None, int]:
        lines = [line] if line else sorted(self.grimp_lines.get((src, dst), [])) or [0]
        for mod in (src, dst):
            if mod not in self.path_of:
                rel = mod.replace(".", "/")
                rel = next((r for r in (rel + ".py", rel + "/__init__.py") if (self.root / r).exists()), rel)
                reason = self.ours["skipped"].get(rel)
                pat = _excluded_by(rel)
                cls = (f"file skipped by our indexer ({reason})" if reason else
                       f"file excluded by our discovery (default exclude '{pat}')" if pat else
                       "module not indexed by us")
                if src in self.path_of:  # show the importing statement
                    return cls, self.path_of[src], lines[0]
                return cls, rel, 0
        path = self.path_of[src]
        line = lines[0]
        node, _ = self.stmts.at(path, line)
        rows = self.rows_at.get((path, line), [])
        if not rows:
            return "statement not captured by our query", path, line
        if any(r[4] and r[4].endswith(".pyi") and module_of(r[4]) not in self.grimp_modules for r in rows):
            return ("a.b.c has only a .pyi stub (compiled module): for `import a.b.c` / `from a.b import c` "
                    "we point at the stub, grimp at the package a.b", path, line)
        if isinstance(node, ast.Import) and any(
                r[2].rsplit(".", 1)[0] == dst and r[2] not in self.grimp_modules for r in rows):
            return ("`import a.b.c`, a.b.c has no source file (compiled or virtual module): grimp falls "
                    "back to the package a.b, we leave it unresolved", path, line)
        if all(r[4] is None for r in rows):
            return f"our resolver: {rows[0][5]}", path, line
        return "our resolver: same statement, other module", path, line

    # an edge of ours that grimp lacks
    def why_extra(self, src: str, dst: str, line: int | None = None) -> tuple[str, str | None, int]:
        rows = sorted((r for r in self.rows_of_edge.get((src, dst), []) if line is None or r[1] == line),
                      key=lambda r: (r[0].endswith(".pyi"), r[1]))
        if not rows:
            return "no import row behind the edge", None, 0
        path, line, target = rows[0][0], rows[0][1], rows[0][4]
        if path.endswith(".pyi"):
            return "importer is a .pyi stub (grimp reads .py files only)", path, line
        if src not in self.grimp_modules:
            return ("importer is outside a package chain (a folder without __init__.py on the way): "
                    "grimp does not scan it", path, line)
        if target.endswith(".pyi") and dst not in self.grimp_modules:
            return "target is a stub-only module (.pyi of a compiled module): unknown to grimp", path, line
        if dst not in self.grimp_modules and self.in_namespace_portion(target):
            return ("target is in a namespace portion (a folder without __init__.py inside a package): "
                    "Python imports it, grimp does not scan it", path, line)
        if dst not in self.grimp_modules:
            return ("target lies under a folder that holds a package without being one: a source root "
                    "for our resolver (top-level import), an external import for grimp", path, line)
        node, _ = self.stmts.at(path, line)
        if node is None:
            return "our query matched no import statement", path, line
        if self.grimp_at.get((src, line)):
            return "same statement, grimp resolved to another module", path, line
        return "grimp records nothing for this statement", path, line

    def in_namespace_portion(self, target: str) -> bool:
        folder = (self.root / target).parent
        return (not (folder / "__init__.py").exists() and (folder.parent / "__init__.py").exists()
                and folder.parent != self.root)

    def run(self, examples: int) -> dict:
        out = {"package": self.name, "grimp_read": self.grimp["origin"],
               "modules": {"ours": len(self.path_of), "grimp": len(self.grimp_modules),
                           "ours_not_grimp": len(set(self.path_of) - self.grimp_modules),
                           "grimp_not_ours": len(self.grimp_modules - set(self.path_of))}}
        for scope in (False, True):
            ours, truth = self.edges(scope)
            tp = ours & truth
            out["scope" if scope else "all"] = {
                "ours": len(ours), "grimp": len(truth), "true_positives": len(tp),
                "extra": len(ours - truth), "missing": len(truth - ours),
                "precision": round(len(tp) / len(ours), 4) if ours else None,
                "recall": round(len(tp) / len(truth), 4) if truth else None}
        ours_st, truth_st = self.statements()
        tp = ours_st & truth_st
        out["statements"] = {
            "ours": len(ours_st), "grimp": len(truth_st), "true_positives": len(tp),
            "extra": len(ours_st - truth_st), "missing": len(truth_st - ours_st),
            "precision": round(len(tp) / len(ours_st), 4) if ours_st else None,
            "recall": round(len(tp) / len(truth_st), 4) if truth_st else None}
        out["statements"]["agreed_by_construct"] = self.constructs(tp)
        ours, truth = self.edges(False)
        out["disagreements"] = self.classify(truth - ours, ours - truth, examples)
        out["statement_disagreements"] = self.classify(truth_st - ours_st, ours_st - truth_st, examples)
        out["seconds"] = {"ours_index": round(self.ours["seconds"], 2), "grimp": round(self.grimp["seconds"], 2)}
        return out

    def statements(self) -> tuple[set, set]:
        """(importer, imported, line) triples in grimp's scope: which statement made which edge."""
        ours = set()
        for path, line, _m, _n, target, _s in self.ours["imports"]:
            if not (target and path.endswith(".py") and target.endswith(".py")):
                continue
            if self.stmts.at(path, line)[0] is None:  # a module-level alias's row (index/aliases.py): no statement
                continue
            ms, md = module_of(path), module_of(target)
            if ms != md and ms in self.grimp_modules and md in self.grimp_modules:
                ours.add((ms, md, line))
        return ours, {(a, b, line) for a, b, line, _t in self.grimp["details"] if a != b}

    def constructs(self, triples: set) -> dict:
        """What the agreed statements were: relative or absolute, and where they sit."""
        seen, counts = set(), Counter()
        for src, _dst, line in triples:
            path = self.path_of.get(src)
            if (path, line) in seen:
                continue
            seen.add((path, line))
            node, where = self.stmts.at(path, line)
            if node is None:
                continue
            kind = "from . import" if isinstance(node, ast.ImportFrom) and node.level else \
                "from x import" if isinstance(node, ast.ImportFrom) else "import x"
            counts[kind] += 1
            for w in set(where) or {"module level"}:
                counts[w] += 1
        return dict(counts.most_common())

    def classify(self, missing: set, extra: set, examples: int) -> dict:
        classes: dict[str, dict] = {}
        for side, edges, why in (("missing", missing, self.why_missing), ("extra", extra, self.why_extra)):
            for edge in sorted(edges):
                cls, path, line = why(*edge)
                node, where = self.stmts.at(path, line)
                entry = classes.setdefault(f"{side}: {cls}", {"count": 0, "contexts": Counter(), "examples": []})
                entry["count"] += 1
                entry["contexts"]["/".join(where) or "module level"] += 1
                if len(entry["examples"]) < examples:
                    entry["examples"].append({
                        "edge": f"{edge[0]} -> {edge[1]}", "at": f"{path}:{line}" if line else path,
                        "statement": ast.unparse(node) if node is not None else None})
        for entry in classes.values():
            entry["contexts"] = dict(entry["contexts"].most_common())
        return dict(sorted(classes.items(), key=lambda kv: -kv[1]["count"]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", nargs="+", default=DEFAULT_PACKAGES)
    ap.add_argument("--examples", type=int, default=2)
    ap.add_argument("--json-only", action="store_true")
    args = ap.parse_args()
    results = []
    for name in args.packages:
        root = package_root(name)
        results.append(Compare(name, root, run_ours(root, name), run_grimp(root, name)).run(args.examples))
    print(json.dumps({"machine": {"nproc": os.cpu_count(), "python": sys.version.split()[0],
                                  "grimp": version("grimp")},
                      "packages": results}, indent=2))
    if args.json_only:
        return
    heads = {"all": "all edges", "scope": "edges in grimp's scope", "statements": "statements in scope"}
    print(f"\n{'':<12}{'':>8}" + "".join(f" | {h:^34}" for h in heads.values()))
    print(f"{'package':<12}{'modules':>8}" + f" | {'ours':>6}{'grimp':>7}{'TP':>7}{'prec':>7}{'recall':>7}" * 3)
    for r in results:
        cells = "".join(f" | {r[k]['ours']:>6}{r[k]['grimp']:>7}{r[k]['true_positives']:>7}"
                        f"{r[k]['precision'] or 0:>7.3f}{r[k]['recall'] or 0:>7.3f}" for k in heads)
        print(f"{r['package']:<12}{r['modules']['grimp']:>8}{cells}")
    for key, title in (("disagreements", "edges"), ("statement_disagreements", "statements in scope")):
        print(f"\ndisagreements, {title}:" + ("" if any(r[key] for r in results) else " none"))
        for r in results:
            for cls, entry in r[key].items():
                ex = entry["examples"][0]
                print(f"{r['package']:<12}{entry['count']:>5}  {cls}\n{'':<19}e.g. {ex['edge']}  "
                      f"[{ex['at']}: {ex['statement']}]")

if __name__ == "__main__":
    main()
