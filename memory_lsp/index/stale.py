"""Which files differ from the index: new, changed (size or mtime) or gone. The file watcher asks
once it is watching (server/watch.py), for what changed on disk between the first index's look
at the folder and the watch's start, which no event would report."""

from __future__ import annotations

from pathlib import Path

from memory_lsp.index.discover import discover
from memory_lsp.settings import Settings
from memory_lsp.store import code


def stale_files(cur, root: Path, settings: Settings) -> list[str]:
    """The paths a full run would parse or delete, without parsing them (an index run's test:
    index/indexer.py `run`)."""
    known = code.known_files(cur)
    candidates, _skipped = discover(root, settings)
    present = {c.path for c in candidates}
    changed = [c.path for c in candidates
               if (old := known.get(c.path)) is None or (old.size, old.mtime) != (c.size, c.mtime)]
    return changed + sorted(p for p in known if p not in present)
