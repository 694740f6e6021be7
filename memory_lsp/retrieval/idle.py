"""What a process holds for a burst of use and lets go after a quiet while: the embedder's model
(60 s), the retriever's copies of the search index (300 s). Each use calls `used()`; a daemon
thread, alive only while something is held, runs `drop` under the owner's lock once `after`
seconds passed without a use, then hands the C heap's freed pages back."""

from __future__ import annotations

import threading
import time
from typing import Callable

from memory_lsp.store.allocator import release_freed_memory


class LetGo:
    def __init__(self, lock: threading.Lock, drop: Callable[[], None], after: float | None):
        """`after`: seconds without a use (None: held for the life of the process)."""
        self.lock, self.drop, self.after = lock, drop, after
        self.last, self.watching = 0.0, False

    def used(self) -> None:
        """A use now (the owner's lock held)."""
        self.last = time.monotonic()
        if self.after is not None and not self.watching:
            self.watching = True
            threading.Thread(target=self._wait, name="let-go", daemon=True).start()

    def _wait(self) -> None:
        while True:
            with self.lock:
                idle = time.monotonic() - self.last
                if idle >= self.after:
                    self.drop()
                    self.watching = False
                    break
            time.sleep(max(0.05, self.after - idle))
        release_freed_memory()
