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
from memory_lsp.settings import Settings
from memory_lsp.store import SCHEMA_VERSION, Store
from memory_lsp.store import graph as g

MEMORY_DIR = ".memory"
MEMORY_GITIGNORE = "# the index is a cache rebuilt from the workspace: never commit it\nindex.duckdb*\n*.broken-*\n"


class Workspace:
    def __init__(self, root: Path, store: Store, settings: Settings):
        self.root = root
        self.store = store
        self.settings = settings
        self._impact: ImpactGraph | None = None

    @classmethod
    def open(cls, root: str | os.PathLike, db: str | None = None, settings: Settings | None = None) -> "Workspace":
        root = Path(root).expanduser()
        if not root.is_dir():
            raise UserError(f"not a workspace folder: {root}")
        root = root.resolve()
        if db is None:
            memory = root / MEMORY_DIR
            memory.mkdir(exist_ok=True)
            ignore = memory / ".gitignore"
            if not ignore.exists():
                ignore.write_text(MEMORY_GITIGNORE, encoding="utf-8")
            db = str(memory / "index.duckdb")
        return cls(root, Store.open(db), settings or Settings())

    def close(self) -> None:
        self.store.close()

    # -- indexing ------------------------------------------------------------------------
    def index(self, progress=None, workers: int | None = None) -> indexer.IndexReport:
        report = indexer.run(self.store, self.root, self.settings, progress=progress, workers=workers)
        self._impact = None
        return report

    def reindex(self, paths: dict[str, bytes | None]) -> indexer.IndexReport:
        """Re-index some files (content from an editor buffer, or None to read the disk)."""
        only = {self.relpath(p): data for p, data in paths.items()}
        report = indexer.run(self.store, self.root, self.settings, only=only)
        self._impact = None
        return report

    def relpath(self, path: str | os.PathLike) -> str:
        """A workspace-relative posix path for a user-given path; outside the workspace is an error."""
        p = Path(path)
        full = Path(os.path.normpath(p if p.is_absolute() else self.root / p))
        try:
            rel = Path(os.path.normpath(full)).relative_to(self.root)
        except ValueError:
            raise UserError(f"{path} is outside the workspace {self.root}") from None
        return rel.as_posix()

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
        }
