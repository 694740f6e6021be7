"""Hybrid search over memories and code: BM25, vectors and the graph, fused by weighted RRF.

Seed 001's pipeline: each path ranks candidates; reciprocal rank fusion weighs the paths by the
kind of query (an identifier trusts BM25, a question trusts vectors, a "what calls X" trusts
the graph); results near the top results in the graph get a neighbourhood boost; memories are
then weighed by type, source trust, confidence and citation state (drifted ones rank lower and
say so, orphaned ones are left out unless asked for). Vectors may not exist yet: the search
then runs on BM25 and the graph and its note says so.
"""

from __future__ import annotations

import re
import threading
import time

import numpy as np

from memory_lsp.memory.model import Memory
from memory_lsp.retrieval.embedder import Embedder
from memory_lsp.store import memories as mem_rows
from memory_lsp.store import search as sql

RRF_K = 60
WEIGHTS = {  # path weights by query type (seed 001)
    "identifier": {"bm25": 0.5, "graph": 0.3, "vector": 0.2},
    "semantic": {"vector": 0.5, "bm25": 0.25, "graph": 0.25},
    "structural": {"graph": 0.6, "bm25": 0.25, "vector": 0.15},
}
TRUST = {"user_taught": 1.4, "agent_explicit": 1.2, "imported": 1.2, "git_mined": 1.0, "observer_inferred": 0.85}
TYPE_WEIGHT = {"policy": 1.15, "gotcha": 1.15, "dead_end": 1.1, "decision": 1.05, "error_pattern": 1.1}
DRIFTED = 0.6
_STRUCTURAL = re.compile(r"\b(call(s|ers?|ed by)?|uses?|used by|users of|imports?|imported by|depends?|dependents?|"
                         r"tests? (for|of)|inherits?|subclass(es)?|what breaks|impact of|who)\b", re.I)
_IDENTIFIER = re.compile(r"[a-z][A-Z]|_[a-z]|[\w)]\.[A-Za-z]|/|\(\)|`")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_STOP = frozenset("what which who whom calls call callers caller uses use used users imports import imported depends "
                  "depend dependents tests test for of the a an in on to is are does do by how where why when "
                  "inherits inherit subclass subclasses breaks break impact from with and or".split())


def query_type(query: str) -> str:
    if _STRUCTURAL.search(query):
        return "structural"
    if _IDENTIFIER.search(query) or (len(query.split()) == 1 and len(query) > 2):
        return "identifier"
    return "semantic"


