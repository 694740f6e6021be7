"""The server's graph thread publishes a graph whose test selection is already built: the first
hover or lens on a new graph must not build it (13 s at 25,000 files, BENCHMARKS.md am); the
snapshots serve the last graph meanwhile."""

FILES = {
    "pkg/core.py": "def f():\n    return 1\n",
    "pkg/use.py": "from pkg.core import f\ndef g():\n    return f()\n",
    "tests/test_use.py": "from pkg.use import g\ndef test_g():\n    assert g() == 1\n",
}


def test_a_prepared_graph_is_published_with_its_test_selection(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        graph = ws.load_graph(prepare=True)
        assert graph.tests_ready
        published = ws.snapshot().graph
        assert published is graph and published.tests_ready
        # and it answers as one built on the first question does
        assert published.counts("pkg/core.py", "pkg/core.py", 3, 0.0) == (2, 1)
    finally:
        ws.close()


def test_a_graph_loaded_for_one_answer_builds_it_only_when_asked(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        graph = ws.load_graph()
        assert not graph.tests_ready  # the CLI's `impact` of a symbol with no tests to list pays nothing
        assert graph.counts("pkg/core.py", "pkg/core.py", 3, 0.0) == (2, 1)
        assert graph.tests_ready
    finally:
        ws.close()

