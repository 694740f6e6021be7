"""The workspace service: the one domain API that the CLI and the language server both call.

It owns the workspace root, its settings and its store, and turns user-level requests
(index, impact, doctor, summary) into calls on the indexer, the graph and the store. It never
imports lsprotocol and never prints.
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_lsp.errors import UserError
from memory_lsp.graph.impact import ImpactGraph
from memory_lsp.index import indexer
from memory_lsp.memory import citations as cites
from memory_lsp.memory import gitmined
from memory_lsp.memory.book import MemoryBook, select
from memory_lsp.memory.model import Memory, iso, parse_time
from memory_lsp.paths import memory_dir, relpath, workspace_root
from memory_lsp.settings import Settings
from memory_lsp.store import SCHEMA_VERSION, Store
from memory_lsp.store import graph as g
from memory_lsp.store import memories as mem_rows
from memory_lsp.store import search as search_sql


class Workspace:
    def __init__(self, root: Path, store: Store, settings: Settings):
        self.root = root
        self.store = store
        self.settings = settings
        self._impact: ImpactGraph | None = None
        self.book = MemoryBook(root)
        self._retriever = None

    @classmethod
    def open(cls, root: str | os.PathLike, db: str | None = None, settings: Settings | None = None) -> "Workspace":
        root = workspace_root(root)
        if db is None:
            db = str(memory_dir(root) / "index.duckdb")
        return cls(root, Store.open(db), settings or Settings())

    def close(self) -> None:
        self.store.close()

    # -- indexing ------------------------------------------------------------------------
    def index(self, progress=None, workers: int | None = None) -> indexer.IndexReport:
        report = indexer.run(self.store, self.root, self.settings, progress=progress, workers=workers)
        self._impact = None
        search_sql.mark_dirty(self.store)
        self.sync_memories(code_changed=True)
        return report

    def reindex(self, paths: dict[str, bytes | None]) -> indexer.IndexReport:
        """Re-index some files (content from an editor buffer, or None to read the disk)."""
        only = {self.relpath(p): data for p, data in paths.items()}
        report = indexer.run(self.store, self.root, self.settings, only=only)
        self._impact = None
        search_sql.mark_dirty(self.store)
        self.sync_memories(code_changed=True)
        return report

    def relpath(self, path: str | os.PathLike) -> str:
        return relpath(self.root, path)

    # -- memories ----------------------------------------------------------------------------
    def sync_memories(self, code_changed: bool = False) -> None:
        """Rebuild the memory projection if the log or the code changed since the last time.

        Every citation is re-resolved against the index; one whose code moved to another file or
        name gets a `citation.reanchored` event, so the move survives in the shared log.
        """
        if not code_changed and self.store.meta("memory_log") == self.book.log.signature():
            return
        base = gitmined.couplings(mem_rows.strong_co_changes(
            self.store, gitmined.MIN_SHARED_COMMITS, gitmined.MIN_CONFIDENCE))
        lookup = cites.IndexLookup(self.store, self.root)
        for _attempt in range(2):  # a second pass applies the re-anchor events of the first
            signature = self.book.log.signature()
            memories = list(self.book.load(base=base).memories.values())
            moved = []
            for m in memories:
                for i, c in enumerate(m.citations):
                    cites.resolve(c, lookup)
                    if m.valid_to is None and c.state == "valid" and cites.moved(c):
                        moved.append((m, i, cites.reanchored(c, lookup)))
            for m, i, citation in moved:
                self.book.record_reanchor(m, i, citation)
            if not moved:
                break
        mem_rows.replace_all(self.store, memories)
        self.store.set_meta("memory_log", signature)
        search_sql.mark_dirty(self.store)

    def memories(self, **filters) -> list[Memory]:
        """Memories from the projection (kept in step with the log), filtered as `select` does."""
        if filters.get("at"):  # the past: replay the log up to then (citation states are today's)
            loaded = self.book.load(until=iso(parse_time(filters["at"])))
            memories = list(loaded.memories.values())
            lookup = cites.IndexLookup(self.store, self.root)
            for m in memories:
                for c in m.citations:
                    cites.resolve(c, lookup)
        else:
            self.sync_memories()
            memories = [Memory.from_json(d) for d in mem_rows.all_docs(self.store)]
        if filters.get("file"):
            filters["file"] = self.relpath(filters["file"])
        return select(memories, **filters)

    # -- retrieval ---------------------------------------------------------------------------
    def retriever(self):
        if self._retriever is None:
            from memory_lsp.retrieval.search import Retriever  # numpy and the model load on first use

            self._retriever = Retriever(self.store)
        return self._retriever

    def embed_pending(self, limit: int | None = None, progress=None, should_stop=None) -> dict:
        self.sync_memories()
        return self.retriever().embed_pending(limit=limit, progress=progress, should_stop=should_stop)

    def search(self, query: str, kind: str = "all", k: int = 10, files: list[str] = (), mode: str = "hybrid",
               include_orphaned: bool = False) -> dict:
        if not query.strip():
            raise UserError("an empty query: say what to look for")
        if kind not in ("all", "memory", "code"):
            raise UserError(f"unknown kind {kind!r}; use memory, code or all")
        if mode not in ("hybrid", "bm25", "vector"):
            raise UserError(f"unknown mode {mode!r}; use hybrid, bm25 or vector")
        if k < 1:
            raise UserError(f"k must be at least 1, got {k}")
        self.sync_memories()
        return self.retriever().search(query, kind=kind, k=k, files=[self.relpath(f) for f in files], mode=mode,
                                       include_orphaned=include_orphaned)

    # -- impact ----------------------------------------------------------------------------
    def impact_graph(self) -> ImpactGraph:
        if self._impact is None:
            self._impact = ImpactGraph.load(self.store)
        return self._impact

    def impact(self, target: str, depth: int = 3) -> dict:
        if depth < 1:
            raise UserError(f"depth must be at least 1, got {depth}")
        cur = self.store.cursor()
        path_part, _, symbol = target.partition("::")
        path = self.relpath(path_part)
        if g.file_row(cur, path) is None:
            raise UserError(f"not an indexed file: {path_part} (run `memory-lsp index` first?)")
        node = path
        if symbol:
            node = f"{path}::{symbol}"
            if g.symbol_by_id(cur, node) is None:
                known = ", ".join(s[2] for s in g.symbols_of(cur, path)[:8])
                raise UserError(f"no symbol {symbol} in {path} (defined there: {known or 'none'})")
        deps, tests = self.impact_graph().walk(node, path, depth)
        if symbol:
            names, targets = [symbol.rsplit(".", 1)[-1]], [node]
        else:
            own = g.symbols_of(cur, path)
            names, targets = sorted({s[1] for s in own}), [s[0] for s in own]
        return {
            "target": node,
            "depth": depth,
            "dependents": [{"path": d.path, "symbol": d.symbol, "depth": d.depth, "via": d.via,
                            "edge_kinds": d.edge_kinds, "score": d.score, "confidence": d.confidence,
                            "lines": d.lines}
                           for d in deps],
            "tests": tests,
            # call sites with the same names that no edge ties to the target: they may hide more
            "unresolved": max(0, g.call_sites_named(cur, names) - self.impact_graph().resolved_call_sites(targets)),
        }

    # -- reports ---------------------------------------------------------------------------
    def summary(self, top: int = 10) -> dict:
        cur = self.store.cursor()
        langs = cur.execute("""
            SELECT f.lang, count(DISTINCT f.path), coalesce(sum(s.n), 0)
            FROM files f LEFT JOIN (SELECT path, count(*) AS n FROM symbols GROUP BY path) s ON s.path = f.path
            GROUP BY f.lang ORDER BY 2 DESC""").fetchall()
        edges = cur.execute("SELECT kind, count(*) FROM edges GROUP BY kind ORDER BY 2 DESC").fetchall()
        central = cur.execute("SELECT path, reach, score FROM files ORDER BY reach DESC, score DESC, path LIMIT ?",
                              [top]).fetchall()
        return {
            "languages": [{"lang": lang, "files": n, "symbols": int(s)} for lang, n, s in langs],
            "edges": {k: n for k, n in edges},
            "central": [{"path": p, "dependents": r, "score": s} for p, r, s in central],
        }

    def doctor(self) -> dict:
        cur = self.store.cursor()
        counts = {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("files", "symbols", "refs", "imports", "edges", "chunks", "mentions", "skipped")}
        skipped = cur.execute("SELECT reason, count(*) FROM skipped GROUP BY reason ORDER BY 2 DESC").fetchall()
        notes = cur.execute("""SELECT note, count(*) FROM (SELECT unnest(string_split(notes, ',')) AS note
                               FROM files WHERE notes <> '') GROUP BY note ORDER BY 2 DESC""").fetchall()
        unresolved_calls = cur.execute("""
            SELECT count(*) FROM refs r WHERE r.kind = 'call' AND NOT EXISTS (
                SELECT 1 FROM edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path AND e.line = r.line
                AND e.name = r.name)""").fetchone()[0]
        return {
            "workspace": str(self.root),
            "database": self.store.path,
            "schema_version": int(self.store.meta("schema_version") or 0),
            "expected_schema_version": SCHEMA_VERSION,
            "extensions": self.store.extensions,
            "healthy": self.store.health_check(),
            "recovered": self.store.recovered,
            "counts": counts,
            "skipped": {r: n for r, n in skipped},
            "partially_indexed": {n: c for n, c in notes},
            "unresolved_imports": g.unresolved_imports(cur),
            "unresolved_calls": unresolved_calls,
            "memory_log": self.book.health(),
        }
