"""A server's DuckDB keeps no cache of what it has read into memory already: a while after the
last graph load (no edit since) and after each search the writer hands the blocks back
(`Workspace.settle`; 68 MB after the load and 70 MB after two searches at 11,282 files,
BENCHMARKS.md ba)."""

from __future__ import annotations

import time

from conftest import folder_with_graph

from memory_lsp.server import folders

WORDS = "parse render socket buffer cache token stream header cookie session".split()


def _cached(folder) -> int:
    return folder.ws.store.cursor().execute("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() "
                                            "WHERE tag = 'BASE_TABLE'").fetchone()[0]


def _handed_back(folder, within: float = 30) -> bool:
    deadline = time.monotonic() + within
    while _cached(folder) > 1 << 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    return _cached(folder) <= 1 << 20


def test_the_cache_is_handed_back_after_the_load_and_after_a_search(tmp_path, write_files, monkeypatch):
    monkeypatch.setattr(folders, "SETTLE_AFTER_SECONDS", 0.5)
    write_files(tmp_path, {f"pkg/m{i}.py": "".join(
        f"def {WORDS[j % 10]}_{i}_{j}(x):\n    \"\"\"{' '.join(WORDS[(i + j + k) % 10] for k in range(30))}\"\"\"\n"
        f"    return {WORDS[(j + 1) % 10]}_{i}_{j + 1}(x)\n\n\n" for j in range(40)) for i in range(60)})
    with folder_with_graph(tmp_path) as folder:
        assert _handed_back(folder)  # what the graph's load read
        found = folder.command("memory.search", {"query": "socket cookie parse", "mode": "bm25"}).result(60)
        assert found["results"]
        assert _handed_back(folder)  # what the search read
