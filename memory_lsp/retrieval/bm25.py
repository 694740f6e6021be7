"""BM25 over a copy of the index's postings (store/fulltext.py) held in numpy arrays.

Scoring every document in SQL costs tens of milliseconds over 100,000 items; the postings
grouped by term answer a query by touching only the documents that hold its terms (a few
milliseconds). The scores are the SQL path's own (fts's formula, k = 1.2, b = 0.75), so either
path ranks alike.

After an edit the copy is not loaded again (seconds at 10,000 files): `refreshed` reads only
the documents numbered since (document ids only grow) and the ids still there, and keeps the
postings it has; a removed document stays in the arrays, marked dead, until the share of such
leftovers makes a whole load worth it.
"""

from __future__ import annotations

import array

import numpy as np

from memory_lsp.store import fulltext

K1, B = fulltext.K1, fulltext.B
RELOAD_SHARE = 0.25  # postings added or dead beyond this share of the loaded ones: load it all again


class Bm25Index:
    def __init__(self, docs: dict, postings: dict, loaded_to: int):
        """docs, postings: `fulltext.documents` (by docid; by termid, then docid)."""
        self.loaded_to = loaded_to  # the documents numbered below this are in the arrays
        self.docids = np.asarray(docs["docid"], dtype=np.int64)
        self.names = Ids(docs["id"])
        self.is_memory = np.asarray(docs["memory"], dtype=bool)
        self.length = np.asarray(docs["len"], dtype=np.float64)
        self.alive = np.ones(len(self.docids), dtype=bool)
        terms = np.asarray(postings["termid"])
        self.starts = np.searchsorted(terms, np.arange((terms.max() + 2) if len(terms) else 1))
        self.docs = _positions(self.docids, postings["docid"])
        self.tf = _counts(postings["tf"])
        # postings of documents numbered after the load, sorted by term
        self.extra_terms = np.zeros(0, dtype=np.int64)
        self.extra_docs = np.zeros(0, dtype=np.int32)
        self.extra_tf = np.zeros(0, dtype=np.uint16)
        self._stats()

    @classmethod
    def load(cls, store) -> "Bm25Index":
        with fulltext.reading(store) as cur:
            end = fulltext.next_docid(cur)
            docs, postings = fulltext.documents(cur, 0, end)
        # DuckDB's allocator hands back the sort of every posting (it kept ~135 MB at 11,282 files)
        store.flush_memory()
        return cls(docs, postings, end)

    def refreshed(self, store) -> "Bm25Index":
        """This copy brought up to the index as it is now (a new object: searches under way keep
        reading this one)."""
        with fulltext.reading(store) as cur:
            end = fulltext.next_docid(cur)
            kept = fulltext.docids_before(cur, self.loaded_to)
            docs, postings = fulltext.documents(cur, self.loaded_to, end)
        extra = len(self.extra_terms) + len(postings["termid"])
        dead = len(self.docids) - len(kept)
        if extra + dead * 20 > RELOAD_SHARE * len(self.docs):  # ~20 postings a document
            return Bm25Index.load(store)
        new = object.__new__(Bm25Index)
        new.__dict__.update(self.__dict__)
        new.loaded_to = end
        new.docids = np.concatenate([self.docids, np.asarray(docs["docid"], dtype=np.int64)])
        new.names = self.names.extended(docs["id"])
        new.is_memory = np.concatenate([self.is_memory, np.asarray(docs["memory"], dtype=bool)])
        new.length = np.concatenate([self.length, np.asarray(docs["len"], dtype=np.float64)])
        new.alive = np.zeros(len(new.docids), dtype=bool)
        new.alive[np.searchsorted(self.docids, kept)] = True
        new.alive[len(self.docids):] = True
        terms = np.concatenate([self.extra_terms, np.asarray(postings["termid"], dtype=np.int64)])
        order = np.argsort(terms, kind="stable")
        new.extra_terms = terms[order]
        new.extra_docs = np.concatenate([self.extra_docs, _positions(new.docids, postings["docid"])])[order]
        new.extra_tf = np.concatenate([self.extra_tf, _counts(postings["tf"])])[order]
        new._stats()
        return new

    def _stats(self) -> None:
        self.num_docs = int(self.alive.sum())
        self.avgdl = float(self.length[self.alive].mean()) if self.num_docs else 0.0

    def _postings(self, termid: int) -> tuple[np.ndarray, np.ndarray]:
        """(dense document positions, term frequencies) of a term in the living documents."""
        docs, tf = [], []
        if termid + 1 < len(self.starts):
            docs.append(self.docs[self.starts[termid]:self.starts[termid + 1]])
            tf.append(self.tf[self.starts[termid]:self.starts[termid + 1]])
        lo, hi = np.searchsorted(self.extra_terms, [termid, termid + 1])
        docs.append(self.extra_docs[lo:hi])
        tf.append(self.extra_tf[lo:hi])
        docs, tf = np.concatenate(docs), np.concatenate(tf)
        keep = self.alive[docs]
        return docs[keep], tf[keep]

    def answer(self, store, query: str, kind: str | None, limit: int) -> tuple[list[tuple], float]:
        """`search` for the query as the index tokenizes it."""
        terms = fulltext.query_terms(store, query)
        return self.search(terms, fulltext.term_rows(store, [t for t, _ in terms]), kind, limit)

    def search(self, terms: list[tuple[str, bool]], rows: list[tuple[str, int, int]], kind: str | None,
               limit: int) -> tuple[list[tuple], float]:
        """terms: the query's (stem, is a stopword) (`fulltext.query_terms`); rows: (term, termid,
        df) of those the index holds (`fulltext.term_rows`).
        -> ((id, kind, score) best first, ties by id, as `fulltext.bm25` returns them; the
        coverage of the best: the share of the query's idf, summed over its indexed terms,
        that this document contains. 1 when it has every term, low when it has the common ones;
        a word nothing holds counts as the rarest, so a question about what is not here scores low)."""
        held_terms = {term for term, _id, _df in rows}
        unknown = sum(1 for term, stop in terms if term not in held_terms and not stop)
        n = self.num_docs
        idfs, postings = [], []
        for _term, termid, df in sorted(rows, key=lambda r: r[1]):
            idfs.append(np.log10((n - df + 0.5) / (df + 0.5) + 1))  # fts's log() is base 10
            postings.append(self._postings(termid))
        if not rows:
            return [], 0.0
        docs = np.concatenate([d for d, _ in postings])
        tf = np.concatenate([t for _, t in postings]).astype(np.float64)
        idf = np.concatenate([np.full(len(d), i) for (d, _), i in zip(postings, idfs)])
        norm = K1 * (1 - B + B * self.length[docs] / (self.avgdl or 1))
        scores = np.bincount(docs, weights=idf * tf * (K1 + 1) / (tf + norm), minlength=len(self.docids))
        hits = np.unique(docs)
        if kind is not None:
            hits = hits[self.is_memory[hits] == (kind == "memory")]
        if len(hits) > limit:  # everything that scores at least the limit-th best, then sort
            floor = np.partition(scores[hits], len(hits) - limit)[len(hits) - limit]
            hits = hits[scores[hits] >= floor]
        ranked = sorted(hits.tolist(), key=lambda d: (-scores[d], self.names[d]))[:limit]
        if not ranked:
            return [], 0.0
        best = ranked[0]
        held = sum(i for (d, _), i in zip(postings, idfs) if best in d)
        unknown_idf = float(np.log10((n + 0.5) / 0.5 + 1))
        coverage = float(held / (sum(idfs) + unknown * unknown_idf))
        found = [(self.names[d], "memory" if self.is_memory[d] else "code", float(scores[d])) for d in ranked]
        return found, coverage


