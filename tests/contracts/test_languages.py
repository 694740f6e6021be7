"""Per-language graph contracts: each `languages/<lang>/workspace/` is indexed in process and its
symbols, test files and edges are compared with `languages/<lang>/expected.json`.

expected.json holds what the graph should be, written from the source, not from the indexer:
  "symbols": [[path, qualname, kind], ...]   every symbol of the workspace
  "tests": [path, ...]                        every file indexed as a test
  "edges": {KIND: [[source, target], ...]}    every edge of each listed kind
  "known_missing": [{"symbol" | "edge": [...], "reason": "..."}]  expected, not produced today
  "known_wrong": [{"symbol" | "edge": [...], "reason": "..."}]    produced today, not expected
A known defect must stay as recorded: when the indexer is fixed, the test fails until the
entry is removed from its list.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_lsp.workspace import Workspace

HERE = Path(__file__).parent / "languages"
GRAMMARS = Path(__file__).parents[2] / "grammars"
LANGS = sorted(p.name for p in HERE.iterdir() if (p / "expected.json").is_file())


def test_every_indexed_language_has_a_contract():
    assert LANGS == sorted(p.parent.name for p in GRAMMARS.glob("*/language.json"))


def _load(lang: str) -> dict:
    return json.loads((HERE / lang / "expected.json").read_text(encoding="utf-8"))


def _actual(ws: Workspace, kinds) -> dict:
    cur = ws.store.cursor()
    edges = {}
    for kind in kinds:
        rows = cur.execute("SELECT DISTINCT src, dst FROM edges WHERE kind = ?", [kind]).fetchall()
        edges[kind] = {(kind, src, dst) for src, dst in rows}
    return {
        "symbols": set(cur.execute("SELECT path, qualname, kind FROM symbols").fetchall()),
        "tests": {p for (p,) in cur.execute("SELECT path FROM files WHERE is_test").fetchall()},
        "edges": edges,
    }


@pytest.fixture(scope="module", params=LANGS)
def contract(request, tmp_path_factory):
    """(expected.json, the indexed graph) for one language; indexed once per module."""
    lang = request.param
    root = tmp_path_factory.mktemp(lang) / "ws"
    # a copy outside the repository: the index and its .memory folder stay out of the source tree
    shutil.copytree(HERE / lang / "workspace", root)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        expected = _load(lang)
        yield expected, _actual(ws, expected["edges"])
    finally:
        ws.close()


def _known(expected: dict, which: str, key: str) -> set[tuple]:
    return {tuple(entry[key]) for entry in expected.get(which, []) if key in entry}


def test_known_defects_have_reasons():
    for lang in LANGS:
        for which in ("known_missing", "known_wrong"):
            for entry in _load(lang).get(which, []):
                assert entry.get("reason") and ("symbol" in entry) != ("edge" in entry), (lang, entry)


def test_symbols(contract):
    expected, actual = contract
    want = {tuple(s) for s in expected["symbols"]}
    missing, wrong = _known(expected, "known_missing", "symbol"), _known(expected, "known_wrong", "symbol")
    assert missing <= want and not wrong & want
    assert sorted(actual["symbols"] - want) == sorted(wrong)
    assert sorted(want - actual["symbols"]) == sorted(missing)


def test_test_files(contract):
    expected, actual = contract
    assert sorted(actual["tests"]) == sorted(expected["tests"])


def test_edges(contract):
    expected, actual = contract
    missing, wrong = _known(expected, "known_missing", "edge"), _known(expected, "known_wrong", "edge")
    for kind, pairs in expected["edges"].items():
        want = {(kind, src, dst) for src, dst in pairs}
        got = actual["edges"][kind]
        kind_missing = {e for e in missing if e[0] == kind}
        kind_wrong = {e for e in wrong if e[0] == kind}
        assert kind_missing <= want and not kind_wrong & want, kind
        assert sorted(got - want) == sorted(kind_wrong), f"{kind}: edges not in expected.json"
        assert sorted(want - got) == sorted(kind_missing), f"{kind}: expected edges not produced"
    assert {e[0] for e in missing | wrong} <= set(expected["edges"]), "a known edge of an unchecked kind"
