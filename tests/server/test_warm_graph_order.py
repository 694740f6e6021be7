"""A warm start loads the impact graph after its first index run, never beside it (their memory
peaks added up: BENCHMARKS.md ac), and a cold or warm folder gets its graph either way."""

from __future__ import annotations

import logging
import time

from conftest import folder_with_graph

FILES = {"app/core.py": "def parse(x):\n    return helper(x)\n\n\ndef helper(x):\n    return x\n",
         "app/cli.py": "from app.core import parse\n\n\ndef main():\n    parse(1)\n"}


def _start_and_wait(path) -> None:
    with folder_with_graph(path) as folder:
        assert folder.ws.load_graph().node_id("app/core.py::helper") is not None
        time.sleep(0.5)  # a second load, had one been queued, would be in the log by now


def test_warm_start_loads_the_graph_after_the_index_run(tmp_path, index_files, caplog):
    index_files(tmp_path, FILES).close()  # the index a previous session left
    caplog.set_level(logging.INFO, logger="memory_lsp.server.folders")
    _start_and_wait(tmp_path)
    said = [r.getMessage() for r in caplog.records]
    indexed = next(i for i, m in enumerate(said) if m.startswith("indexed "))
    loaded = [i for i, m in enumerate(said) if m.startswith("impact graph loaded")]
    assert len(loaded) == 1 and loaded[0] > indexed, said  # once: each load refreshes every lens


def test_cold_start_gets_its_graph(tmp_path, write_files):
    write_files(tmp_path, FILES)
    _start_and_wait(tmp_path)
