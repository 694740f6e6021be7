"""PEP 484 type comments: `self.dump_fields = {}  # type: typing.Dict[str, ma_fields.Field]` says what an
annotation would (`self.dump_fields: typing.Dict[str, ma_fields.Field] = {}`). Code written for Python 2 and
3 alike uses them (marshmallow's Schema): without them `for name, field_obj in self.dump_fields.items():
field_obj.serialize(...)` was a name guess, under the listed confidence, and `impact` on `Field.serialize`
found 59 of its 196 dependents. An assignment's binding with such a comment on its line gets an
annotation's binding beside it; a function's signature comment (`# type: (int) -> str`) is not read."""

from __future__ import annotations

import re

from memory_lsp.index.receivers import Binding

# `# type: T`, not `# type: ignore[...]`; a comment after it (`# noqa`) is not part of T
_COMMENT = re.compile(rb"#\s*type:(?!\s*ignore\b)\s*([^#\s][^#\r\n]*?)\s*(?:#.*)?$")
# the bindings an assignment (or a `for`) makes
_ASSIGNED = frozenset(("call", "literal", "alias", "assign", "either", "bound", "held", "factory", "iter"))


def declared(binds: list[Binding], data: bytes) -> list[Binding]:
    """The annotation bindings the type comments of a Python file's assignments add to `binds`."""
    if b"type:" not in data:  # most files have none
        return []
    lines, out = data.split(b"\n"), []
    for bind in binds:
        found = _COMMENT.search(lines[bind.line - 1]) if bind.kind in _ASSIGNED else None
        if found and not found[1].startswith(b"("):  # `(int, str) -> bool`: a signature's
            out.append(bind._replace(kind="type", text=found[1].decode("utf-8", "replace")))
    return out
