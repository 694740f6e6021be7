"""One answer per request, whatever happens (`guarded`), and each handler's recent durations
(`TIMINGS`, served by `memory/timings`).

A user error becomes InvalidParams with its one line; a read that met its index closed under it
(errors.IndexClosed) ContentModified, which editors do not show as an error; a bug becomes InternalError without
the traceback, which goes to the log.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import deque

from pygls.exceptions import JsonRpcContentModified, JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from memory_lsp.errors import IndexClosed, UserError

log = logging.getLogger("memory_lsp.server")

TIMINGS: dict[str, deque] = {}  # handler name -> the last durations in ms, measured inside the server


def guarded(fn):
    """Wrap an async handler: errors become exactly one LSP error answer; its time is recorded."""
    timings = TIMINGS.setdefault(fn.__name__, deque(maxlen=10_000))

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return await fn(*args, **kwargs)
        except (JsonRpcException, asyncio.CancelledError):
            raise
        except UserError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        except IndexClosed as exc:  # the snapshot it read is gone: the next request reads the new one
            raise JsonRpcContentModified(str(exc)) from None
        except Exception as exc:
            log.exception("%s failed", fn.__name__)
            raise JsonRpcInternalError(f"internal error in {fn.__name__}: {type(exc).__name__} "
                                       "(details in the server log)") from None
        finally:
            timings.append((time.perf_counter() - started) * 1000)
    return wrapper
