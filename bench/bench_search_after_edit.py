"""The first search after a code edit: an edit marks the search index stale (meta `fts_dirty`), and
the next search brings it up to date inside the request (store/fulltext.py ensure_fts; before
v6 of the index DuckDB's fts extension rebuilt the whole index there).

One process, as the server: open the index as the server does, run a start's index (it finds
nothing changed, or indexes what changed), one warm-up search; then per round append a new
function to a different .py file of the workspace (seeded), its name and docstring holding a
made-up word of letters only (the full-text index splits words at digits), and time
`Workspace.reindex` of that file (edit_s), a search for the word (search_s, and whether the new
function's chunk is among the results: found; found_bm25 is the same asked of BM25 alone, so a
hit through the symbol names of the graph path cannot hide a stale full-text index), then a
search of another ordinary query (second_search_s). The summary gives the process's RSS after the
rounds and its peak (VmRSS, VmHWM).

Then the CLI user's view (`--fresh-rounds`, 0 to skip): the parent edits another file, re-indexes
it and closes the index (DuckDB lets one process open it); a new process opens the workspace and
times its first search for the new word (first_search_s).

At the end every edited file gets its original bytes back, is re-indexed, one search brings the
search index up to date and the index is closed (a process that does not close leaves the index
to be checked on the next open).

    python bench/bench_search_after_edit.py --workspace <a workspace with its index built>
                                            [--rounds 5] [--fresh-rounds 2] [--seed 19]

Prints one JSON line per round and a summary line with the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import string
import subprocess
import sys
import time
from pathlib import Path

QUERIES = ["read the contents of a zip archive", "send an email over smtp", "format a date as a string",
           "compile a regular expression", "open a database connection", "split a path into parts",
           "handle a http request", "parse command line arguments"]
WARM_UP = "parse the configuration file"

CHILD = r"""
import json, sys, time
t = time.perf_counter()
from memory_lsp.server import folders
from memory_lsp.workspace import Workspace
ws = Workspace.open(sys.argv[1], memory_limit_mb=folders.DUCKDB_MEMORY_MB)
out = {"open_s": round(time.perf_counter() - t, 3), "stale_at_open": ws.store.meta("fts_dirty") != "0",
       "indexed_files": ws.store.cursor().execute("SELECT count(*) FROM files").fetchone()[0]}
t = time.perf_counter()
result = ws.search(sys.argv[2])
out["first_search_s"] = round(time.perf_counter() - t, 3)
out["results"] = [[r.get("kind"), r.get("path"), r.get("symbol")] for r in result["results"]]
ws.close()
print(json.dumps(out))
"""


def open_ws(root: Path):
    from memory_lsp.server import folders
    from memory_lsp.workspace import Workspace

    return Workspace.open(root, memory_limit_mb=folders.DUCKDB_MEMORY_MB)


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, round(time.perf_counter() - t, 3)


def new_word(rng: random.Random, i: int) -> str:
    return "zqxround" + string.ascii_lowercase[i % 26] + "".join(rng.choices(string.ascii_lowercase, k=8))


def append_function(path: Path, word: str) -> None:
    data = path.read_bytes()
    sep = b"" if data.endswith(b"\n") or not data else b"\n"
    path.write_bytes(data + sep + (f"\n\ndef {word}(value):\n    \"\"\"{word}: a made-up function for the benchmark.\"\"\"\n"
                                   f"    return value\n").encode())


def has_chunk(results: list, rel: str, word: str) -> bool:
    """Is the new function's chunk (path rel, name `word`) among the results? (retrieval/search.py _chunk_result)"""
    return any(r.get("kind") == "code" and r.get("path") == rel and
               (r.get("symbol") == word or word in (r.get("text") or "")) for r in results)


def index_state(ws) -> dict:
    """The indexed files and the schema: a process of other code opening the file rebuilds it."""
    return {"indexed_files": ws.store.cursor().execute("SELECT count(*) FROM files").fetchone()[0],
            "schema_version": ws.store.meta("schema_version")}


def status(field: str) -> int:
    """VmRSS or VmHWM of this process, MB."""
    with open("/proc/self/status") as f:
        return next(round(int(line.split()[1]) / 1024) for line in f if line.startswith(field + ":"))


