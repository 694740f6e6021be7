"""The teach draft's format: what `render` writes `parse` reads back, the text may span lines,
and a stray line is an error that names it."""

from __future__ import annotations

import pytest

from memory_lsp.errors import UserError
from memory_lsp.memory import drafts


def test_render_then_parse():
    content = drafts.render(["app/core.py::parse", "app/api.py:3-5"], "gotcha")
    assert drafts.parse(content) == drafts.Draft("gotcha", ["app/core.py::parse", "app/api.py:3-5"], "")
    written = content + "parse() drops empty fields\n\nso 'a,,b' gives two\n"
    assert drafts.parse(written).text == "parse() drops empty fields\n\nso 'a,,b' gives two"
    assert drafts.parse("type: policy\ntext: one line\n") == drafts.Draft("policy", [], "one line")


def test_bad_drafts():
    with pytest.raises(UserError, match="line 2"):
        drafts.parse("type: gotcha\nthis is not a field\ntext: x")
    with pytest.raises(UserError, match="no `type:`"):
        drafts.parse("cite: a.py\ntext: x")


def test_draft_paths(tmp_path):
    rel = drafts.new_path(tmp_path)
    assert drafts.is_draft(rel) and (tmp_path / ".memory/drafts").is_dir()
    assert "drafts/" in (tmp_path / ".memory/.gitignore").read_text().splitlines()
    assert not drafts.is_draft(".memory/events.jsonl") and not drafts.is_draft("docs/drafts/x.md")
