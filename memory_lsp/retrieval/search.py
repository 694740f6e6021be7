"""Hybrid search over memories and code: BM25, vectors and the graph, fused by weighted RRF.

Seed 001's pipeline: each path ranks candidates; reciprocal rank fusion weighs the paths by the
kind of query (an identifier trusts BM25, a question trusts vectors, a "what calls X" trusts
the graph); results near the top results in the graph get a neighbourhood boost; memories are
then weighed by type, source trust, confidence and citation state (drifted ones rank lower and
say so, orphaned ones are left out unless asked for). Memories get vectors before the first
search that needs them (the host's `embed_memories`); code vectors may not exist yet, and the
note says how far they are. A relevance floor (VECTOR_FLOOR, BM25_FLOOR) leaves a question
about nothing here with no results rather than filler; a path or code name inside a question
anchors the graph path on the memories citing it.
"""

from __future__ import annotations

import re
import threading
import time

import numpy as np

from memory_lsp.memory.model import Memory
from memory_lsp.retrieval.copies import SearchCopies
from memory_lsp.retrieval.embedder import BATCH, Embedder, shared_default
from memory_lsp.retrieval.idle import LetGo
from memory_lsp.store import fulltext
from memory_lsp.store import search as sql

RRF_K = 60
LET_GO_AFTER_S = 300.0  # a server's search copies are dropped after this long without a search
GROUP = 512  # items embedded and written together (about 15 s of work on 2 cores)
WEIGHTS = {  # path weights by query type (seed 001)
    "identifier": {"bm25": 0.5, "graph": 0.3, "vector": 0.2},
    "semantic": {"vector": 0.5, "bm25": 0.25, "graph": 0.25},
    "structural": {"graph": 0.6, "bm25": 0.25, "vector": 0.15},
}
TRUST = {"user_taught": 1.4, "agent_explicit": 1.2, "imported": 1.2, "git_mined": 1.0, "observer_inferred": 0.85}
TYPE_WEIGHT = {"policy": 1.15, "gotcha": 1.15, "dead_end": 1.1, "decision": 1.05, "error_pattern": 1.1}
DRIFTED = 0.6
# the relevance floor: a question whose nearest item is further than this (all-MiniLM-L6-v2 puts
# questions about nothing in the workspace at 0.09-0.31, 68 of 70 questions a memory answers at
# 0.33-0.8: bench/bench_recall_eval.py) and whose BM25 coverage is below BM25_FLOOR is about
# nothing here: no results
VECTOR_FLOOR = 0.33
# BM25's vote is scaled by the share of the query's weight (idf) its best hit contains, and
# dropped below half: then the words it matched are the query's common ones, and its
# candidates are noise that RRF would still reward wherever they meet the other paths' lists
MIN_COVERAGE = 0.5
# questions about nothing in the workspace cover 0.1-0.22 of their weight, questions a memory
# answers 0.28 and more (bench/bench_recall_eval.py)
BM25_FLOOR = 0.25
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
    def __init__(self, store, embedder: Embedder | None = None, let_go_after: float | None = LET_GO_AFTER_S):
        """`let_go_after`: seconds without a search after which the copies searches read are
        dropped (None: kept for the life of the process)."""
        self.store = store
        self._embedder = embedder
        self._embedder_error: str | None = None
        self._vectors: tuple | None = None  # (version, ids, is_memory, matrix)
        self._content: SearchCopies | None = None
        self._lock = threading.Lock()
        self._idle = LetGo(self._lock, self._let_go, let_go_after)

    # -- embeddings -----------------------------------------------------------------------------
    def embedder(self) -> Embedder | None:
        if self._embedder is None and self._embedder_error is None:
            try:
                self._embedder = shared_default()
            except (RuntimeError, OSError, ImportError) as exc:
                self._embedder_error = str(exc)
        return self._embedder

    def embed_pending(self, limit: int | None = None, batch: int = BATCH, progress=None, should_stop=None,
                      kind: str | None = None, code_chunks: int | None = None) -> dict:
        """Embed what has no vector yet, most useful first (memories, then central files), or only
        `kind` (memory, code), of the code only the `code_chunks` most useful chunks (when given);
        resumable.

        The pending list is computed once per run (it hashes the texts of the items chosen). Items are taken
        in groups of GROUP: a group is sorted by length, so a batch pads little, and its vectors
        are written together. `should_stop` is asked before every batch; what is done is kept.
        """
        embedder = self.embedder()
        if embedder is None:
            return {"embedded": 0, "reused": 0, "seconds": 0.0, "error": self._embedder_error}
        if should_stop and should_stop():  # before the pending list, which reads every item
            return {"embedded": 0, "reused": 0, "seconds": 0.0}
        started, embedded = time.perf_counter(), 0
        model = embedder.model_id
        pending = sql.pending_items(self.store, model, limit if limit is not None else 2 ** 62, kind, code_chunks)
        self.store.drop_cache()  # the listing read every chunk's text (~200 MB cached at 11,282 files)
        served = sql.reuse_vectors(self.store, model, pending)
        # memories, then the chosen chunks in table order: a group reads a stretch of the table
        todo = sorted(((item_id, rid) for item_id, _kind, _hash, rid in pending if item_id not in served),
                      key=lambda it: (it[1] is not None, it[1] or 0))
        stopped = False
        for start in range(0, len(todo), GROUP):
            group = todo[start:start + GROUP]
            rows = sorted(sql.item_texts(self.store, [i for i, _ in group], [r for _, r in group]),
                          key=lambda r: len(r[3]))
            done, vecs = 0, []
            try:
                while done < len(rows) and not (stopped := bool(should_stop and should_stop())):
                    vecs.append(embedder.encode([text for *_, text in rows[done:done + batch]], batch=batch))
                    done = min(done + batch, len(rows))
            finally:  # an interrupted group keeps the batches it finished
                if done:
                    sql.write_vectors(self.store, model, [(i, k, h, v) for (i, k, h, _), v in
                                                          zip(rows[:done], np.concatenate(vecs))])
            embedded += done
            self.store.drop_cache()  # the stretch of text it read: the groups read the whole table in turn
            if progress:
                progress(*sql.vector_counts(self.store, model))
            if stopped:
                break
        sql.drop_stale_vectors(self.store, model)  # after reuse: moved code kept its vector
        return {"embedded": embedded, "reused": len(served), "seconds": round(time.perf_counter() - started, 3)}

    def _vector_index(self, model: str, version: str):
        """(ids, is_memory, matrix) of the stored vectors, reloaded when they change (`version`)."""
        with self._lock:
            if self._vectors is None or self._vectors[0] != version:
                ids, kinds, matrix = sql.load_vectors(self.store, model)
                self._vectors = (version, ids, np.array([k == "memory" for k in kinds], dtype=bool), matrix)
            return self._vectors[1:]

    @staticmethod
    def _nearest(index: tuple, query_vec: np.ndarray, kind: str | None, limit: int) -> tuple[list[str], float]:
        """The `limit` nearest items (of `kind`) best first, and the cosine of the nearest."""
        ids, is_memory, matrix = index
        sims = query_vec @ matrix  # cosine: unit vectors, one item per column
        if kind:
            sims = np.where(is_memory == (kind == "memory"), sims, -2.0)
        n = min(limit, len(ids))
        top = np.argpartition(-sims, n - 1)[:n]  # the best n, then only those sorted
        ranked = [i for i in top[np.argsort(-sims[top], kind="stable")] if sims[i] > -2.0]
        return [ids[i] for i in ranked], float(sims[ranked[0]]) if ranked else -1.0

    def _copies(self, version: str) -> SearchCopies:
        """What searches share until the chunks or memories change (the search index's version)."""
        with self._lock:
            self._idle.used()
            if self._content is None or self._content.version != version:
                self._content = SearchCopies(version, self.store, self._content)
            return self._content

    def _let_go(self) -> None:
        """The copies dropped once no search came for a while (retrieval/idle.py): a server keeps them
        for a burst of searches, not for the rest of the day (at 10,740 files ~80 MB). A search under
        way keeps reading its own; the next starts as a new process's first (in DuckDB)."""
        self._content = self._vectors = None

    # -- search ---------------------------------------------------------------------------------
    def search(self, query: str, kind: str = "all", k: int = 10, files: list[str] = (), mode: str = "hybrid",
               include_orphaned: bool = False, memories: dict[str, Memory] | None = None) -> dict:
        kind_filter = None if kind == "all" else kind
        qtype = query_type(query)
        # every path ranks memories and code together and the kind is kept at the end: a memory
        # then ranks as it would in --kind all (deeper lists make up for the other kind's share)
        depth = max(40, k * 4) * (3 if kind_filter and mode == "hybrid" else 1)
        path_kind = None if mode == "hybrid" else kind_filter
        notes = []
        meta = self.store.meta_all()
        if fulltext.ensure_fts(self.store, meta):
            meta = self.store.meta_all()
        copies = self._copies(meta.get("fts_version", "0"))
        if memories is None:
            memories = copies.memories()
        paths: dict[str, list[str]] = {}
        coverage = 1.0
        if mode in ("hybrid", "bm25"):
            found, coverage = copies.bm25(query, path_kind, depth)
            paths["bm25"] = [r[0] for r in found]
        if mode in ("hybrid", "vector"):
            vector_ids, note, nearest = self._vector_path(query, path_kind, depth, copies,
                                                          meta.get("vectors_version", "0"))
            paths["vector"] = vector_ids
            if mode == "hybrid" and nearest < VECTOR_FLOOR and coverage < BM25_FLOOR:
                paths["vector"] = []  # neither path sees the question's topic here: no filler
            if note:
                notes.append(note)
        if mode == "hybrid":
            anchored, named_paths = _anchors(query, memories)
            paths["graph"] = self._graph_path(query, qtype, path_kind, list(files), depth, copies, anchored, named_paths)
        weights = dict(WEIGHTS[qtype]) if mode == "hybrid" else {mode: 1.0}
        if mode == "hybrid":
            # BM25 votes as strongly as its best hit matches the query (see README); beside vectors
            # it stops below MIN_COVERAGE (its hits are then noise RRF would still reward); alone it
            # takes the vectors' vote down to BM25_FLOOR, below which a question is about nothing here
            alone = not vector_ids  # no vectors at all (not yet, or no model)
            weights["bm25"] *= coverage if coverage >= (BM25_FLOOR if alone else MIN_COVERAGE) else 0.0
            if alone and coverage >= BM25_FLOOR:  # so the graph cannot outvote it
                weights["bm25"] += weights["vector"] * coverage
        scores: dict[str, float] = {}
        for name, ranked in paths.items():
            for rank, item in enumerate(ranked):
                scores[item] = scores.get(item, 0.0) + weights.get(name, 0.0) / (RRF_K + rank + 1)
        hits = []  # [score, id, path, memory or None]
        for item, score in scores.items():
            if score <= 0.0:  # a candidate only from a path that carries no weight
                continue
            m = memories.get(item)
            if m is not None:
                if m.valid_to is not None or (m.state == "orphaned" and not include_orphaned):
                    continue
                hits.append([score * _memory_weight(m), item, _memory_path(m), m])
            elif "::" in item:  # a chunk: its id starts with its path
                hits.append([score, item, item.split("::", 1)[0], None])
        hits.sort(key=lambda h: (-h[0], h[1]))
        if mode == "hybrid":
            hits = self._neighbourhood_boost(hits, copies)
        if kind_filter:
            hits = [h for h in hits if (h[3] is not None) == (kind_filter == "memory")]
        if not hits and mode == "hybrid":
            notes.append("nothing relevant here: no item passed the relevance floor (BM25 coverage "
                         f"{BM25_FLOOR}, cosine {VECTOR_FLOOR}, or a path or name in the query)")
        return {"query": query, "query_type": qtype, "mode": mode, "results": self._results(hits, k),
                "note": "; ".join(notes) or None}

    def _results(self, hits: list[list], k: int) -> list[dict]:
        """The best k hits as results; chunk rows are read for those only (a chunk gone since its
        vector was stored is skipped)."""
        out: list[dict] = []
        start = 0
        while len(out) < k and start < len(hits):
            window = hits[start:start + k + 10]
            start += len(window)
            rows = sql.chunk_rows(self.store, [h[1] for h in window if h[3] is None])
            for score, item, _path, m in window:
                if m is not None:
                    out.append(_memory_result(m, round(score, 6)))
                elif item in rows:
                    out.append(_chunk_result(item, rows[item], round(score, 6)))
        return out[:k]

    def _vector_path(self, query: str, kind: str | None, depth: int, copies: SearchCopies,
                     version: str) -> tuple[list[str], str | None, float]:
        """(nearest ids, note, cosine of the nearest)."""
        embedder = self.embedder()
        if embedder is None:
            return [], f"no vectors ({self._embedder_error}): BM25 and the graph only", -1.0
        index = self._vector_index(embedder.model_id, version)
        if not index[0]:
            return [], "no vectors yet (run `memory-lsp embed`): BM25 and the graph only", -1.0
        total = copies.item_count()
        done = min(len(index[0]), total)
        note = None if done >= total else (f"vectors cover {done} of {total} items (memories first, then the code of the "
                                            "most central files; `memory-lsp embed` does the rest now)")
        found, nearest = self._nearest(index, embedder.encode([query])[0], kind, depth)
        return found, note, nearest

    def _graph_path(self, query: str, qtype: str, kind: str | None, files: list[str], depth: int,
                    copies: SearchCopies, anchored: list[str] = (), named_paths: list[str] = ()) -> list[str]:
        """Candidates from the graph: memories citing a path or symbol the query names, the named
        symbols and what is linked to them, and the files given or named."""
        out: list[str] = list(anchored)
        if named_paths:
            out += sql.chunks_of(self.store, list(named_paths), depth)
        names = [n for n in _NAME.findall(query) if n.lower() not in _STOP and len(n) > 2]
        if qtype != "semantic" and names:
            symbols = sql.symbols_named(self.store, names + [n.rsplit(".", 1)[-1] for n in names if "." in n])
            related = [s for s, _via, _c in sql.related_symbols(self.store, symbols, depth)] if qtype == "structural" else []
            own = symbols if qtype == "identifier" else []
            by_symbol = sql.chunk_for_symbol(self.store, own + related)
            out += [by_symbol[s] for s in own + related if s in by_symbol]
            out += sql.memory_ids_about(self.store, sorted({s.split("::", 1)[0] for s in symbols}))
        if files:
            near = files + copies.neighbours(files)
            out += sql.memory_ids_about(self.store, near)
            out += sql.chunks_of(self.store, files, depth)
        seen, ranked = set(), []
        for item in out:
            is_memory = "::" not in item
            if item not in seen and (kind is None or kind == ("memory" if is_memory else "code")):
                seen.add(item)
                ranked.append(item)
        return ranked[:depth]

    def _neighbourhood_boost(self, hits: list[list], copies: SearchCopies) -> list[list]:
        """Seed 001: results 11-50 that sit next to the top 10 in the graph move up."""
        top = {h[2] for h in hits[:10] if h[2]}
        if len(hits) <= 10 or not top:
            return hits
        near = set(copies.neighbours(sorted(top))) | top
        for h in hits[10:50]:
            if h[2] in near:
                count = sum(1 for t in hits[:10] if t[2] == h[2]) or 1
                h[0] *= 1 + 0.3 * min(count, 10) / 10
        return sorted(hits, key=lambda h: (-h[0], h[1]))


