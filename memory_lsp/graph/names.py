"""The names of a graph's nodes (and of called names) and their ids, held compact: shared by a
graph and the graphs that follow it (graph/impact.py, graph/follow.py)."""

from __future__ import annotations

import array
import functools

import numpy as np

from memory_lsp.index import languages

FOUND_KEPT = 4_096  # name lookups remembered by `Names` before it starts over (a lens asks tens)


class Names:
    """Names and their ids, shared by a graph and the graphs that follow it (they only grow).
    The names read by a load are one UTF-8 buffer with the end of each, in byte order (a Python
    string and a dict entry per name: about 3x the memory), and a sorted array of their hashes
    to find one (bisection over the names costs ~10 us a lookup, and a lens asks several);
    names added later (a graph that follows an edit: a few) are kept beside, in a dict."""

    def __init__(self, joined: str | bytes, lengths: np.ndarray):
        self.data = joined if isinstance(joined, bytes) else joined.encode("utf-8")
        self.ends = array.array("q", np.cumsum(lengths, dtype=np.int64).tobytes())  # fast to index
        self.loaded = len(self.ends)
        data, ends = self.data, self.ends
        hashes = np.fromiter((hash(data[ends[i - 1] if i else 0:ends[i]]) for i in range(self.loaded)),
                             dtype=np.int64, count=self.loaded)
        self.by_hash = np.argsort(hashes, kind="stable").astype(np.int32)
        self.hashes = hashes[self.by_hash]
        self.added: list[str] = []
        self.added_ids: dict[str, int] = {}
        self._found: dict[str, int] = {}  # lookups of the loaded names already answered (lenses ask again)
        self.path_of: np.ndarray | None = None  # each name's file, as the last graph built worked out
        self._families = np.zeros(0, dtype=np.int16)  # `families`' answers so far (UNKNOWN: not asked)

    def __len__(self) -> int:
        return self.loaded + len(self.added)

    def _bytes(self, i: int) -> bytes:
        return self.data[self.ends[i - 1] if i else 0:self.ends[i]]

    def __getitem__(self, i: int) -> str:
        if i >= self.loaded:
            return self.added[i - self.loaded]
        return self.data[self.ends[i - 1] if i else 0:self.ends[i]].decode("utf-8")

    def get(self, name: str, default=None):
        i = self.added_ids.get(name)
        if i is None:
            i = self._found.get(name)
        if i is None:
            key = name.encode("utf-8", "surrogatepass")
            h = hash(key)
            at, i = int(self.hashes.searchsorted(h)), -1
            while at < self.loaded and self.hashes[at] == h:
                if self._bytes(int(self.by_hash[at])) == key:
                    i = int(self.by_hash[at])
                    break
                at += 1
            if len(self._found) >= FOUND_KEPT:
                self._found.clear()
            self._found[name] = i
        return default if i < 0 else i

    def ids(self, values: list[str]) -> np.ndarray:
        """`get(v, -1)` of each value: each distinct value once, their hashes searched at once (a
        column of test selection's 178,000 untyped calls at 11,282 files, one `get` at a time:
        ~0.5 s, and lookups too many to remember)."""
        distinct = list(dict.fromkeys(values))
        keys = [v.encode("utf-8", "surrogatepass") for v in distinct]
        found = np.full(len(keys), -1, dtype=np.int64)
        if self.loaded and keys:
            wanted = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
            at = np.minimum(np.searchsorted(self.hashes, wanted), self.loaded - 1)
            hit = self.hashes[at] == wanted
            data, ends = self.data, self.ends
            for k, i in zip(np.flatnonzero(hit).tolist(), self.by_hash[at[hit]].tolist()):
                # the first name of that hash; another one with the same hash: the slow way
                found[k] = i if data[ends[i - 1] if i else 0:ends[i]] == keys[k] else self.get(distinct[k], -1)
        if self.added:
            added = self.added_ids
            for k in np.flatnonzero(found < 0).tolist():
                found[k] = added.get(distinct[k], -1)
        if len(distinct) == len(values):
            return found
        index = dict(zip(distinct, found.tolist()))
        return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))

    def intern(self, values) -> np.ndarray:
        """Ids of the names (new names get new ids, in the order first seen)."""
        values = list(values)
        out = self.ids(values).astype(np.int32)
        for k in np.flatnonzero(out < 0).tolist():
            v = values[k]
            i = self.added_ids.get(v)
            if i is None:
                i = self.added_ids[v] = len(self)
                self.added.append(v)
            out[k] = i
        return out

    def families(self, ids: np.ndarray) -> np.ndarray:
        """The language family of each of `ids` (names of files) as its index in FAMILIES (-1: no
        language), by the file's extension (index/languages.py: a language's resolver). A name's
        never changes: each is worked out once, for this graph and those that follow it."""
        known = self._families
        if len(known) < len(self):
            known = self._families = np.concatenate([known, np.full(len(self) - len(known), UNKNOWN, dtype=np.int16)])
        ids = np.asarray(ids, dtype=np.int64)
        for i in np.unique(ids[known[ids] == UNKNOWN]).tolist():
            known[i] = family_of(self[i])
        return known[ids]


FAMILIES = tuple(sorted(set(languages.families().values())))
UNKNOWN = -2


@functools.lru_cache(maxsize=4096)  # impact's `unresolved` asks it per dependent (`functools.wraps`: 4,084 in 746 files)
def family_of(path: str) -> int:
    """The language family of a file as its index in FAMILIES (-1: no language)."""
    lang = languages.language_for(path)
    return FAMILIES.index(lang.resolver) if lang is not None else -1
