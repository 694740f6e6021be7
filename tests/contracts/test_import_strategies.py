"""How each IMPORTS edge of a contract workspace was resolved: `import_strategies` in
`languages/<lang>/expected.json` lists [source, target, strategy] for the edges it pins.

Every listed edge must carry its strategy, and every edge marked conditional (`go_build_tag`,
`rust_cfg`) must be listed: a plain edge never turns conditional, nor the other way, unseen.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory_lsp.workspace import Workspace

HERE = Path(__file__).parent / "languages"
CONDITIONAL = ("go_build_tag", "rust_cfg")
LANGS = sorted(p.parent.name for p in HERE.glob("*/expected.json")
               if "import_strategies" in json.loads(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang", LANGS)
def test_import_strategies(lang, tmp_path):
    expected = json.loads((HERE / lang / "expected.json").read_text(encoding="utf-8"))
    root = tmp_path / "ws"
    shutil.copytree(HERE / lang / "workspace", root)
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        rows = ws.store.cursor().execute(
            "SELECT src, dst, strategy FROM edges WHERE kind = 'IMPORTS'").fetchall()
    finally:
        ws.close()
    got = {(src, dst): strategy for src, dst, strategy in rows}
    want = {(src, dst): strategy for src, dst, strategy in expected["import_strategies"]}
    assert {pair: got.get(pair) for pair in want} == want
    assert sorted(pair for pair, s in got.items() if s in CONDITIONAL) == \
        sorted(pair for pair, s in want.items() if s in CONDITIONAL)


def test_every_conditional_language_pins_its_strategies():
    assert {"c", "cpp", "go", "rust", "typescript"} <= set(LANGS)