def median(rows: list[dict], key: str):
    values = [r[key] for r in rows if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
    return round(statistics.median(values), 3) if values else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", required=True, help="a workspace with its index built (.memory/index.duckdb)")
    ap.add_argument("--rounds", type=int, default=5, help="edits searched in this process")
    ap.add_argument("--fresh-rounds", type=int, default=2, help="edits searched by a new process (0: none)")
    ap.add_argument("--seed", type=int, default=19)
    args = ap.parse_args()
    root = Path(args.workspace).resolve()
    rng = random.Random(args.seed)
    originals: dict[Path, bytes] = {}
    ws = open_ws(root)
    report, start_s = timed(ws.index)
    _r, warm_s = timed(ws.search, WARM_UP)
    print(json.dumps({"start_s": start_s, "start_code_changed": report.code_changed, "warm_up_search_s": warm_s,
                      **index_state(ws)}),
          flush=True)
    py = [p for (p,) in ws.store.cursor().execute("SELECT path FROM files WHERE path LIKE '%.py' ORDER BY path").fetchall()]
    picks = rng.sample(py, args.rounds + args.fresh_rounds)
    rows, fresh, rss = [], [], {}
    try:
        for i in range(args.rounds):
            rel, word = picks[i], new_word(rng, i)
            path = root / rel
            originals[path] = path.read_bytes()
            append_function(path, word)
            _r, edit_s = timed(ws.reindex, {str(path): None})
            stale = ws.store.meta("fts_dirty") != "0"
            result, search_s = timed(ws.search, word)
            query = QUERIES[i % len(QUERIES)]
            _r, second_s = timed(ws.search, query)
            bm25 = ws.search(word, mode="bm25")
            row = {"round": i + 1, "file": rel, "word": word, "edit_s": edit_s, "stale_after_edit": stale,
                   "search_s": search_s, "found": has_chunk(result["results"], rel, word),
                   "found_bm25": has_chunk(bm25["results"], rel, word), "second_query": query,
                   "second_search_s": second_s}
            rows.append(row)
            print(json.dumps(row), flush=True)
        rss = {"rss_after_rounds_mb": status("VmRSS"), "peak_mb": status("VmHWM")}
        for j in range(args.fresh_rounds):
            i = args.rounds + j
            rel, word = picks[i], new_word(rng, i)
            path = root / rel
            originals[path] = path.read_bytes()
            append_function(path, word)
            _r, edit_s = timed(ws.reindex, {str(path): None})
            ws.close()
            ws = None
            done = subprocess.run([sys.executable, "-c", CHILD, str(root), word], capture_output=True, text=True,
                                  env=os.environ)
            ws = open_ws(root)
            if done.returncode:
                sys.exit(done.stderr[-2000:])
            child = json.loads(done.stdout.strip().splitlines()[-1])
            found = any(k == "code" and p == rel and s == word for k, p, s in child.pop("results"))
            row = {"fresh_round": j + 1, "file": rel, "word": word, "edit_s": edit_s, **child, "found": found,
                   "indexed_files_after": index_state(ws)["indexed_files"]}
            fresh.append(row)
            print(json.dumps(row), flush=True)
    finally:
        if ws is None:
            ws = open_ws(root)
        for path, data in originals.items():
            path.write_bytes(data)
        _r, restore_s = timed(ws.reindex, {str(p): None for p in originals})
        _r, restore_search_s = timed(ws.search, WARM_UP)  # the search index left up to date
        end_state = index_state(ws)
        ws.close()
    print(json.dumps({
        "summary": True, "workspace": str(root), "rounds": len(rows),
        "edit_s": median(rows, "edit_s"), "search_s": median(rows, "search_s"),
        "found": sum(r["found"] for r in rows), "found_bm25": sum(r["found_bm25"] for r in rows),
        "second_search_s": median(rows, "second_search_s"), **rss,
        "fresh_rounds": len(fresh), "fresh_edit_s": median(fresh, "edit_s"), "fresh_open_s": median(fresh, "open_s"),
        "fresh_first_search_s": median(fresh, "first_search_s"), "fresh_found": sum(r["found"] for r in fresh),
        "restored_files": len(originals), "restore_reindex_s": restore_s, "restore_search_s": restore_search_s,
        "indexed_files_at_end": end_state["indexed_files"]}),
        flush=True)


if __name__ == "__main__":
    main()
