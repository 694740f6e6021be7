"""Incremental equals full when a file the resolvers read but do not index changes: a
package.json's `exports` moves where `import "pkg/x"` lands although no source file changed."""

import json

from memory_lsp.workspace import Workspace


# `import "pkg/x"` lands where package.json's `exports` says: src/x.ts, or src/y.ts once it changes
SELF_IMPORT = {
    "package.json": json.dumps({"name": "pkg", "exports": {"./x": "./src/x.ts"}}),
    "src/x.ts": "export function f() { return 1 }\n",
    "src/y.ts": "export function f() { return 2 }\n",
    "src/a.ts": 'import { f } from "pkg/x"\n\nexport const g = () => f()\n',
}


def _imports(ws):
    return ws.store.cursor().execute(
        "SELECT src, dst, strategy FROM edges WHERE kind = 'IMPORTS' ORDER BY ALL").fetchall()


def test_a_changed_package_json_moves_the_imports_of_unchanged_files(tmp_path, write_files):
    root = write_files(tmp_path / "ws", SELF_IMPORT)
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert ("src/a.ts", "src/x.ts") in {(s, d) for s, d, _ in _imports(ws)}
    (root / "package.json").write_text(json.dumps({"name": "pkg", "exports": {"./x": "./src/y.ts"}}))
    report = ws.index(workers=0)
    assert report.parsed == 0  # no source file changed
    incremental = _imports(ws)
    ws.close()
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    assert ("src/a.ts", "src/y.ts") in {(s, d) for s, d, _ in _imports(fresh)}
    assert incremental == _imports(fresh)
    fresh.close()


def test_an_editor_run_for_the_changed_package_json_is_a_change_to_the_code(tmp_path, write_files):
    """What the server's watcher hands over when package.json is saved: a run of that one path.
    It parses nothing, yet imports land elsewhere: the report says so, and the graph is stale."""
    root = write_files(tmp_path / "ws", SELF_IMPORT)
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert "package.json" in ws.resolver_inputs()
    ws.load_graph()
    assert ws.graph_is_current()
    untouched = ws.reindex({str(root / "package.json"): None})
    assert not untouched.code_changed and ws.graph_is_current()  # nothing changed: nothing to redo
    (root / "package.json").write_text(json.dumps({"name": "pkg", "exports": {"./x": "./src/y.ts"}}))
    report = ws.reindex({str(root / "package.json"): None})
    assert report.parsed == 0 and report.relinked == 1 and report.code_changed
    assert not ws.graph_is_current()
    assert ("src/a.ts", "src/y.ts") in {(s, d) for s, d, _ in _imports(ws)}
    deps, _tests = ws.load_graph().walk("src/y.ts", "src/y.ts", 1)
    assert "src/a.ts" in {d.node for d in deps}
    ws.close()
