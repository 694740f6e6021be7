"""`memory/timings`: the durations (ms) of recent requests per handler, measured inside the server
(guard.py), for benchmarks; `{"reset": true}` clears them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memory_lsp.server.guard import TIMINGS
from memory_lsp.settings import Config

if TYPE_CHECKING:
    from memory_lsp.server.server import MemoryServer

METHOD = "memory/timings"


def register(server: MemoryServer, settings: Config) -> None:
    server.feature(METHOD)(timings)


def timings(ls: MemoryServer, params) -> dict:
    out = {name: list(values) for name, values in TIMINGS.items()}
    if getattr(params, "reset", None) or (isinstance(params, dict) and params.get("reset")):
        for values in TIMINGS.values():
            values.clear()
    return out
