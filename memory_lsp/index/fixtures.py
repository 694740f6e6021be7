"""What a pytest fixture's decorator says beyond its function (a test file's module-level function
decorated `@pytest.fixture(...)`), as rows of refs:

- `autouse`: a conftest.py's `fixture(autouse=True)` runs around every test collected below it
  (store/autouse.py makes their USES_FIXTURE edges);
- `fixturename`: `fixture(name="cl") def _cl()` is the fixture `cl` (src: the function, name: the
  fixture's name): a test's parameter `cl` uses it (store/calls.py `_resolve_fixtures`).

And the calls in a `@pytest.mark.parametrize(...)` or `@pytest.fixture(params=...)` decorator are
the function's (`parametrized`): they run at import, but what they make is handed to it, which runs
its methods (requests' `(CaseInsensitiveDict({...}), "utf-8")` cases: `headers.get(...)` in the code
the test calls runs structures.py, a call no type follows).
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


def parametrized(root, refs: list[Ref]) -> list[Ref]:
    """`refs` with the calls inside a parametrizing decorator of a module-level function or a
    method of a module-level class made that function's."""
    spans = []  # (first line, last line, the function's qualname, its class's)
    for node in root.named_children:
        cls = None
        if node.type == "class_definition" or (node.type == "decorated_definition" and _defines(node, "class_definition")):
            klass = node if node.type == "class_definition" else node.child_by_field_name("definition")
            cls = _name(klass)
            body = klass.child_by_field_name("body")
            members = body.named_children if body is not None else []
        else:
            members = [node]
        for member in members:
            if member.type != "decorated_definition" or not _defines(member, "function_definition"):
                continue
            name = _name(member.child_by_field_name("definition"))
            for decorator in member.named_children:
                text = decorator.text
                if decorator.type == "decorator" and (b"parametrize" in text or b"fixture" in text and b"params" in text):
                    spans.append((decorator.start_point[0] + 1, decorator.end_point[0] + 1,
                                  f"{cls}.{name}" if cls else name, cls))
    if not spans:
        return refs
    out = []
    for r in refs:
        owner = next((s for s in spans if s[0] <= r.line <= s[1]), None) if r.kind == "call" else None
        out.append(r._replace(src=owner[2], src_class=owner[3]) if owner and r.src == owner[3] else r)
    return out


def _defines(decorated, kind: str) -> bool:
    definition = decorated.child_by_field_name("definition")
    return definition is not None and definition.type == kind


def _name(definition) -> str:
    return definition.child_by_field_name("name").text.decode("utf-8", "replace")
