"""USES_FIXTURE edges no test names: a conftest.py's autouse fixture runs around every test pytest
collects in its folder and below (`@pytest.fixture(autouse=True) def _reset_config():
structlog.reset_defaults()`), so each of those tests uses it. An `autouse` row of refs marks such
a fixture (index/fixtures.py: a module-level function of a conftest.py so decorated).

The edges go from each test entry (a module-level function or class named test*, in a file pytest
collects: test_*.py or *_test.py) to the fixture, strategy `autouse`, at the entry's first line,
no name (edges.py's scoped deletions by name never reach them). A run rebuilds those from or
into the files it parsed again: a test file's edges went with its rows (store/moved_lines.py never
takes them back: they sit at no reference's line), a conftest's fixtures may have come or gone.
About 1-4 ms a test file's edit on the stdlib; nothing for other files.
"""

from __future__ import annotations

import re

from memory_lsp.store.code import value_set
from memory_lsp.store.db import Store
from memory_lsp.store.edges import _COLUMNS, _lit

_COLLECTED = r"(^|/)(test[^/]*|[^/]*_test)\.py$"  # pytest's default python_files: the statement's and the parsed files' test


def rebuild(store: Store, cur, confidence: float, files: set[str] | None) -> None:
    """The autouse edges of a whole run (`files` None), or those from or into `files`."""
    if files is not None:
        files = {p for p in files if p.endswith("conftest.py") or re.search(_COLLECTED, p)}
        if not files:  # no test file and no conftest parsed again: no autouse edge changes
            return
        where = f"IN {value_set(store, cur, '_autouse_files', files)}"
        cur.execute(f"DELETE FROM edges WHERE kind = 'USES_FIXTURE' AND strategy = 'autouse' "
                    f"AND (src_path {where} OR dst_path {where})")
        scoped = f"AND (t.path {where} OR a.path {where})"
    else:
        scoped = ""
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        WITH fixtures AS (
            SELECT a.path, s.id, regexp_replace(a.path, 'conftest\\.py$', '') AS folder
            FROM refs a JOIN symbols s ON s.path = a.path AND s.name = a.name AND s.parent IS NULL
            WHERE a.kind = 'autouse'),
        entries AS (
            SELECT s.id, s.path, s.start_line FROM symbols s JOIN files f ON f.path = s.path AND f.is_test
            WHERE s.parent IS NULL AND s.kind IN ('function', 'class') AND starts_with(lower(s.name), 'test')
              AND regexp_matches(s.path, '{_COLLECTED}'))
        SELECT DISTINCT t.id, a.id, 'USES_FIXTURE', t.path, a.path, t.start_line, {_lit(confidence)},
               'autouse', NULL, 1
        FROM fixtures a JOIN entries t ON starts_with(t.path, a.folder)
        WHERE true {scoped}""")
