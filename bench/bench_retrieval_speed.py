"""Retrieval speed on the standard library (issue 4, item 5).

1. Time until a fresh standard-library index answers a BM25 query (index + first search,
   which builds the fts index), and the projected time until its vectors are complete.
2. Query embedding p50 (one query at a time, as a user types).
3. Embedding throughput of the indexer's path (pending query, cache check, write) against a
   bare onnxruntime session on the same batches of the same texts: the ratio.
4. Hybrid search p50/p99 over >= 100,000 items: the stdlib chunks and copies of them (so BM25
   has real text), every item given a vector. Vectors for the padding items are random unit
   vectors: embedding 100,000 chunks would take about an hour here, and the cost of a search
   does not depend on what the vectors say.

    python bench/bench_retrieval_speed.py [--items 100000] [--throughput 512]
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402
from bench_incremental import percentile  # noqa: E402

from memory_lsp.retrieval.embedder import Embedder  # noqa: E402
from memory_lsp.retrieval.search import Retriever  # noqa: E402
from memory_lsp.service import Workspace  # noqa: E402
from memory_lsp.store import search as sql  # noqa: E402

QUERIES = ["how to parse an email header", "HTTPConnection.getresponse", "what calls urlopen",
           "read a zip archive member", "json decoder error position", "thread pool shutdown waits",
           "temporary directory cleanup", "copy a tree of files", "logging handler rotation", "sqlite row factory"]


def stats(ms: list[float]) -> dict:
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(percentile(ms, 99), 2)}


def step(name: str, out: dict | None = None) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {name} {json.dumps(out) if out else ''}", file=sys.stderr, flush=True)


def main() -> None:
    faulthandler.dump_traceback_later(240, repeat=True)  # a stage that hangs says where
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--throughput", type=int, default=512, help="chunks for the throughput comparison")
    ap.add_argument("--no-search", action="store_true", help="stop before the large search test")
    args = ap.parse_args()
    out: dict = {}
    root = corpora.stdlib_copy()

    t0 = time.perf_counter()
    ws = Workspace.open(root, db=corpora.fresh_db("retrieval"))
    ws.index()
    t_index = time.perf_counter() - t0
    ws.search("parse email header", mode="bm25")
    out["fresh_index_to_first_bm25_s"] = round(time.perf_counter() - t0, 2)
    out["index_s"] = round(t_index, 2)
    out["fts_build_s"] = round(out["fresh_index_to_first_bm25_s"] - t_index, 2)

    step('query embedding')
    embedder = Embedder()
    embedder.encode(["warm up"])
    ms = []
    for q in QUERIES * 5:
        t = time.perf_counter()
        embedder.encode([q])
        ms.append((time.perf_counter() - t) * 1000)
    out["query_embedding"] = stats(ms)

    step('throughput')
    # throughput: the indexer's path vs a bare session on the same texts and batches
    items = sql.pending_items(ws.store, embedder.model_id, args.throughput)
    texts = [text for *_, text in items]
    session, tok = embedder._load()
    t = time.perf_counter()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), 64):
        enc = tok.encode_batch([texts[i] for i in order[start:start + 64]])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    bare = len(texts) / (time.perf_counter() - t)
    retriever = Retriever(ws.store, embedder)
    t = time.perf_counter()
    done = retriever.embed_pending(limit=args.throughput)
    ours = (done["embedded"] + done["reused"]) / (time.perf_counter() - t)
    total_items = sql.vector_counts(ws.store, embedder.model_id)[1]
    out["throughput"] = {"chunks": len(texts), "bare_per_s": round(bare, 1), "indexer_per_s": round(ours, 1),
                         "ratio": round(ours / bare, 3)}
    out["stdlib_items"] = total_items
    out["projected_vectors_complete_s"] = round(t_index + out["fts_build_s"] + total_items / ours)

    step('padding to N items', out)
    if args.no_search:
        return
    # search over >= N items: copies of the real chunks, random vectors for those not embedded
    cur = ws.store.conn
    copies = 0
    while cur.execute("SELECT count(*) FROM chunks").fetchone()[0] < args.items:
        copies += 1
        cur.execute(f"INSERT INTO chunks SELECT id || '#copy{copies}', 'copy{copies}/' || path, kind, name, start_line, "
                    "end_line, prefix, text FROM chunks WHERE id NOT LIKE '%#copy%'")
    sql.mark_dirty(ws.store)
    t = time.perf_counter()
    sql.ensure_fts(ws.store)
    out["fts_build_100k_s"] = round(time.perf_counter() - t, 2)
    step('random vectors')
    missing = cur.execute("SELECT id FROM chunks WHERE id NOT IN (SELECT item_id FROM vectors)").fetchall()
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((len(missing), 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    for start in range(0, len(missing), 5000):
        sql.write_vectors(ws.store, embedder.model_id, [(m[0], "code", "random", v) for m, v in
                                                         zip(missing[start:start + 5000], vecs[start:start + 5000])])
    n_items = cur.execute("SELECT count(*) FROM vectors").fetchone()[0]
    step('searches')
    ws.search("warm up the vector matrix")
    search_ms, embed_ms = [], []
    for q in QUERIES * 10:
        t = time.perf_counter()
        qv = embedder.encode([q])
        embed_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        ws.search(q, k=10)
        search_ms.append((time.perf_counter() - t) * 1000)
    out["hybrid_search"] = {"items": n_items, **stats(search_ms),
                            "p50_without_query_embedding_ms": round(statistics.median(search_ms) - statistics.median(embed_ms), 2)}
    ws.close()
    print(json.dumps(out, indent=2))
    results = Path(__file__).parent / "results"
    results.mkdir(exist_ok=True)
    (results / "retrieval_speed.json").write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
