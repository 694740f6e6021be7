"""Which code made an index's facts: a digest of the sources that decide them.

An index keeps its rows across upgrades of memory-lsp: an unchanged file is not parsed again.
Rows written by older extraction or resolution rules would then stay beside new ones, and an
incremental graph would differ from a fresh full index until every file was edited. A whole
index run that finds another digest than its own starts over (index/indexer.py).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import memory_lsp
from memory_lsp.index.languages import grammars_dir

# the packages whose code decides the rows and edges an index holds (a change to a reader costs
# nothing but a re-index after an upgrade)
_FACT_PACKAGES = ("index", "graph", "store")


@functools.cache
def facts_version() -> str:
    """memory-lsp's version and a digest of its fact-making sources and grammars."""
    package = Path(memory_lsp.__file__).parent
    h = hashlib.blake2b(memory_lsp.__version__.encode(), digest_size=12)
    sources = [p for name in _FACT_PACKAGES for p in (package / name).rglob("*") if p.suffix in (".py", ".sql")]
    grammars = grammars_dir()
    for root, files in ((package, sources), (grammars, [p for p in grammars.rglob("*") if p.is_file()])):
        for path in sorted(files):
            if "__pycache__" not in path.parts:
                h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return memory_lsp.__version__ + "+" + h.hexdigest()


def made_by_other_rules(store) -> bool:
    """Whether the index's rows (a store/db.py Store's) were made by another version of the rules than this
    code's: a whole run over them starts over (an upgrade of memory-lsp)."""
    return store.meta("facts_version") != facts_version()