_PATH = re.compile(r"(?<![\w/.])([\w.-]+(?:/[\w.-]+)+|[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|go|rs|java|rb|c|h|cc|cpp|"
                   r"cs|php|kt|swift|scala|lua|sh|md|toml|json|ya?ml))(?![\w/])")
_CODE_NAME = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z]*_[A-Za-z0-9_]+|"
                        r"[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)(?:\(\))?`?")


def _anchors(query: str, memories: dict[str, Memory]) -> tuple[list[str], list[str]]:
    """(memory ids, paths) for the paths and code names the query mentions inside a sentence
    ("before editing werkzeug/security.py", "gotchas in Flask.handle_exception"): the memories
    citing them, those citing the symbol before those citing only its file."""
    named = {p.strip(".").lstrip("./") for p in _PATH.findall(query)}
    names = {n for n in _CODE_NAME.findall(query) if n not in named}
    if not named and not names:
        return [], []
    on_symbol, on_path, paths = [], [], set()
    for m in memories.values():
        if m.valid_to is not None:
            continue
        for c in m.citations:
            path, symbol = c.now.path, c.now.symbol or ""
            if symbol and any(symbol == n or symbol.endswith("." + n) or n.endswith("." + symbol) for n in names):
                on_symbol.append(m.id)
                break
            if path and any(path == p or path.endswith("/" + p) for p in named):
                on_path.append(m.id)
                paths.add(path)
                break
    return sorted(on_symbol) + sorted(on_path), sorted(paths | {p for p in named if "/" in p})


def _memory_path(m: Memory) -> str | None:
    first = m.citations[0] if m.citations else None
    return ((first.current or first.to_event()) if first else {}).get("path")


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