class Retriever:
    def __init__(self, store, embedder: Embedder | None = None):
        self.store = store
        self._embedder = embedder
        self._embedder_error: str | None = None
        self._vectors: tuple | None = None  # (version, ids, kinds, matrix)
        self._lock = threading.Lock()

    # -- embeddings -----------------------------------------------------------------------------
    def embedder(self) -> Embedder | None:
        if self._embedder is None and self._embedder_error is None:
            try:
                self._embedder = Embedder()
            except (RuntimeError, OSError, ImportError) as exc:
                self._embedder_error = str(exc)
        return self._embedder

    def embed_pending(self, limit: int | None = None, batch: int = 64, progress=None, should_stop=None) -> dict:
        """Embed what has no vector yet, most useful first (memories, then central files); resumable."""
        embedder = self.embedder()
        if embedder is None:
            return {"embedded": 0, "reused": 0, "seconds": 0.0, "error": self._embedder_error}
        started, embedded, reused = time.perf_counter(), 0, 0
        while limit is None or embedded + reused < limit:
            if should_stop and should_stop():
                break
            want = batch * 4 if limit is None else min(batch * 4, limit - embedded - reused)
            items = sql.pending_items(self.store, embedder.model_id, want)
            if not items:
                break
            served = sql.reuse_vectors(self.store, embedder.model_id, items)
            reused += len(served)
            todo = [it for it in items if it[0] not in served]
            for start in range(0, len(todo), batch):
                part = todo[start:start + batch]
                vecs = embedder.encode([text for *_, text in part], batch=batch)
                sql.write_vectors(self.store, embedder.model_id, [(i, k, h, v) for (i, k, h, _), v in zip(part, vecs)])
                embedded += len(part)
                if progress:
                    done, total = sql.vector_counts(self.store, embedder.model_id)
                    progress(done, total)
        sql.drop_stale_vectors(self.store, embedder.model_id)  # after reuse: moved code kept its vector
        return {"embedded": embedded, "reused": reused, "seconds": round(time.perf_counter() - started, 3)}

    def _vector_index(self, model: str):
        version = self.store.meta("vectors_version", "0")
        with self._lock:
            if self._vectors is None or self._vectors[0] != version:
                self._vectors = (version, *sql.load_vectors(self.store, model))
            return self._vectors[1:]

    def _nearest(self, query_vec: np.ndarray, model: str, kind: str | None, limit: int) -> list[tuple]:
        ids, kinds, matrix = self._vector_index(model)
        if not ids:
            return []
        sims = matrix @ query_vec
        if kind:
            sims = np.where(np.array([k == kind for k in kinds]), sims, -2.0)
        top = np.argsort(-sims)[:limit]
        return [(ids[i], kinds[i], float(sims[i])) for i in top if sims[i] > -2.0]

    # -- search ---------------------------------------------------------------------------------
    def search(self, query: str, kind: str = "all", k: int = 10, files: list[str] = (), mode: str = "hybrid",
               include_orphaned: bool = False, memories: dict[str, Memory] | None = None) -> dict:
        kind_filter = None if kind == "all" else kind
        qtype = query_type(query)
        depth = max(40, k * 4)
        notes = []
        sql.ensure_fts(self.store)
        paths: dict[str, list[str]] = {}
        if mode in ("hybrid", "bm25"):
            paths["bm25"] = [r[0] for r in sql.bm25(self.store, query, kind_filter, depth)]
        if mode in ("hybrid", "vector"):
            vector_ids, note = self._vector_path(query, kind_filter, depth)
            paths["vector"] = vector_ids
            if note:
                notes.append(note)
        if mode == "hybrid":
            paths["graph"] = self._graph_path(query, qtype, kind_filter, list(files), depth)
        weights = WEIGHTS[qtype] if mode == "hybrid" else {mode: 1.0}
        scores: dict[str, float] = {}
        for name, ranked in paths.items():
            for rank, item in enumerate(ranked):
                scores[item] = scores.get(item, 0.0) + weights.get(name, 0.0) / (RRF_K + rank + 1)
        if memories is None:
            memories = {d["id"]: Memory.from_json(d) for d in mem_rows.all_docs(self.store)}
        chunks = sql.chunk_rows(self.store, [i for i in scores if i not in memories])
        results = []
        for item, score in scores.items():
            m = memories.get(item)
            if m is not None:
                if m.valid_to is not None or (m.state == "orphaned" and not include_orphaned):
                    continue
                results.append(_memory_result(m, score * _memory_weight(m)))
            elif item in chunks:
                results.append(_chunk_result(item, chunks[item], score))
        results.sort(key=lambda r: (-r["score"], r["id"]))
        if mode == "hybrid":
            results = self._neighbourhood_boost(results)
        for r in results:
            r["score"] = round(r["score"], 6)
        return {"query": query, "query_type": qtype, "mode": mode, "results": results[:k],
                "note": "; ".join(notes) or None}

    def _vector_path(self, query: str, kind: str | None, depth: int) -> tuple[list[str], str | None]:
        embedder = self.embedder()
        if embedder is None:
            return [], f"no vectors ({self._embedder_error}): BM25 and the graph only"
        done, total = sql.vector_counts(self.store, embedder.model_id)
        if done == 0:
            return [], "no vectors yet (run `memory-lsp embed`): BM25 and the graph only"
        query_vec = embedder.encode([query])[0]
        note = None if done >= total else f"vectors cover {done} of {total} items so far"
        return [r[0] for r in self._nearest(query_vec, embedder.model_id, kind, depth)], note

    def _graph_path(self, query: str, qtype: str, kind: str | None, files: list[str], depth: int) -> list[str]:
        """Candidates from the graph: the named symbols and what is linked to them, and the files given."""
        out: list[str] = []
        names = [n for n in _NAME.findall(query) if n.lower() not in _STOP and len(n) > 2]
        if qtype != "semantic" and names:
            symbols = sql.symbols_named(self.store, names + [n.rsplit(".", 1)[-1] for n in names if "." in n])
            related = [s for s, _via, _c in sql.related_symbols(self.store, symbols, depth)] if qtype == "structural" else []
            own = symbols if qtype == "identifier" else []
            by_symbol = sql.chunk_for_symbol(self.store, own + related)
            out += [by_symbol[s] for s in own + related if s in by_symbol]
            out += sql.memory_ids_about(self.store, sorted({s.split("::", 1)[0] for s in symbols}))
        if files:
            near = files + [p for p, _ in sql.neighbour_files(self.store, files)]
            out += sql.memory_ids_about(self.store, near)
            out += sql.chunks_of(self.store, files, depth)
        seen, ranked = set(), []
        for item in out:
            is_memory = "::" not in item
            if item not in seen and (kind is None or kind == ("memory" if is_memory else "code")):
                seen.add(item)
                ranked.append(item)
        return ranked[:depth]

    def _neighbourhood_boost(self, results: list[dict]) -> list[dict]:
        """Seed 001: results 11-50 that sit next to the top 10 in the graph move up."""
        top = {r["path"] for r in results[:10] if r["path"]}
        if len(results) <= 10 or not top:
            return results
        near = {p for p, _ in sql.neighbour_files(self.store, sorted(top))} | top
        for r in results[10:50]:
            if r["path"] in near:
                count = sum(1 for t in results[:10] if t["path"] == r["path"]) or 1
                r["score"] *= 1 + 0.3 * min(count, 10) / 10
        return sorted(results, key=lambda r: (-r["score"], r["id"]))


def _memory_weight(m: Memory) -> float:
    weight = TRUST.get(m.source, 1.0) / 1.2 * TYPE_WEIGHT.get(m.type, 1.0)
    weight *= 0.5 + 0.5 * m.effective_confidence()
    if m.state == "drifted":
        weight *= DRIFTED
    if m.needs_review:
        weight *= 0.9
    return weight


def _memory_result(m: Memory, score: float) -> dict:
    first = m.citations[0] if m.citations else None
    where = (first.current or first.to_event()) if first else {}
    lines = [where["start_line"], where["end_line"]] if where.get("start_line") else None
    return {"kind": "memory", "id": m.id, "type": m.type, "text": m.text, "path": where.get("path"),
            "symbol": where.get("symbol"), "lines": lines, "score": score,
            "citations": [c.to_json() for c in m.citations], "state": m.state,
            "needs_review": m.needs_review, "source": m.source}


def _chunk_result(item: str, row: tuple, score: float) -> dict:
    path, kind, name, start, end, text = row
    return {"kind": "code", "id": item, "type": kind, "text": text[:2000], "path": path, "symbol": name,
            "lines": [start, end], "score": score, "citations": [], "state": "valid"}
