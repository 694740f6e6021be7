"""The event log under concurrent and killed writers (issue 14 item 7).

    python bench/bench_reliability_eventlog.py --writers 16 --each 200 --kills 20

1. --writers processes each teach --each memories at once (MemoryBook.teach: secret scan, flock,
   one append): every memory must be in the log exactly once.
2. --kills times, a writer takes the lock, writes half of a record and is killed with SIGKILL;
   a teach follows each kill: only the killed writers' records may be missing, each fragment is
   quarantined, nothing else is lost or duplicated.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEACHER = """
import sys
from pathlib import Path
from memory_lsp.memory.book import MemoryBook
book = MemoryBook(Path(sys.argv[1]))
for i in range(int(sys.argv[3])):
    book.teach(f"writer {sys.argv[2]} fact {i}: retries back off", "fact")
"""

TORN_WRITER = """
import fcntl, json, os, sys, time
from pathlib import Path
from memory_lsp.memory.eventlog import EventLog
log = EventLog(Path(sys.argv[1]))
os.makedirs(log.dir, exist_ok=True)
record = json.dumps(log.new_event("memory.created", "torn" + sys.argv[2], text="x" * 5000)).encode() + b"\\n"
fd = os.open(log.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, record[: len(record) // 2])
print("half", flush=True)
time.sleep(60)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--each", type=int, default=200)
    parser.add_argument("--kills", type=int, default=20)
    args = parser.parse_args()
    from memory_lsp.memory.book import MemoryBook
    from memory_lsp.memory.eventlog import EventLog

    root = Path(tempfile.mkdtemp(prefix="mlsp-log-"))
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", TEACHER, str(root), str(w), str(args.each)],
                              stderr=subprocess.PIPE, text=True) for w in range(args.writers)]
    failures = [err[-500:] for p in procs for _, err in [p.communicate()] if p.returncode != 0]
    seconds = time.perf_counter() - started
    report = EventLog(root / ".memory").read()
    texts = [e["text"] for e in report.events]
    expected = {f"writer {w} fact {i}: retries back off" for w in range(args.writers) for i in range(args.each)}
    concurrent = {"writers": args.writers, "each": args.each, "seconds": round(seconds, 1),
                  "teaches_per_s": round(args.writers * args.each / seconds, 1), "failed_writers": len(failures),
                  "records": report.lines, "missing": len(expected - set(texts)),
                  "duplicated": len(texts) - len(set(texts)), "bad_lines": len(report.bad_lines),
                  "memories_loaded": len(MemoryBook(root).load().memories)}
    print(json.dumps({"concurrent": concurrent}), flush=True)

    killed_root = Path(tempfile.mkdtemp(prefix="mlsp-torn-"))
    book = MemoryBook(killed_root)
    kept = []
    for round_ in range(args.kills):
        torn = subprocess.Popen([sys.executable, "-c", TORN_WRITER, str(killed_root / ".memory"), str(round_)],
                                stdout=subprocess.PIPE, text=True)
        assert torn.stdout.readline().strip() == "half"
        os.kill(torn.pid, signal.SIGKILL)
        torn.wait()
        kept.append(book.teach(f"fact {round_} written after a killed writer", "fact").memory.id)
    after = EventLog(killed_root / ".memory").read()
    quarantined = list((killed_root / ".memory").glob("events.jsonl.broken-*"))
    fragments = sum(len([x for x in q.read_text(encoding="utf-8").splitlines() if x]) for q in quarantined)
    killed = {"kills": args.kills, "kept": len(kept), "in_log": len(after.events),
              "lost": len(set(kept) - {e["memory"] for e in after.events}), "bad_lines": len(after.bad_lines),
              "duplicates": after.duplicates, "torn_tail_left": after.torn_tail, "fragments_quarantined": fragments}
    print(json.dumps({"killed_writers": killed}), flush=True)
    ok = (not concurrent["missing"] and not concurrent["duplicated"] and not concurrent["bad_lines"]
          and not killed["lost"] and not killed["bad_lines"] and fragments == args.kills)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
