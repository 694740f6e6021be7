"""Freed memory handed back to the system: two allocators in this process keep what was freed.

- glibc's malloc (Python's objects, numpy's arrays) keeps freed pages in its heap until trimmed
  (`release_freed_memory`: after an index run's writes the process stayed ~100 MB larger than
  what it still used).
- jemalloc, built into DuckDB's Linux wheels (its functions prefixed `duckdb_je_`), hands a freed
  page back a second after the free by default (its dirty and muzzy decay). Call resolution's
  statements each build and free hash tables of tens of MB well within a second, so the freed
  ones of the last statements added up: the stdlib's index peaked at 420-510 MB where DuckDB's own
  accounting said 200 MB (bench/BENCHMARKS.md bo). A whole run's resolution purges after each
  statement (`Purging`), and a store purges whenever it sets its limit again (`flush_memory`: after
  a graph load's reads, after a run); a decay of 0 everywhere cost the stdlib's index ~4 s of CPU.
A long-lived process also gives glibc's large blocks pages of their own and has its threads share
a few heaps (`long_lived`). All are no-ops where the allocator is another (macOS, Windows, musl, a
DuckDB without jemalloc).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib

# the arena index jemalloc reads as "every arena" in `arena.<i>.purge`
_ARENAS_ALL = 4096


def release_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's malloc_trim)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


MAPPED_FROM = 256 << 10  # bytes: a block this large or larger gets pages of its own (`map_large_blocks`)
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def map_large_blocks() -> bool:
    """In a long-lived process, every block of MAPPED_FROM bytes or more (numpy's arrays) gets pages
    of its own, returned when it is freed. glibc otherwise raises that size to the largest block
    freed so far (up to 32 MB), and later arrays below it come from the heap, where the Python
    objects between them keep the freed pages: the warm server at 11,282 files peaked at 306-316 MB,
    298 MB with this, and stayed 15-20 MB smaller (bench/BENCHMARKS.md dh). False where malloc is
    not glibc's."""
    mallopt = _mallopt()
    return mallopt is not None and mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM) == 1


ARENAS = 2  # glibc's heaps (arenas) the threads of a long-lived process share (`share_arenas`)
_M_ARENA_MAX = -8  # glibc's mallopt parameter


def share_arenas() -> bool:
    """In a long-lived process, the threads (readers, the graph's, the writer's) share ARENAS heaps
    instead of up to eight per core: a page one thread freed serves another's next allocation. The
    warm server at 11,282 files idled 2-5 MB lower; its peak, elsewhere, within the noise (bench/BENCHMARKS.md di).
    Threads that already have a heap keep it. False where malloc is not glibc's."""
    mallopt = _mallopt()
    return mallopt is not None and mallopt(_M_ARENA_MAX, ARENAS) == 1


def long_lived() -> None:
    """What a long-lived process (a server, the owner: a store with a memory limit) sets: both of the above."""
    map_large_blocks()
    share_arenas()


def purge() -> bool:
    """Make DuckDB's jemalloc return the pages freed so far in all its arenas. False where DuckDB
    has no jemalloc."""
    mallctl = _mallctl()
    return mallctl is not None and mallctl(f"arena.{_ARENAS_ALL}.purge".encode(), None, None, None, 0) == 0


class Purging:
    """A cursor whose every statement hands back, once it ends, what DuckDB freed in it (for a
    whole run's call resolution: each statement then starts from what is still in use)."""

    def __init__(self, cur):
        self._cur = cur

    def execute(self, *args, **kwargs):
        try:
            return self._cur.execute(*args, **kwargs)
        finally:
            purge()

    def __getattr__(self, name):
        return getattr(self._cur, name)


@functools.lru_cache(maxsize=1)
def _mallctl():
    """jemalloc's control function in DuckDB's compiled module, or None."""
    for module in ("_duckdb", "duckdb.duckdb"):  # its name in DuckDB 1.4 and before
        try:
            path = importlib.import_module(module).__file__
            fn = ctypes.CDLL(path).duckdb_je_mallctl
        except (ImportError, OSError, AttributeError, TypeError):
            continue
        fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p,
                       ctypes.c_size_t]
        fn.restype = ctypes.c_int
        return fn
    return None


@functools.lru_cache(maxsize=1)
def _mallopt():
    try:
        fn = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc
        return None
    fn.argtypes, fn.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return fn


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to trim
        return None
