"""What extraction finds in one file: plain records, cheap to pickle from worker processes.

`FileFacts` travels from extract.py (in a worker) to the indexer, which writes its records as
rows (store/code.py) and hands the imports to the resolvers. Lines are 1-based and inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Symbol(NamedTuple):
    qualname: str  # Outer.inner, unique in the file
    name: str
    kind: str  # function, method, class, ... (the query's @definition.<kind>)
    start_line: int
    end_line: int
    parent: str | None  # the enclosing definition's qualname
    fingerprint: str  # hash of the body without white space (survives reformatting)


class Ref(NamedTuple):
    kind: str  # "call", "inherit", "raised" (beside the call a raise statement raises), "read" (`pkg.__version__`:
    # store/module_getattr.py), "attr" (`x.prop`: index/reads.py) or a typing row (store/calls.py)
    src: str | None  # qualname of the enclosing definition (the child class for "inherit")
    src_class: str | None  # qualname of the enclosing class
    name: str  # the called or inherited name
    receiver: str | None  # `obj` of obj.f(), "?" when too long to be a name
    line: int
    rtype: str | None = None  # what the receiver is (index/receivers.py), None when unknown


class Import(NamedTuple):
    line: int
    module: str  # as written (quotes kept)
    name: str | None
    alias: str | None


class Chunk(NamedTuple):
    """A piece of text searched as one item: a function whole, a class up to its first member."""

    qualname: str
    kind: str
    start_line: int
    end_line: int
    text: str


class Mention(NamedTuple):
    """A token in documentation that may name a workspace file or symbol."""

    heading: str
    line: int
    token: str


@dataclass
class FileFacts:
    path: str
    lang: str
    hash: str
    size: int
    loc: int
    is_test: bool = False
    notes: list[str] = field(default_factory=list)  # "syntax_errors", "invalid_utf8"
    symbols: list[Symbol] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    side_effects: list[str] = field(default_factory=list)
    mutations: int = 0
    chunks: list[Chunk] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)  # documentation files only
