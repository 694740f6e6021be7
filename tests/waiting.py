"""Waiting in tests for what another thread or process does: until it holds, or a deadline."""

from __future__ import annotations

import time


def wait_until(done, seconds: float = 20) -> bool:
    """Poll `done()` until it is true or `seconds` passed; its last answer."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.02)
    return done()
