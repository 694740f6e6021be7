"""The search index (store/fulltext.py) against DuckDB's fts extension, on a real corpus.

Indexes the workspace (as `memory-lsp index` does), then builds both indexes from the same code
chunks' text in the same process: ours from nothing (`ensure_fts` on empty tables) and the
extension's (`create_fts_index` on a copy of the documents' text). Compares every document's
length, every term's document frequency, and the top 10 of each query (ids and scores); times
both builds. Memories are left out of both (the extension's copy holds only code).

    python bench/bench_fulltext_exact.py --workspace <folder> [--queries "parse config" ...]

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time

QUERIES = ["parse the configuration file", "json decode error", "thread lock timeout", "read a zip archive",
           "send an email over smtp", "compile a regular expression", "http request headers", "cache invalidation"]


def ranked(rows: list[tuple[str, float]]) -> list[str]:
    return [i for i, _s in sorted(((i, round(s, 9)) for i, s in rows), key=lambda r: (-r[1], r[0]))][:10]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--queries", nargs="*", default=QUERIES)
    args = ap.parse_args()
    from memory_lsp.store import fulltext
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(args.workspace)
    try:
        ws.index()
        conn = ws.store.conn
        out = {"workspace": args.workspace, "memories": conn.execute(
            "SELECT count(*) FROM memories WHERE valid_to IS NULL").fetchone()[0]}
        for table in fulltext.TABLES:
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM memories")  # code only, as the extension's copy below
        fulltext.mark_dirty(ws.store)
        t = time.perf_counter()
        fulltext.ensure_fts(ws.store)
        out["ours_build_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        conn.execute(f"CREATE OR REPLACE TABLE bench_fts AS SELECT c.id, {fulltext._CODE_WORDS} AS words FROM chunks c")
        conn.execute("PRAGMA create_fts_index('bench_fts', 'id', 'words', stemmer='porter', stopwords='english', "
                     "overwrite=1)")
        out["extension_build_s"] = round(time.perf_counter() - t, 2)
        cur = ws.store.cursor()
        docs = cur.execute("SELECT count(*) FROM bm25_docs").fetchone()[0]
        out["documents"], out["postings"] = docs, cur.execute("SELECT count(*) FROM bm25_postings").fetchone()[0]
        out["documents_differing"] = cur.execute(
            "SELECT count(*) FROM (SELECT name, len FROM fts_main_bench_fts.docs EXCEPT ALL "
            "SELECT id, len FROM bm25_docs)").fetchone()[0]
        out["terms"] = cur.execute("SELECT count(*) FROM bm25_terms").fetchone()[0]
        out["terms_differing"] = cur.execute(
            "SELECT count(*) FROM ((SELECT term, df FROM fts_main_bench_fts.dict EXCEPT SELECT term, df FROM bm25_terms) "
            "UNION ALL (SELECT term, df FROM bm25_terms EXCEPT SELECT term, df FROM fts_main_bench_fts.dict))").fetchone()[0]
        same, worst = 0, 0.0
        for query in args.queries:
            # the top 50 of each, ties broken by id once the scores are rounded (the copies of a
            # corpus hold equal documents, whose scores can differ in the last bit between the two)
            want = cur.execute("SELECT id, score FROM (SELECT id, fts_main_bench_fts.match_bm25(id, ?) AS score "
                               "FROM bench_fts) WHERE score IS NOT NULL ORDER BY score DESC, id LIMIT 50",
                               [query]).fetchall()
            got = [(i, s) for i, _k, s in fulltext.bm25(ws.store, query, None, 50)]
            theirs = dict(want)
            worst = max([worst] + [abs(score - theirs[i]) for i, score in got if i in theirs])
            same += ranked(got) == ranked(want)
        out.update({"queries": len(args.queries), "same_top10": same, "largest_score_difference": worst})
        conn.execute("DROP SCHEMA fts_main_bench_fts CASCADE")
        conn.execute("DROP TABLE bench_fts")
        for table in fulltext.TABLES:  # the next search makes it again, with the memories
            conn.execute(f"DELETE FROM {table}")
        ws.sync_memories(code_changed=True)
    finally:
        ws.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
