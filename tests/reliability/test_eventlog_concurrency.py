"""Issue 14 item 7, the event log under many writers and killed writers (real processes, real flock):
16 processes teaching at once lose and duplicate nothing; a writer killed with SIGKILL in the middle
of a record, 20 times, costs only its own record (the fragment is quarantined by the next writer) and
no other. CI size here; bench/bench_reliability_eventlog.py runs 16 x 200."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from memory_lsp.memory.book import MemoryBook
from memory_lsp.memory.eventlog import EventLog

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_reliability_eventlog import TEACHER, TORN_WRITER  # noqa: E402  the bench's writers, at CI size


def teach_in_processes(root: Path, writers: int, each: int) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", TEACHER, str(root), str(w), str(each)],
                              stderr=subprocess.PIPE, text=True) for w in range(writers)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err


def test_sixteen_processes_teaching_at_once_lose_and_duplicate_nothing(tmp_path):
    writers, each = 16, 25
    teach_in_processes(tmp_path, writers, each)
    report = EventLog(tmp_path / ".memory").read()
    assert report.bad_lines == [] and report.duplicates == 0 and not report.torn_tail
    assert report.lines == writers * each
    texts = sorted(e["text"] for e in report.events)
    expected = sorted(f"writer {w} fact {i}: retries back off" for w in range(writers) for i in range(each))
    assert texts == expected
    assert len({e["memory"] for e in report.events}) == writers * each
    assert len(MemoryBook(tmp_path).load().memories) == writers * each


def test_a_writer_killed_mid_record_twenty_times_costs_only_its_own_record(tmp_path):
    book = MemoryBook(tmp_path)
    kept = []
    for round_ in range(20):
        torn = subprocess.Popen([sys.executable, "-c", TORN_WRITER, str(tmp_path / ".memory"), str(round_)],
                                stdout=subprocess.PIPE, text=True)
        assert torn.stdout.readline().strip() == "half"
        os.kill(torn.pid, signal.SIGKILL)
        torn.wait(timeout=30)
        # the lock died with the writer; a reader meanwhile sees a torn tail and skips it
        assert EventLog(tmp_path / ".memory").read().torn_tail
        kept.append(book.teach(f"fact {round_} written after a killed writer", "fact").memory.id)
    report = EventLog(tmp_path / ".memory").read()
    assert report.bad_lines == [] and not report.torn_tail and report.duplicates == 0
    assert [e["memory"] for e in report.events] == kept
    quarantined = sorted((tmp_path / ".memory").glob("events.jsonl.broken-*"))
    fragments = [line for q in quarantined for line in q.read_text(encoding="utf-8").splitlines() if line]
    assert len(fragments) == 20 and all(f.startswith('{"v":') for f in fragments)
    assert all(json.loads(line)["kind"] == "memory.created"
               for line in (tmp_path / ".memory" / "events.jsonl").read_text(encoding="utf-8").splitlines())
    assert sorted(MemoryBook(tmp_path).load().memories) == sorted(kept)
