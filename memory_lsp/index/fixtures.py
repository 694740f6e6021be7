"""What a pytest fixture's decorator says beyond its function (a test file's module-level function
decorated `@pytest.fixture(...)`), as rows of refs:

- `autouse`: a conftest.py's `fixture(autouse=True)` runs around every test collected below it
  (store/autouse.py makes their USES_FIXTURE edges);
- `fixturename`: `fixture(name="cl") def _cl()` is the fixture `cl` (src: the function, name: the
  fixture's name): a test's parameter `cl` uses it (store/calls.py `_resolve_fixtures`).
"""

from __future__ import annotations

import re

from memory_lsp.index.facts import Ref

_FIXTURE = r"(?:\w+\.)*fixture\((?:.*[,\s(])?"  # `pytest.fixture(` and the arguments before the one wanted
_AUTOUSE = re.compile(_FIXTURE + r"autouse\s*=\s*True\b", re.S)
_NAMED = re.compile(_FIXTURE + r"""name\s*=\s*(["'])([A-Za-z_]\w*)\1""", re.S)


def decorated(path: str, decorator: str, function: str, line: int) -> list[Ref]:
    """The rows a module-level `function` of test file `path` decorated with `decorator` gives."""
    refs = []
    if path.rsplit("/", 1)[-1] == "conftest.py" and _AUTOUSE.match(decorator):
        refs.append(Ref("autouse", None, None, function, None, line))
    named = _NAMED.match(decorator)
    if named and named.group(2) != function:
        refs.append(Ref("fixturename", function, None, named.group(2), None, line))
    return refs
