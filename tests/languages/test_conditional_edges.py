"""Edges kept under a Go build constraint or a Rust cfg say so where a user reads edges: `expand`."""

from __future__ import annotations

import json
import subprocess
import sys

FILES = {
    "go.mod": "module example.com/m\n",
    "main.go": 'package main\n\nimport "example.com/m/sys"\n\nfunc main() { sys.Page() }\n',
    "sys/sys.go": "package sys\n\nfunc Page() int { return 4096 }\n",
    "sys/sys_windows.go": "package sys\n\nfunc winPage() int { return 65536 }\n",
    "Cargo.toml": '[package]\nname = "k"\n',
    "src/lib.rs": "mod plain;\n#[cfg(unix)]\nmod unix;\n",
    "src/plain.rs": "pub fn p() {}\n",
    "src/unix.rs": "pub fn u() {}\n",
}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True, timeout=180)


def test_expand_marks_conditional_edges(tmp_path, write_files):
    root = write_files(tmp_path, FILES)
    assert cli("index", str(root)).returncode == 0
    done = cli("expand", "-w", str(root), "main.go", "--json")
    assert done.returncode == 0, done.stderr
    out = {e["path"]: (e["strategy"], e["conditional"]) for e in json.loads(done.stdout)["outgoing"]
           if e["kind"] == "IMPORTS"}
    assert out == {"sys/sys.go": ("go_package", False), "sys/sys_windows.go": ("go_build_tag", True)}

    text = cli("expand", "-w", str(root), "src/lib.rs").stdout
    assert "-> IMPORTS src/unix.rs (1, conditional: rust_cfg)" in text
    assert "-> IMPORTS src/plain.rs (1)" in text
    incoming = cli("expand", "-w", str(root), "sys/sys_windows.go").stdout
    assert "<- IMPORTS main.go (1, conditional: go_build_tag)" in incoming


def _import_edges(ws):
    rows = ws.store.cursor().execute(
        "SELECT src, dst, strategy FROM edges WHERE kind = 'IMPORTS' ORDER BY ALL").fetchall()
    return [tuple(r) for r in rows]


def test_a_constraint_added_or_removed_later_marks_the_edges_of_unchanged_importers(tmp_path, write_files):
    """Whether main.go's edge into sys/ is conditional is a fact of the imported file: when that
    file alone gains a build constraint (or a Rust module loses its cfg), the importer is not
    re-parsed, yet its edge must read as a fresh index reads it."""
    from memory_lsp.workspace import Workspace

    # unix.rs declares a child module: its edge is conditional because lib.rs's `mod unix` is
    root = write_files(tmp_path / "ws", {**FILES, "src/unix.rs": "mod inner;\npub fn u() {}\n",
                                         "src/unix/inner.rs": "pub fn i() {}\n"})
    ws = Workspace.open(root)
    ws.index(workers=0)
    assert ("src/unix.rs", "src/unix/inner.rs", "rust_cfg") in _import_edges(ws)
    (root / "sys/sys.go").write_text("//go:build linux\n\npackage sys\n\nfunc Page() int { return 4096 }\n")
    (root / "src/lib.rs").write_text("mod plain;\nmod unix;\n")
    ws.reindex({"sys/sys.go": None, "src/lib.rs": None})
    incremental = _import_edges(ws)
    ws.close()
    fresh = Workspace.open(root, db=str(tmp_path / "fresh.duckdb"))
    fresh.index(workers=0)
    assert ("main.go", "sys/sys.go", "go_build_tag") in _import_edges(fresh)
    assert incremental == _import_edges(fresh)
    fresh.close()


def test_marks_follow_an_unsaved_buffer(tmp_path, write_files):
    """An editor's buffer is what the index holds for its file: a resolver that reads the file for
    its marks (a Rust #[cfg], a C #if) reads the buffer's lines, not the disk's."""
    from memory_lsp.workspace import Workspace

    root = write_files(tmp_path / "ws", {**FILES, "src/lib.rs": "mod plain;\nmod unix;\n",
                                         "c/main.c": '#include "a.h"\n#include "b.h"\n', "c/a.h": "", "c/b.h": ""})
    ws = Workspace.open(root)
    try:
        ws.index(workers=0)
        ws.reindex({"src/lib.rs": b"#[cfg(unix)]\nmod unix;\nmod plain;\n",
                    "c/main.c": b'#include "b.h"\n#ifdef HAVE_A\n#include "a.h"\n#endif\n'})
        edges = {(src, dst): strategy for src, dst, strategy in _import_edges(ws)}
        assert edges[("src/lib.rs", "src/unix.rs")] == "rust_cfg"
        assert edges[("src/lib.rs", "src/plain.rs")] == "mod"
        assert edges[("c/main.c", "c/a.h")] == "c_preprocessor"
        assert edges[("c/main.c", "c/b.h")] == "relative"
    finally:
        ws.close()
