"""Shutdown while the first index runs (issue 16 item 6), through the relay and standalone:
`shutdown` is answered without waiting for the run, `exit` ends the process, and the index the
stopped run left behind is usable by the next reader. The times are measured by
bench/bench_shutdown.py; here only that it happens."""

from __future__ import annotations

import json

import pytest

from conftest import SERVER, cli
from rawclient import RawClient

FILES = 300  # enough for the parse workers, and for the index to be under way at shutdown


@pytest.fixture
def large(tmp_path, write_files):
    files = {f"pkg/mod{i}.py": "".join(f"def f{i}_{j}(x):\n    return f{i}_{(j + 1) % 40}(x) + {j}\n\n\n"
                                       for j in range(40)) for i in range(FILES)}
    write_files(tmp_path / "large", files)
    return tmp_path / "large"


@pytest.mark.parametrize("mode", ["relay", "standalone"])
def test_shutdown_while_indexing_answers_and_exits(large, mode):
    raw = RawClient(SERVER + (["--standalone"] if mode == "standalone" else []))
    try:
        raw.initialize(large)
        raw.wait_for(lambda: raw.notifications("$/progress"), 120, "indexing to begin")
        answer = raw.call("shutdown", None, timeout=60)
        assert "error" not in answer and answer["result"] is None
        late = raw.call("workspace/symbol", {"query": "f1_"}, timeout=60)
        assert late["error"]["code"] == -32600  # after shutdown: InvalidRequest
        raw.notify("exit")
        assert raw.proc.wait(timeout=60) == 0
    finally:
        raw.close()
    # the run was stopped (rolled back) or had finished: either way the next run completes the index
    done = cli(large, "index")
    assert done.returncode == 0, done.stderr
    done = cli(large, "stats", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["languages"] == [{"lang": "python", "files": FILES, "symbols": FILES * 40}]
