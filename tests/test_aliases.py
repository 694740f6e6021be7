"""index/aliases.py: which module-level assignments are imports of what they name."""

from memory_lsp.index.extract import extract

SOURCE = """from functools import partial
import functools
import os.path
import json as j
from . import converters
from ._make import attrs, attrib
s = attributes = attrs
ib = attr = attrib
dataclass = partial(attrs, auto_attribs=True)
frozen = functools.partial(define, frozen=True)
pipe = converters.pipe
join = os.path.join
dumps = j.dumps
twice = attrs
twice = attrib
typed: int = attrs
mod = os
made = attrs()
attrs = attrs
__all__ = attrs
def define():
    pass
if True:
    inside = attrs
"""


def test_aliases_become_the_imports_they_amount_to():
    facts = extract("lib/__init__.py", SOURCE.encode(), "python")
    made = {(i.alias, i.module, i.name) for i in facts.imports if i.line >= 7}
    assert made == {
        ("s", "._make", "attrs"), ("attributes", "._make", "attrs"), ("ib", "._make", "attrib"),
        ("attr", "._make", "attrib"), ("dataclass", "._make", "attrs"),
        ("frozen", ".", "define"),  # the file's own function: an import of the package itself
        ("join", "os.path", "join"), ("dumps", "json", "dumps"),
    }  # not: bound twice, annotated, a module, a call's result, a name it imports, a dunder, nested,
    # an attribute of a name imported from a module (`converters.pipe`: an object's, for all it says)
