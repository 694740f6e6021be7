"""Export: JSON round trip, the Markdown document, the CLAUDE.md/AGENTS.md block and its replacement."""

import json

from memory_lsp.memory.export import replace_block, to_agents_block, to_json, to_markdown
from memory_lsp.memory.rules import BLOCK_BEGIN, BLOCK_END, parse_rules


def memory(id, type, text, created="2025-01-01T00:00:00Z", citations=(), **fields):
    m = dict(id=id, type=type, text=text, priority="normal", confidence=1.0, tags=[], scope=None,
             source="user_taught", pinned=False, needs_review=False, created=created,
             citations=list(citations), provenance=None)
    m.update(fields)
    return m


def cite(path, start, end, state="valid", symbol=None):
    return dict(path=path, symbol=symbol, start_line=start, end_line=end, state=state)


MEMORIES = [
    memory("m4", "fact", "The API rate limit is 100 requests a minute."),
    memory("m2", "gotcha", "The `db` fixture truncates every table.", tags=["testing"], needs_review=True,
           citations=[cite("tests/conftest.py", 10, 24, "drifted", "db")], priority="high"),
    memory("m1", "policy", "Never commit `.env` files.", priority="critical", pinned=True,
           provenance={"path": "CLAUDE.md", "line": 10}),
    memory("m3", "decision", "We chose Alembic for migrations.", created="2025-02-01T00:00:00Z",
           citations=[cite("migrations/env.py", 1, 40), cite("app/db.py", 7, 7, "orphaned")]),
    memory("m0", "decision", "Jobs run in a separate worker process.", created="2024-12-01T00:00:00Z"),
    memory("m5", "workflow_recipe", "To run one test:\n```sh\npytest -k login\n```", scope="tests/**"),
    memory("m6", "preference", "Prefer `httpx` over `requests`.", tags=["style", "http"], scope="global"),
]


def test_json_round_trip_in_stable_order():
    data = json.loads(to_json(MEMORIES))
    assert data["format"] == "memory-lsp/1"
    assert [m["id"] for m in data["memories"]] == ["m1", "m2", "m0", "m3", "m6", "m5", "m4"]
    assert sorted(data["memories"], key=lambda m: m["id"]) == sorted(MEMORIES, key=lambda m: m["id"])
    assert to_json(list(reversed(MEMORIES))) == to_json(MEMORIES)
    ordered = data["memories"]
    assert json.loads(to_json(ordered))["memories"] == ordered


def test_markdown_sections_citations_and_review_marks():
    doc = to_markdown(MEMORIES)
    sections = [line for line in doc.splitlines() if line.startswith("## ")]
    assert sections == ["## Policies", "## Gotchas", "## Decisions", "## Preferences", "## Workflow recipes",
                        "## Facts"]
    assert doc.startswith("# Project memory\n")
    assert ("- The `db` fixture truncates every table. [tests/conftest.py:10-24 drifted] (unreviewed) "
            "tags: testing") in doc
    assert "- We chose Alembic for migrations. [migrations/env.py:1-40] [app/db.py:7 orphaned]\n" in doc
    assert "- Never commit `.env` files.\n" in doc
    assert "- Prefer `httpx` over `requests`. tags: style, http\n" in doc  # a global scope goes unsaid
    # a code block stays inside its list item, the extras stay out of the code
    assert "- To run one test: scope: `tests/**`\n  ```sh\n  pytest -k login\n  ```\n" in doc
    assert to_markdown([]) == "# Project memory\n\nNo memories yet.\n"


def test_agents_block_is_readable_and_grouped_for_agents():
    block = to_agents_block(MEMORIES)
    lines = block.splitlines()
    assert lines[0] == BLOCK_BEGIN and lines[-1] == BLOCK_END
    assert "`memory-lsp export --format agents`" in lines[1] and "replaced" in lines[1]
    groups = [line for line in lines if line.startswith("### ")]
    assert groups == ["### Policies", "### Preferences", "### Gotchas", "### Decisions", "### Workflow recipes",
                      "### Facts"]
    assert "- The `db` fixture truncates every table. (see `tests/conftest.py:10` drifted; unreviewed)" in lines
    assert "- To run one test: (in `tests/**`)" in lines
    assert "m1" not in block and "m2" not in block  # no ids


CLAUDE_MD = "# Acme\n\n- Never push to `main` directly.\n\n## Notes\n\nThe docs live in `docs/` as Markdown.\n"


def test_replace_block_appends_then_replaces_in_place():
    block = to_agents_block(MEMORIES)
    once = replace_block(CLAUDE_MD, block)
    assert once == CLAUDE_MD + "\n" + block + "\n"
    assert replace_block(once, block) == once
    # people's text before and after the block survives a new export
    edited = once.replace(BLOCK_END, BLOCK_END + "\n\n## Added later\n\n- Always tag releases.")
    newer = to_agents_block(MEMORIES[:2])
    replaced = replace_block(edited, newer)
    assert replaced == CLAUDE_MD + "\n" + newer + "\n\n## Added later\n\n- Always tag releases.\n"
    assert replace_block(replaced, newer) == replaced
    assert replace_block("", block) == block + "\n"


def test_replace_block_ignores_stray_markers():
    stray = f"{BLOCK_END} mentioned in passing.\n\nSee {BLOCK_BEGIN} too.\n"
    block = to_agents_block(MEMORIES)
    once = replace_block(stray, block)  # no whole block yet: append, leave the strays alone
    assert once == stray + "\n" + block + "\n"
    assert replace_block(once, block) == once


def test_importing_a_file_with_the_block_skips_it():
    document = replace_block(CLAUDE_MD, to_agents_block(MEMORIES))
    assert [i.text for i in parse_rules("CLAUDE.md", document)] == [
        "Never push to `main` directly.", "The docs live in `docs/` as Markdown."]
