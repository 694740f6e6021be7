"""Only store/ runs SQL and imports duckdb; store/ imports no package above it; index/ never imports graph/."""

import ast
import re
from pathlib import Path

import memory_lsp

PACKAGE = Path(memory_lsp.__file__).parent
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH) ")  # upper case, as written here


def modules(under: str = ""):
    for path in sorted((PACKAGE / under).rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def imported(tree) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_sql_runs_only_in_store():
    found = []
    for name, tree in modules():
        if name.startswith("store/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("execute", "executemany", "sql"):
                found.append(f"{name}:{node.lineno} .{node.func.attr}()")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
                found.append(f"{name}:{node.lineno} {node.value.split()[0]}")
        if any(m == "duckdb" or m.startswith("duckdb.") for m in imported(tree)):
            found.append(f"{name} imports duckdb")
    assert found == []


def test_store_and_index_import_nothing_above_them():
    above = {"store/": ("graph", "index", "memory", "retrieval", "workspace", "server", "commands", "cli"),
             "index/": ("graph", "memory", "retrieval", "workspace", "server", "commands", "cli")}
    found = []
    for under, banned in above.items():
        for name, tree in modules(under):
            found += [f"{name} imports {m}" for m in imported(tree)
                      if m.split(".")[:2] in [["memory_lsp", b] for b in banned]]
    assert found == []
