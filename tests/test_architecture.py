"""The invariants of ARCHITECTURE.md that a walk over the source can check. The layer contracts
themselves are `.importlinter`'s, run by `make test` (`lint-imports`) and again here so that a
plain `pytest` run keeps them too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[1] / "memory_lsp"
MAX_LINES = 400


def sources():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def test_the_import_contracts_hold():
    done = subprocess.run([sys.executable, "-m", "importlinter.cli", "--no-cache"], capture_output=True, text=True,
                          cwd=PACKAGE.parent)
    if done.returncode != 0:  # `lint-imports`' own entry point, for older import-linter releases
        done = subprocess.run([Path(sys.executable).with_name("lint-imports"), "--no-cache"], capture_output=True,
                              text=True, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_no_import_cycles():
    graph = grimp.build_graph("memory_lsp", cache_dir=None, exclude_type_checking_imports=True)  # annotations only
    cycles = _strongly_connected(graph)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in cycles)


def test_no_module_over_the_line_limit():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in sources()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def _strongly_connected(graph) -> list[set[str]]:
    """Tarjan's algorithm over module imports; components of more than one module are cycles."""
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(start: str) -> None:  # iterative: the recursion depth would follow the import chains
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.add(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(component)

    for m in modules:
        if m not in index:
            visit(m)
    return found
