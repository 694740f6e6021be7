"""Benchmark: the readers `impact` lists for a property (store/attribute_reads.py: `.name` found in the
code's text, untyped) against jedi's references to it.

For each property of a package's src/ (a method under `@property`, `@cached_property` or
`@functools.cached_property`, found by `ast`), jedi's `get_references` at its name gives the places
that use it; those that are not its definition and not called (`x.name(`) are reads, each given to the
function, method or class of the index around it (`<module>` outside all). Ours: `readers` for
the same property. Reported per package: properties, readers by jedi and by us, precision and recall
over (property, reader) pairs, and a sample of each side's misses.

`--values N`: N module-level functions and classes per package instead, their uses without a call where they
are imported (store/value_uses.py) against jedi's references that are not calls, imports, bases or decorators.

    python bench/bench_reads_truth.py [--packages werkzeug==3.0.4 flask==3.0.3 ...] [--values N] [--out FILE]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
import truth_corpus  # noqa: E402

from memory_lsp.store import attribute_reads  # noqa: E402
from memory_lsp.workspace import Workspace  # noqa: E402

DEFAULT = ["werkzeug==3.0.4", "flask==3.0.3", "requests==2.32.3", "jinja2==3.1.4", "click==8.1.8"]
PROPERTY = {"property", "cached_property"}


def _sources(ws: Path):
    """(path, source, tree) of each Python file of the package's sources (not its tests) that parses."""
    for rel in truth_corpus.py_files(ws):
        if rel.startswith("tests/"):
            continue
        source = (ws / rel).read_text(encoding="utf-8", errors="replace")
        try:
            yield rel, source, ast.parse(source)
        except SyntaxError:
            continue


def _at(source: str, node) -> tuple[int, int]:
    """The line of a definition and the column of its name there (where jedi is asked)."""
    return node.lineno, source.splitlines()[node.lineno - 1].index(node.name)


def properties(ws: Path) -> list[tuple[str, str, int, int]]:
    """(path, Class.method, line, column of its name) of every property in the package's sources."""
    found = []
    for rel, source, tree in _sources(ws):
        def visit(node, scope):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    visit(child, scope + [child.name])
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope:
                    names = {d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else None
                             for d in child.decorator_list}
                    if names & PROPERTY:
                        found.append((rel, ".".join(scope + [child.name]), *_at(source, child)))

        visit(tree, [])
    return found


def module_defs(ws: Path, limit: int, seed: int = 7) -> list[tuple[str, str, int, int]]:
    """(path, name, line, column of its name) of up to `limit` module-level functions and classes of the
    package's sources, drawn at random (jedi's references take about a second each)."""
    import random

    found = [(rel, node.name, *_at(source, node)) for rel, source, tree in _sources(ws) for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    random.Random(seed).shuffle(found)
    return sorted(found[:limit])


def _innermost(chunks: dict, rel: str, line: int) -> str:
    """The innermost function, method or class of the index around a line (`<module>` outside all): each
    side's reads are given to the same place, whatever scope jedi names (a signature's is its class's)."""
    around = [(end - start, name) for name, start, end in chunks.get(rel, ()) if start <= line <= end]
    return min(around)[1] if around else "<module>"


def jedi_readers(ws: Path, project, prop: tuple, chunks: dict) -> set[tuple[str, str]]:
    import jedi

    rel, _, line, col = prop
    script = jedi.Script(path=str(ws / rel), project=project)
    try:
        refs = script.get_references(line, col, scope="project")
    except Exception:  # jedi's own failures: no answer for this property
        return set()
    out = set()
    for n in refs:
        mp = n.module_path
        if n.is_definition() or mp is None or not str(mp).startswith(str(ws) + os.sep):
            continue
        text = Path(mp).read_text(encoding="utf-8", errors="replace").splitlines()[n.line - 1]
        if text[n.column + len(n.name):].lstrip().startswith("(") or text.lstrip().startswith("@"):
            continue  # called: an edge's business; `@name.setter`: the property's own setter; a decorator: a call
        if text.lstrip().startswith(("from ", "import ", "class ")):
            continue  # an import, a class's bases (INHERITS edges)
        where = str(Path(mp).relative_to(ws))
        out.add((where, _innermost(chunks, where, n.line)))
    return out


def measure(spec: str, values: int = 0) -> dict:
    ws_path = truth_corpus.workspace(spec)
    ws = Workspace.open(ws_path, db=corpora.fresh_db("reads-" + spec.split("==")[0]))
    ws.index()
    project = truth_corpus._project(ws_path)
    attribute_reads.READS_SHOWN = 10**9  # every reader, for the score
    props = module_defs(ws_path, values) if values else properties(ws_path)
    chunks: dict[str, list] = {}
    for rel, name, start, end in ws.store.cursor().execute(
            "SELECT path, name, start_line, end_line FROM chunks WHERE kind <> 'section'").fetchall():
        chunks.setdefault(rel, []).append((name, start, end))
    tp = fp = fn = 0
    wrong, missed = [], []
    for prop in props:
        rel, qual, _, _ = prop
        # the answer `impact` gives (a value's module-level uses read from the files, as indexed)
        got = {(r["path"], r["symbol"] or "<module>") for r in ws.impact(f"{rel}::{qual}")["reads"]}
        truth = jedi_readers(ws_path, project, prop, chunks) - {(rel, qual)}
        tp, fp, fn = tp + len(got & truth), fp + len(got - truth), fn + len(truth - got)
        wrong += [(f"{rel}::{qual}", *r) for r in sorted(got - truth)]
        missed += [(f"{rel}::{qual}", *r) for r in sorted(truth - got)]
    ws.close()
    return {"package": spec, "properties" if not values else "module_defs": len(props),
            "pairs_jedi": tp + fn, "pairs_ours": tp + fp,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None,
            "ours_not_jedi": wrong, "jedi_not_ours": missed[:15],
            "jedi_not_ours_module_level": sum(1 for m in missed if m[2] == "<module>")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", nargs="+", default=DEFAULT)
    ap.add_argument("--out")
    ap.add_argument("--values", type=int, default=0, help="instead of properties: this many module-level functions "
                    "and classes per package, their uses without a call where imported (store/value_uses.py)")
    args = ap.parse_args()
    results = [measure(spec, args.values) for spec in args.packages]
    for r in results:
        print(json.dumps(r, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
