"""A store closed while other threads read through it (a folder closed under a hover, a damaged
index set aside and reopened under readers). DuckDB must not close a connection while a cursor
of it runs a query: without the gate (store/cursor.py) the script below segfaulted, hung or read
garbage ("unrecognized enum value") in 5 of 6 runs. Now the close waits for the reads under way,
later reads fail with StoreClosed, and the server answers such a request with ContentModified."""

import asyncio
import subprocess
import sys
import textwrap

import pytest
from pygls.exceptions import JsonRpcContentModified

from memory_lsp.server.guard import guarded
from memory_lsp.store.cursor import StoreClosed
from memory_lsp.store.db import Store

READERS = textwrap.dedent("""
    import sys, threading, time
    from memory_lsp.store.db import Store
    from memory_lsp.store.cursor import StoreClosed
    store = Store.open(sys.argv[1])
    store.conn.execute("CREATE TABLE t AS SELECT range AS i, range::VARCHAR AS v FROM range(1000000)")
    ended, started = [], threading.Barrier(4)

    def read():
        cur = store.cursor()
        started.wait()
        try:
            while True:
                cur.execute("SELECT i, v FROM t WHERE i % 7 = 0").fetchnumpy()
        except StoreClosed:
            ended.append("closed")
        except Exception as exc:
            ended.append(repr(exc))

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    started.wait()
    time.sleep(float(sys.argv[2]))
    store.close()
    for t in threads:
        t.join()
    print(ended)
""")


@pytest.mark.parametrize("delay", [0.01, 0.03, 0.05, 0.1])
def test_a_store_closed_under_readers_ends_their_reads_cleanly(tmp_path, delay):
    done = subprocess.run([sys.executable, "-c", READERS, str(tmp_path / "x.duckdb"), str(delay)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str(["closed"] * 3)


def test_a_closed_store_hands_out_no_cursor_and_opens_again(tmp_path):
    path = tmp_path / "x.duckdb"
    store = Store.open(path)
    store.cursor().execute("SELECT 1").fetchall()
    store.close()
    with pytest.raises(StoreClosed):
        store.cursor().execute("SELECT 1")
    again = Store.open(path)  # (DuckDB frees the file with the connection: this was true before the gate too)
    assert again.cursor().execute("SELECT 1").fetchone() == (1,)
    again.close()


def test_the_server_answers_a_read_of_a_closed_index_with_content_modified():
    @guarded
    async def hover():
        raise StoreClosed("the index was closed")

    with pytest.raises(JsonRpcContentModified):
        asyncio.run(hover())




SETTINGS = textwrap.dedent("""
    import sys, threading
    from memory_lsp.store.db import Store
    store = Store.open(sys.argv[1])
    setting = "SELECT current_setting('enable_progress_bar')"
    seen = [store.conn.execute(setting).fetchone()[0], store.cursor().execute(setting).fetchone()[0]]
    worker = threading.Thread(target=lambda: seen.append(store.cursor().execute(setting).fetchone()[0]))
    worker.start()
    worker.join()
    store.close()
    print(seen)
""")


def test_no_progress_bar_can_reach_stdout(tmp_path):
    """stdout is the server's LSP stream and the CLI's answer: DuckDB draws its progress bar there
    for a query past 2 s (a loaded CI machine's CREATE TABLE above did), unless the connection says
    not to; every thread's cursor takes the connection's setting. In a process of its own, as the
    server's and the CLI's (under pytest DuckDB starts with the bar off)."""
    done = subprocess.run([sys.executable, "-c", SETTINGS, str(tmp_path / "x.duckdb")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str([False] * 3)
