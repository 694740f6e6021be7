"""A process that ends when its parent does: the index child (workspace/apart.py) when its server
dies, and the parse workers when their indexing process dies. Without it a killed server leaves a
child holding the DuckDB file (the next server cannot open it until the child ends), and a killed
indexing process leaves workers waiting forever on a queue whose pipe they hold themselves.
Linux only (prctl's PR_SET_PDEATHSIG); elsewhere nothing happens."""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """SIGTERM this process when the thread that started it ends; `parent`: the pid the caller
    had, so that a parent gone before this call is noticed too."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    except (OSError, AttributeError):  # no prctl: not Linux
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)
