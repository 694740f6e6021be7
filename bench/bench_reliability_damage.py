"""Damaged database variants: time until the workspace answers again, and memories lost (issue 14 item 7).

    python bench/bench_reliability_damage.py --files 100 --memories 50

A workspace of the first --files standard-library modules with --memories memories, indexed and
closed cleanly. For each variant (truncations, byte flips in the headers and in data blocks, a
zeroed tail, garbage write-ahead logs) the database is damaged, then the CLI runs in its own process
(MEMORY_LSP_NO_OWNER=1): `memories --json` (the first answer: the time to ready, also against
the same command on the intact database) and `index` (the rebuild). Target: ready within 10 s,
0 memories lost.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import stdlib_files  # noqa: E402

ENV = dict(os.environ, MEMORY_LSP_NO_OWNER="1")


def cli(*args: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memory_lsp", *args], env=ENV, capture_output=True, text=True,
                          timeout=600)
    return time.perf_counter() - started, done


def flip(data: bytes, offset: int) -> bytes:
    out = bytearray(data)
    out[offset] ^= 0xFF
    return bytes(out)


def variants(data: bytes) -> dict[str, tuple[bytes, bytes | None]]:
    n = len(data)
    rng = random.Random(7)
    out = {f"truncated to {cut}": (data[:cut], None) for cut in (0, 100, 4096, 12288, n // 4, n // 2, n - 1)}
    for offset in (8, 100, 4096 + 40, 8192 + 40, 12288 + 10, 12288 + 262144 + 100, n // 3, n // 2, n - 100):
        out[f"byte flipped at {offset}"] = (flip(data, offset), None)
    out["zeroed tail (64 KiB)"] = (data[:-65536] + bytes(65536), None)
    out["zeroed after the headers"] = (data[:12288] + bytes(n - 12288), None)
    out["random bytes"] = (rng.randbytes(n), None)
    out["garbage WAL (50 KB)"] = (data, rng.randbytes(50_000))
    out["zeroed WAL (4 KiB)"] = (data, bytes(4096))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--memories", type=int, default=50)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mlsp-damage-"))
    try:
        root = base / "ws"
        lib = Path(stdlib_files()[0]).parent
        for src in stdlib_files()[:args.files]:
            dest = root / src.relative_to(lib)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
        from memory_lsp.memory.book import MemoryBook
        book = MemoryBook(root)
        for i in range(args.memories):
            book.teach(f"memory {i}: the retry budget of worker {i} is {i + 3} attempts", "fact")
        seconds, done = cli("index", str(root))
        assert done.returncode == 0, done.stderr
        db = root / ".memory" / "index.duckdb"
        clean = db.read_bytes()
        # the baseline of this run: the same first answer from an intact database
        baseline = sorted(cli("memories", "-w", str(root), "--json")[0] for _ in range(3))[1]
        print(json.dumps({"database_bytes": len(clean), "clean_index_s": round(seconds, 2),
                          "intact_memories_s": round(baseline, 2)}), flush=True)
        rows = []
        for name, (body, wal) in variants(clean).items():
            for stale in db.parent.glob("index.duckdb*"):
                stale.unlink()
            db.write_bytes(body)
            if wal is not None:
                Path(str(db) + ".wal").write_bytes(wal)
            ready_s, memories = cli("memories", "-w", str(root), "--json")
            index_s, indexed = cli("index", str(root))
            after_s, again = cli("memories", "-w", str(root), "--json")
            counts = []
            for out in (memories, again):
                try:
                    data = json.loads(out.stdout)
                    counts.append(len(data["memories"] if isinstance(data, dict) else data))
                except (ValueError, KeyError):
                    counts.append(None)
            row = {"variant": name, "ready_s": round(ready_s, 2), "ready_vs_intact": round(ready_s / baseline, 2),
                   "rebuild_s": round(index_s, 2),
                   "memories_at_ready": counts[0], "memories_after_rebuild": counts[1],
                   "lost": args.memories - min(c or 0 for c in counts),
                   "exit_codes": [memories.returncode, indexed.returncode, again.returncode],
                   "tracebacks": sum("Traceback" in p.stderr for p in (memories, indexed, again)),
                   "set_aside": bool(list(db.parent.glob("index.duckdb.broken-*")))}
            rows.append(row)
            print(json.dumps(row), flush=True)
        summary = {"variants": len(rows), "intact_memories_s": round(baseline, 2),
                   "median_ready_s": sorted(r["ready_s"] for r in rows)[len(rows) // 2],
                   "max_ready_s": max(r["ready_s"] for r in rows),
                   "max_rebuild_s": max(r["rebuild_s"] for r in rows),
                   "memories_lost": sum(r["lost"] for r in rows), "tracebacks": sum(r["tracebacks"] for r in rows),
                   "failed_exits": sum(any(r["exit_codes"]) for r in rows)}
        print(json.dumps({"summary": summary}), flush=True)
        ok = summary["max_ready_s"] <= 10 and not summary["memories_lost"] and not summary["tracebacks"]
        return 0 if ok else 1
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
