"""Neovim (the Debian 12 package is 0.7.2) headless, with editors/neovim on its runtimepath and
`require("memory_lsp").setup{}`, against this checkout's `memory-lsp serve` on a workspace with a
memory: the hover, :MemoryImpact, the lenses, search and context, and both ways to teach. Each
session is driven by a Lua script beside this file that writes what the editor saw to a JSON file."""

from __future__ import annotations

from pathlib import Path

from editor_workspace import MEMORY, REPO, SERVER, editor, events, make_workspace, run_editor

HERE = Path(__file__).parent


def nvim_session(nvim: str, tmp_path: Path, script: str, **env: str) -> dict:
    argv = [nvim, "--clean", "--headless", "--cmd", f"set rtp^={REPO / 'editors' / 'neovim'}",
            "-c", f"luafile {HERE / script}"]
    return run_editor(argv, tmp_path / "nvim.json", {"PROJ": str(tmp_path / "proj"), "SERVER": SERVER,
                                                       "HARNESS": str(HERE / "nvim_harness.lua"), **env})


def test_hover_impact_lens_search_and_context(tmp_path, write_files):
    nvim = editor("nvim")
    proj = make_workspace(tmp_path / "proj", write_files)
    seen = nvim_session(nvim, tmp_path, "nvim_reads.lua")
    assert seen["attached"]
    assert MEMORY in seen["hover"] and "gotcha" in seen["hover"]
    assert MEMORY in seen["hover_float"]  # (the impact line may have come meanwhile)
    assert seen["impact_title"] == "memory impact: app/core.py::parse"
    impact = {(Path(i["file"]).relative_to(proj).as_posix(), i["lnum"], i["text"]) for i in seen["impact"]}
    assert impact == {("app/core.py", 14, "Store.add (depth 1; CALLS)"), ("app/api.py", 7, "handle (depth 1; CALLS)")}
    reads = [(Path(i["file"]).relative_to(proj).as_posix(), i["lnum"], i["text"]) for i in seen["reads"]]
    assert reads == [("app/hooks.py", 6, "Hooks.wire (reads it; found by name)"),
                     ("app/hooks.py", 6, "Hooks.wire (uses it without a call)"),
                     ("app/hooks.py", 13, "app/hooks.py module level (uses it without a call)")]
    assert "1 memory" in seen["lens"]  # on `parse`, resolved
    assert any(MEMORY in line for line in seen["search"])
    assert MEMORY in seen["context"] and seen["context_floating"]


def test_teach_through_the_draft_and_the_prompt(tmp_path, write_files):
    nvim = editor("nvim")
    proj = make_workspace(tmp_path / "proj", write_files)
    drafted, prompted = "add() returns the new row count, not the row", "csv.reader handles quoted commas"
    seen = nvim_session(nvim, tmp_path, "nvim_teach.lua", DRAFT_TEXT=drafted, PROMPT_TEXT=prompted)
    assert "Teach a memory about Store.add" in seen["actions"]
    draft = Path(seen["draft"])
    assert draft.parent == proj / ".memory" / "drafts" and draft.suffix == ".md"
    assert "cite: app/core.py::Store.add" in seen["draft_text"] and seen["draft_attached"]
    assert seen["draft_deleted"] and not draft.exists()
    # opened by window/showDocument (the server falls back to a message naming the draft when that fails)
    assert not [m for m in seen["messages"] if "write the memory under" in m]
    assert [m for m in seen["messages"] if m.endswith("the draft is deleted")]
    assert seen["prompted_stored"] and seen["input_prompt"] == "Memory about app/core.py:4-6: "
    assert seen["types"][0] == "gotcha"
    created = {e["text"]: e for e in events(proj) if e["kind"] == "memory.created"}
    assert created[drafted]["type"] == "gotcha"
    assert [(c["path"], c["symbol"]) for c in created[drafted]["citations"]] == [("app/core.py", "Store.add")]
    assert created[prompted]["type"] == "dead_end"
    assert [(c["path"], c["start_line"], c["end_line"]) for c in created[prompted]["citations"]] == [("app/core.py", 4, 6)]
