"""An annotated name bound again in its function (index/receivers.py `Scopes.lookup`): below the new
binding it is the new value, when the annotation named no class and the value is known to be ours
or Python's. arrow's `def humanize(self, ..., locale: str = DEFAULT_LOCALE)` does `locale =
locales.get_locale(locale)`, then `locale.describe_multi(...)`: a Locale's, not a str's.

An annotation naming a class stays: a rebinding in a branch (`if not isinstance(key, Key): key =
SingleKey(key)`) is one of its kinds. So does one whose value is unknown where a wrong guess would
follow: `x = x.strip()` (the annotation's type, changed in form), `for x in ...` (the annotation
may declare the loop's variable), a call of a standard-library module's function (`f =
os.fdopen(fd)`: what it returns is no class of ours) or of a local's method (its value unknown)."""

from __future__ import annotations

import re
import sys

from memory_lsp.index import languages

# what an annotation names that is no class (beside Python's own: receivers' "builtin")
_NO_CLASS = re.compile(r"(?:t\.|typing\.|te\.|typing_extensions\.)?(?:Any|Union|Optional|Callable|Type|IO|TextIO|BinaryIO)$")
_ROOT = re.compile(r"([A-Za-z_]\w*)(\.?)")


def last_binding(binds: list[tuple[int, int, str | None]], declared_rank: int, name: str, line: int,
                 is_local, marks: tuple[str, str]) -> tuple[int, str] | None:
    """Of `binds` ((line, rank, type) of each binding of `name` in its function), the last one below the
    last annotation (rank `declared_rank`) and above `line`, as (rank, type), where it is to be believed.
    `is_local(root)`: whether the function binds that name; `marks`: receivers' DEFER (what a call
    returns) and ELEMENT (an element of)."""
    (defer, element), self_names = marks, languages.registry()["python"].self_names
    declared = max((b for b in binds if b[1] == declared_rank), default=None)
    if declared is None or not (declared[2] in (None, "builtin") or _NO_CLASS.match(declared[2])):
        return None
    later = [b for b in binds if declared[0] < b[0] < line and b[1] < declared_rank]
    rank, typ = max(later, key=lambda b: b[0])[1:] if later else (None, None)
    if typ is None or typ.startswith(element):
        return None
    if typ.startswith(defer) and (root := _ROOT.match(typ, len(defer))) is None:
        return None  # a literal's method (`"\n".join(...)`)
    if typ.startswith(defer) and root[2] and root[1] not in self_names and (
            root[1] == name or root[1] in sys.stdlib_module_names or is_local(root[1])):
        return None
    return rank, typ
