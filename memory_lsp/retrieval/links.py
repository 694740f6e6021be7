"""Files one edge away from others, for the neighbourhood boost and a search's `--file`s.

The whole map (every pair of files an edge links) takes ~0.5 s to make at 11,000 files and must
be made again whenever the code changes, which now (the search index follows each edit) is every
search after an edit. A few searches of a version ask DuckDB for the neighbours of their own
files instead (~30 ms at 11,000 files); a version searched more often gets the map.
"""

from __future__ import annotations

from memory_lsp.store import search as sql

MAP_AFTER = 3  # the searches of one version answered by a query before the map is made


class FileLinks:
    def __init__(self, store):
        self.store = store
        self.asked = 0
        self._map: dict[str, dict[str, float]] | None = None

    def neighbours(self, paths: list[str], limit: int = 50) -> list[str]:
        """Files one edge away from any of `paths` (either direction), strongest first, ties by path."""
        self.asked += 1
        if self._map is None and self.asked < MAP_AFTER:
            return sql.neighbours(self.store, paths, limit)
        if self._map is None:
            links: dict[str, dict[str, float]] = {}
            for a, b, strength in sql.file_links(self.store):
                for x, y in ((a, b), (b, a)):
                    mine = links.setdefault(x, {})
                    mine[y] = max(mine.get(y, 0.0), strength)
            self._map = links
        best: dict[str, float] = {}
        for p in paths:
            for other, strength in self._map.get(p, {}).items():
                best[other] = max(best.get(other, 0.0), strength)
        given = set(paths)
        return sorted((o for o in best if o not in given), key=lambda o: (-best[o], o))[:limit]
