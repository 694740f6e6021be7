"""Emacs in batch mode (Debian 12: 28.2 with elpa-eglot) with editors/emacs/memory-lsp.el loaded,
beside eglot running the user's own Python server (Debian's pylsp) in the same buffer, against this
checkout's `memory-lsp serve`: the hover, the flymake diagnostics, impact, and teaching with the
prompt and through the draft the server opens with window/showDocument. The session is driven by
emacs_session.el, which writes what Emacs saw to a JSON file."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from editor_workspace import MEMORY, REPO, SERVER, editor, events, make_workspace, run_editor

HERE = Path(__file__).parent


def eglot_load_path(emacs: str) -> list[str]:
    """Emacs 28 has no eglot: Debian's elpa-eglot puts it (and its newer project/xref) under
    site-lisp/elpa, which `emacs -Q` does not load; Emacs 29 has it built in."""
    version = subprocess.run([emacs, "--version"], capture_output=True, text=True, timeout=30).stdout
    if not version.startswith("GNU Emacs 28"):
        return []
    dirs = sorted(glob.glob("/usr/share/emacs/site-lisp/elpa/*/"))
    if not any("/eglot-" in d for d in dirs):
        pytest.fail("Emacs 28 needs Debian's elpa-eglot (apt-get install elpa-eglot)")
    return [arg for d in dirs for arg in ("-L", d)]


def user_server() -> str:
    found = shutil.which("pylsp")
    if not found and os.environ.get("MEMORY_LSP_REQUIRE_EDITORS") == "1":
        pytest.fail("pylsp (Debian's python3-pylsp) is missing: the test runs it under eglot beside memory-lsp")
    return found or ""


def test_hover_diagnostics_impact_and_teach_beside_eglot(tmp_path, write_files):
    emacs = editor("emacs")
    proj = make_workspace(tmp_path / "proj", write_files)
    subprocess.run(["git", "init", "-q", str(proj)], check=True, timeout=30)  # eglot's project.el wants one
    pylsp = user_server()
    drafted, prompted = "add() returns the new row count, not the row", "csv.reader handles quoted commas"
    argv = [emacs, "--batch", "-Q", *eglot_load_path(emacs), "-l", str(REPO / "editors/emacs/memory-lsp.el"),
            "-l", str(HERE / "emacs_session.el")]
    seen = run_editor(argv, tmp_path / "emacs.json", {"PROJ": str(proj), "SERVER": SERVER, "USER_SERVER": pylsp,
                                                      "DRAFT_TEXT": drafted, "PROMPT_TEXT": prompted})
    if pylsp:  # eglot kept its own server for the buffer; memory-lsp ran beside it
        assert seen["eglot"] and seen["still_eglot"] and seen["eglot_server"] == [pylsp]
    assert seen["hooks"] == [True, True]  # still there after eglot set both lists to its own
    assert MEMORY in seen["hover"] and "gotcha" in seen["hover"]
    assert MEMORY in seen["eldoc"]
    assert [4, ":note"] in [d[:2] for d in seen["flymake"] if MEMORY in d[2]]
    assert sorted(map(tuple, seen["impact"])) == [("app/api.py", 7, "handle (depth 1; CALLS)"),
                                                  ("app/core.py", 14, "Store.add (depth 1; CALLS)")]
    assert seen["reads"] == [["app/hooks.py", 6, "Hooks.wire (reads it; found by name)"],
                             ["app/hooks.py", 6, "Hooks.wire (uses it without a call)"],
                             ["app/hooks.py", 13, "app/hooks.py module level (uses it without a call)"]]
    assert "Teach a memory about Store.add" in seen["actions"] and seen["opened"] == "showDocument"
    draft = Path(seen["draft"])
    assert draft.parent == proj / ".memory" / "drafts" and seen["draft_mode"]
    assert seen["draft_deleted"] and not draft.exists()
    created = {e["text"]: e for e in events(proj) if e["kind"] == "memory.created"}
    assert created[prompted]["id"] == seen["prompted"] and created[prompted]["type"] == "dead_end"
    assert [(c["path"], c["start_line"], c["end_line"]) for c in created[prompted]["citations"]] == [("app/core.py", 4, 5)]
    assert [(c["path"], c["symbol"]) for c in created[drafted]["citations"]] == [("app/core.py", "Store.add")]
