"""BM25 over a copy of DuckDB's fts index held in numpy arrays.

DuckDB's `match_bm25` scores every document of the table on every query: about 90 ms over
100,000 items, too slow for a 50 ms search. The same postings, grouped by term, answer a query
by touching only the documents that contain its terms (a few milliseconds). The scores are
DuckDB's own (its formula, tokenizer and stemmer, k = 1.2, b = 0.75), so either path ranks alike.
"""

from __future__ import annotations

import numpy as np

K1, B = 1.2, 0.75


class Bm25Index:
    def __init__(self, raw: dict):
        """raw: `store.search.fts_postings` (postings sorted by term id)."""
        post, docs = raw["postings"], raw["docs"]
        num_docs, avgdl = raw["stats"]
        size = int(docs["docid"].max()) + 1 if len(docs["docid"]) else 0
        self.names = np.empty(size, dtype=object)
        self.names[docs["docid"]] = docs["name"]
        self.is_memory = np.zeros(size, dtype=bool)
        self.is_memory[docs["docid"]] = docs["kind"] == "memory"
        length = np.zeros(size)
        length[docs["docid"]] = docs["len"]
        self.terms = {term: termid for term, termid, _df in raw["dict"]}
        df = np.zeros(max(self.terms.values(), default=-1) + 1)
        for _term, termid, n in raw["dict"]:
            df[termid] = n
        self.idf = np.log10((num_docs - df + 0.5) / (df + 0.5) + 1)  # DuckDB's log() is base 10
        self.unknown_idf = float(np.log10((num_docs + 0.5) / 0.5 + 1))  # a word no document holds
        self.stopwords = raw.get("stopwords", set())
        termids = post["termid"]
        self.starts = np.searchsorted(termids, np.arange(len(df) + 1))
        self.docids = post["docid"].astype(np.int32)
        # the part of a term's score that does not depend on the query, per posting
        tf = post["tf"].astype(np.float64)
        norm = K1 * (1 - B + B * length[self.docids] / (avgdl or 1))
        self.weights = tf * (K1 + 1) / (tf + norm)

    def search(self, terms: list[str], kind: str | None, limit: int) -> tuple[list[tuple], float]:
        """-> ((id, kind, score) best first, ties by id, as `store.search.bm25` returns them;
        the coverage of the best: the share of the query's idf, summed over its indexed terms,
        that this document contains. 1 when it has every term, low when it has the common ones;
        a word nothing holds counts as the rarest, so a question about what is not here scores low)."""
        ids = sorted({self.terms[t] for t in terms if t in self.terms})
        unknown = len({t for t in terms if t not in self.terms and t not in self.stopwords}) * self.unknown_idf
        if not ids:
            return [], 0.0
        docs = np.concatenate([self.docids[self.starts[t]:self.starts[t + 1]] for t in ids])
        gains = np.concatenate([self.idf[t] * self.weights[self.starts[t]:self.starts[t + 1]] for t in ids])
        scores = np.bincount(docs, weights=gains, minlength=len(self.names))
        hits = np.flatnonzero(scores)  # every idf is positive: a document scores iff it has a term
        if kind is not None:
            hits = hits[self.is_memory[hits] == (kind == "memory")]
        if len(hits) > limit:  # everything that scores at least the limit-th best, then sort
            floor = np.partition(scores[hits], len(hits) - limit)[len(hits) - limit]
            hits = hits[scores[hits] >= floor]
        ranked = sorted(hits.tolist(), key=lambda d: (-scores[d], self.names[d]))[:limit]
        if not ranked:
            return [], 0.0
        best = ranked[0]
        held = [t for t in ids if best in self.docids[self.starts[t]:self.starts[t + 1]]]
        coverage = float(self.idf[held].sum() / (self.idf[ids].sum() + unknown))
        found = [(self.names[d], "memory" if self.is_memory[d] else "code", float(scores[d])) for d in ranked]
        return found, coverage
