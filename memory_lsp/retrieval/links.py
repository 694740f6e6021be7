"""Files one edge away from others, for the neighbourhood boost and a search's `--file`s.

The whole map (every pair of files an edge links) takes ~0.5 s to make at 11,000 files and must
be made again whenever the code changes, which now (the search index follows each edit) is every
search after an edit. A few searches of a version ask DuckDB for the neighbours of their own
files instead (~30 ms at 11,000 files); a version searched more often gets the map, held as
arrays: each file's neighbours and the strength of each link (a dict of dicts was 13.4 MB at
11,282 files).
"""

from __future__ import annotations

import numpy as np

from memory_lsp.store import search as sql

MAP_AFTER = 3  # the searches of one version answered by a query before the map is made


class FileLinks:
    def __init__(self, store):
        self.store = store
        self.asked = 0
        self._map: tuple | None = None  # (paths, their ids, per file where its links start, linked ids, strengths)

    def neighbours(self, paths: list[str], limit: int = 50) -> list[str]:
        """Files one edge away from any of `paths` (either direction), strongest first, ties by path."""
        self.asked += 1
        if self._map is None and self.asked < MAP_AFTER:
            return sql.neighbours(self.store, paths, limit)
        if self._map is None:
            self._map = _made(sql.file_links(self.store))
        names, ids, ptr, other, strength = self._map
        best: dict[int, float] = {}
        for i in (ids[p] for p in paths if p in ids):
            for o, s in zip(other[ptr[i]:ptr[i + 1]].tolist(), strength[ptr[i]:ptr[i + 1]].tolist()):
                best[o] = max(best.get(o, 0.0), s)
        given = set(paths)
        found = [(-s, names[o]) for o, s in best.items() if names[o] not in given]
        return [name for _, name in sorted(found)[:limit]]


def _made(rows: list[tuple[str, str, float]]) -> tuple:
    """The map from `file_links`' rows: both directions, the strongest link of each pair."""
    # strings of their own: the rows' sit among ~100,000 tuples that die with them, whose
    # arenas they would keep (as graph/follow_unresolved.py `_fresh` says)
    names = [p.encode().decode() for p in sorted({a for a, _, _ in rows} | {b for _, b, _ in rows})]
    ids = {p: i for i, p in enumerate(names)}
    one = np.array([ids[a] for a, _, _ in rows], dtype=np.int64)
    two = np.array([ids[b] for _, b, _ in rows], dtype=np.int64)
    src, dst = np.concatenate([one, two]), np.concatenate([two, one])
    strength = np.array([s for _, _, s in rows] * 2, dtype=np.float64)
    order = np.lexsort((dst, src))
    src, dst, strength = src[order], dst[order], strength[order]
    if len(src):  # each pair once, with its strongest link
        heads = np.flatnonzero(np.r_[True, (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])])
        strength = np.maximum.reduceat(strength, heads)
        src, dst = src[heads], dst[heads]
    ptr = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=len(names)), out=ptr[1:])
    return names, ids, ptr, dst.astype(np.int32), strength