class Ids:
    """The documents' ids, in docid order. A code chunk's id starts with its file's path
    (`pkg/a.py::Store.get:120`), which the file's other chunks repeat: that head is kept once, in
    `heads`, and each id as the index of its head and the rest in one UTF-8 buffer with the end of
    each. A string per document was 28 MB at 11,282 files (274,000 documents); one buffer of the
    whole ids 32 MB at 10,740 files with tests (432,000), this 22."""

    def __init__(self, values, base: "Ids | None" = None):
        self.heads: list[str] = list(base.heads) if base else [""]  # copies: a search under way reads `base`
        self._head_ids: dict[str, int] = dict(base._head_ids) if base else {"": 0}
        # the heads first, the tails after: a kept head made among the tails, which all die, would keep
        # their memory from being handed back (as graph/follow_unresolved.py's rows did; here ~25 MB)
        head_of, ids, heads = array.array("i"), self._head_ids, self.heads
        cuts = [v.find("::") + 2 if "::" in v else 0 for v in values]
        for v, cut in zip(values, cuts):
            k = ids.get(v[:cut])
            if k is None:
                k = ids[v[:cut]] = len(heads)
                heads.append(v[:cut])
            head_of.append(k)
        tails = [v[cut:].encode("utf-8", "surrogatepass") for v, cut in zip(values, cuts)]
        data = base.data if base else b""
        lengths = np.cumsum([len(t) for t in tails], dtype=np.int64) + len(data)
        self.data = data + b"".join(tails)
        self.ends = (base.ends if base else array.array("q")) + array.array("q", lengths.tobytes())
        self.head_of = (base.head_of if base else array.array("i")) + head_of

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, i: int) -> str:
        tail = self.data[self.ends[i - 1] if i else 0:self.ends[i]].decode("utf-8", "surrogatepass")
        return self.heads[self.head_of[i]] + tail

    def extended(self, values) -> "Ids":
        """These ids and `values` after them (a new object: a search under way reads this one)."""
        return Ids(values, self)


def _counts(tf) -> np.ndarray:
    """Term frequencies as 16-bit counts where they all are such (half of float32's memory: 8.3
    million postings at 10,740 files with tests), else as float32; either way exact."""
    values = np.asarray(tf, dtype=np.float32)
    if len(values) and not 0 <= values.min() <= values.max() <= np.iinfo(np.uint16).max:
        return values
    small = values.astype(np.uint16)
    return small if np.array_equal(small, values) else values


def _positions(docids: np.ndarray, wanted: np.ndarray, chunk: int = 1 << 20) -> np.ndarray:
    """The dense positions of `wanted` in the sorted `docids`, as 32-bit integers, a chunk at a
    time (searchsorted answers 64-bit: 46 MB more for the 5.8 million postings of 11,282 files)."""
    out = np.empty(len(wanted), dtype=np.int32)
    for at in range(0, len(wanted), chunk):
        out[at:at + chunk] = np.searchsorted(docids, wanted[at:at + chunk])
    return out
