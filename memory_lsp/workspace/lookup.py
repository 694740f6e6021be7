"""IndexLookup: where cited code is now, as the index has it (the `CodeLookup` port of
memory/citations.py over store/lookup.py), falling back to the files for what is not indexed."""

from __future__ import annotations

from pathlib import Path

from memory_lsp.memory.citations import FileLookup
from memory_lsp.store import lookup as reads


class IndexLookup(FileLookup):
    """Today's code as the index has it: symbols, fingerprints and file hashes from the database."""

    def __init__(self, store, root: Path):
        super().__init__(root)
        self.cur = store.cursor()
        self._indexed = reads.indexed_paths(self.cur)
        self._on_disk: dict[str, bool] = {}

    def exists(self, path: str) -> bool:
        return path in self._indexed or super().exists(path)

    def symbols(self, path: str) -> list[tuple]:
        if path not in self._symbols:
            self._symbols[path] = reads.symbol_spans(self.cur, path)
        return self._symbols[path]

    def shape(self, path: str, start: int, end: int) -> tuple[str, list[int]] | None:
        if path not in self._on_disk:  # the index may hold an editor's unsaved buffer: then the
            indexed = reads.file_hash(self.cur, path)  # file on disk is not the code it has
            self._on_disk[path] = indexed is None or indexed == self.content_hash(path)
        return super().shape(path, start, end) if self._on_disk[path] else None

    def named(self, name: str) -> list[tuple]:
        return reads.symbols_named(self.cur, name)

    def by_fingerprint(self, fp: str) -> list[tuple]:
        return reads.symbols_with_fingerprint(self.cur, fp)

    def renamed_to(self, path: str, content_hash: str | None) -> str | None:
        if not content_hash:
            return None
        return reads.path_with_hash(self.cur, content_hash)
