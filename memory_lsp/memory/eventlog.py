"""The event log: `.memory/events.jsonl`, the one source of truth for memories.

One JSON object per line, appended, never rewritten; the file is committed so a team shares
its memory through git (`merge=union` in .gitattributes keeps both sides of a merge). Writers
(an editor's server, the CLI, an agent) take an exclusive file lock and append each record with
one `write`. A writer killed mid-record leaves a fragment without a newline; the next writer
moves that fragment to a `*.broken-*` file first, so it cannot swallow the next record.
A reader skips lines it cannot parse and reports them; it never fails on them. Events carry
ULIDs, and the reader keeps the first copy of each id, because a union merge may duplicate lines.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from memory_lsp.memory.model import now_iso

LOG_NAME = "events.jsonl"
FORMAT = 1
KINDS = ("memory.created", "memory.edited", "memory.superseded", "memory.invalidated", "memory.pinned",
         "memory.feedback", "memory.approved", "citation.reanchored")
GITATTRIBUTES_LINE = "events.jsonl merge=union\n"
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


_last_ulid = [0]
_ulid_lock = threading.Lock()


def ulid() -> str:
    """A ULID: 48 bits of milliseconds then 80 random bits, Crockford base32 (sorts by time). Within
    one millisecond of one process the next is the last plus one (the spec's monotonic ULIDs): ids
    made in one go sort in the order they were made, which "the oldest" of a merge relies on."""
    with _ulid_lock:
        value = (time.time_ns() // 1_000_000) << 80 | secrets.randbits(80)
        if value >> 80 <= _last_ulid[0] >> 80:
            value = _last_ulid[0] + 1
        _last_ulid[0] = value
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


@dataclass
class ReadReport:
    events: list[dict] = field(default_factory=list)  # unique, in file order
    lines: int = 0
    duplicates: int = 0
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, why)
    torn_tail: bool = False  # the last line has no newline (a writer is mid-record or was killed)


class EventLog:
    def __init__(self, memory_dir: Path):
        self.dir = Path(memory_dir)
        self.path = self.dir / LOG_NAME

    def new_event(self, kind: str, memory: str, **payload) -> dict:
        assert kind in KINDS, kind
        return {"v": FORMAT, "id": ulid(), "ts": now_iso(), "kind": kind, "memory": memory, **payload}

    def append(self, *events: dict) -> None:
        """Append events atomically with respect to other memory-lsp writers."""
        data = b"".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                        for e in events)
        self._prepare()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._quarantine_torn_tail(fd)
            view = memoryview(data)
            while view:  # one write in practice; a short write continues where it stopped
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock

    def read(self, until: str | None = None) -> ReadReport:
        """All events (de-duplicated by id), or those with a timestamp at or before `until`."""
        report = ReadReport()
        try:
            with open(self.path, "rb") as f:
                fcntl.flock(f.fileno(), fcntl.LOCK_SH)  # never read half of a record being written
                data = f.read()
        except FileNotFoundError:
            return report
        lines = data.split(b"\n")
        if lines[-1]:
            report.torn_tail = True
            report.bad_lines.append((len(lines), "torn last line (no newline): skipped"))
        seen: set[str] = set()
        for number, raw in enumerate(lines[:-1], 1):
            if not raw.strip():
                continue
            report.lines += 1
            event, why = _parse(raw)
            if event is None:
                report.bad_lines.append((number, why))
                continue
            if event["id"] in seen:
                report.duplicates += 1
                continue
            seen.add(event["id"])
            if until is None or event["ts"] <= until:
                report.events.append(event)
        return report

    def signature(self) -> str:
        """Changes whenever the log does (size and modification time): cheap to poll."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return "absent"
        return f"{st.st_size}:{st.st_mtime_ns}"

    def _prepare(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        attributes = self.dir / ".gitattributes"
        if not attributes.exists():
            attributes.write_text("# memories from two branches merge by keeping both sides' lines\n"
                                  + GITATTRIBUTES_LINE, encoding="utf-8")

    def _quarantine_torn_tail(self, fd: int) -> None:
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return
        # read back to the last newline: everything after it is the fragment of a killed writer
        start = size
        while start > 0:
            step = min(65536, start)
            chunk = os.pread(fd, step, start - step)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                start = start - step + cut + 1
                break
            start -= step
        fragment = os.pread(fd, size - start, start)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        with open(self.dir / f"{LOG_NAME}.broken-{stamp}-{os.getpid()}", "ab") as out:
            out.write(fragment + b"\n")
        os.ftruncate(fd, start)


def _parse(raw: bytes) -> tuple[dict | None, str]:
    try:
        event = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"not JSON ({exc.__class__.__name__}): skipped"
    if not isinstance(event, dict) or not isinstance(event.get("id"), str) or not isinstance(event.get("ts"), str):
        return None, "not an event (no id or ts): skipped"
    if event.get("kind") not in KINDS:
        return None, f"unknown event kind {event.get('kind')!r} (written by a newer memory-lsp?): skipped"
    if not isinstance(event.get("memory"), str):
        return None, "event names no memory: skipped"
    return event, ""
