"""A folder's file watcher: files changed on disk outside the editor (git checkout, generators,
a teammate's pull) are re-indexed; open buffers, excluded paths, the environment (a `pip
install`) and files no language or resolver reads are not."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

log = logging.getLogger(__name__)


def watch_files(folder, stop: threading.Event) -> None:
    """Runs on the folder's watch thread until `stop` is set (server/folders.py `Folder`)."""
    import watchfiles
    from memory_lsp.index.discover import excluded, in_environment
    from memory_lsp.index.languages import classify

    settings = folder.config.indexing
    folder.ready.wait()
    caught_up = False
    try:
        for changes in watchfiles.watch(folder.path, stop_event=stop, debounce=300, rust_timeout=1000,
                                        yield_on_timeout=True, raise_interrupt=False):
            if not caught_up:  # watching now: what changed after the first index looked, no event reports
                caught_up = True
                try:
                    folder.reindex_stale()
                except Exception:  # the watch goes on: events still arrive
                    log.exception("looking for files changed before the watch began failed")
            if not changes:
                continue
            paths, inputs = {}, (folder.ws.resolver_inputs() if folder.ws is not None else set())  # go.mod...
            for _change, full in changes:
                rel = Path(full).relative_to(folder.path).as_posix()
                code = classify(rel) is not None or rel in inputs
                if code and rel not in folder.open_buffers and not excluded(rel, settings) \
                        and not in_environment(folder.path, rel):  # a `pip install` is not an edit
                    paths[rel] = None
            if paths:
                log.info("changed on disk: %s", ", ".join(sorted(paths)[:10]))
                folder.reindex(paths)
    except Exception:
        log.exception("the file watcher stopped")
