"""A workspace's first index, or its whole index again over rows older rules made, built in a
process of its own.

A long-lived process (the owner, a standalone server) that indexes a large workspace in its own
memory keeps the run's peak for the rest of its life: Python's and the C heap's freed memory stay
with the process (BENCHMARKS.md au: a server that made the first index of 11,235 files peaked at
1,158 MB; the same server started on the finished index, 475 MB). So when such a process meets a
workspace with no code indexed and enough files (its snapshots read nothing from the store: no
reader uses the connection), or an index whose rows an older memory-lsp made (index/version.py:
every file again; readers meanwhile get the log's snapshot, or ContentModified), the host
(`host.Workspace.index`) closes its DuckDB file and `run` here indexes that file in a child process
(`indexer.run`, as `Workspace.index` runs it); the host opens the file again and resolves the
memories against it, and the child's memory goes back to the system when it exits.

The child reads its job as one JSON object on stdin and writes JSON lines on stdout: `{"done",
"total"}` per batch, then `{"report": ...}` or `{"error": ...}` (a UserError's line). Its log
goes to the parent's stderr. It runs in a process group of its own: stopping it sends SIGTERM to
the group, so that its parse workers end with it (forked workers hold their queue's pipe ends
and never see it close), and its run, never committed, leaves the file as the last commit did.
It and its workers end when their parent does (index/lifeline.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from memory_lsp.errors import UserError
from memory_lsp.index.indexer import IndexReport
from memory_lsp.index.lifeline import die_with_parent
from memory_lsp.settings import Settings

CHILD = "from memory_lsp.workspace.apart import main; main()"
STOP_GRACE_SECONDS = 10  # a stopped child that has not ended by then is killed


def run(root: Path, db: str, settings: Settings, progress=None, workers: int | None = None) -> tuple[IndexReport, dict]:
    """Index `db` (closed by the caller) for `root` in a child process. Returns the run's report
    and the child's usage: its pid and peak RSS in MB (its parse workers' included). An exception
    raised by `progress` stops the child and is raised again here, once it has exited."""
    job = {"root": str(root), "db": db, "settings": asdict(settings), "workers": workers, "parent": os.getpid()}
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, encoding="utf-8", start_new_session=True)
    answer: dict = {}
    try:
        proc.stdin.write(json.dumps(job))
        proc.stdin.close()
        for line in proc.stdout:
            message = _message(line)
            if "done" in message:
                if progress is not None:
                    progress(message["done"], message["total"])
            elif "report" in message or "error" in message:
                answer = message
    except BaseException:
        _stop(proc)
        raise
    usage = _reap(proc)
    if "error" in answer:
        raise UserError(answer["error"])
    if "report" not in answer or proc.returncode != 0:
        raise RuntimeError(f"the indexing process (pid {proc.pid}) exited with code {proc.returncode} "
                           "and no report: its error is in the log above")
    fields = answer["report"]
    return IndexReport(**{**fields, "skipped": Counter(fields.get("skipped") or {})}), usage


def _message(line: str) -> dict:
    try:
        message = json.loads(line)
    except ValueError:  # not ours (a library printing): not a reason to fail the run
        return {}
    return message if isinstance(message, dict) else {}


def _stop(proc: subprocess.Popen) -> None:
    """The child and its workers: SIGTERM to the group, SIGKILL if it has not ended by then."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, signum)
        except ProcessLookupError:
            break
        try:
            proc.wait(STOP_GRACE_SECONDS)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


def _reap(proc: subprocess.Popen) -> dict:
    """Wait for the child; its pid and peak RSS (wait4's rusage: the child and its waited children)."""
    _pid, status, rusage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"pid": proc.pid, "peak_rss_mb": round(rusage.ru_maxrss / 1024, 1)}


# -- the child ------------------------------------------------------------------------------------
def main() -> None:
    job = json.loads(sys.stdin.read())
    die_with_parent(job["parent"])  # a server killed: its child must not keep the file
    # the run as `Workspace.index` makes it; the parent then resolves the memories against it
    from memory_lsp.graph.passes import PASSES
    from memory_lsp.index import indexer
    from memory_lsp.memory.secrets import redact_file_text
    from memory_lsp.store import Store

    def say(message: dict) -> None:
        print(json.dumps(message), flush=True)  # a parent gone: BrokenPipeError ends the run

    try:
        store = Store.open(job["db"])
        try:
            report = indexer.run(store, Path(job["root"]), Settings(**job["settings"]), passes=PASSES,
                                 progress=lambda done, total: say({"done": done, "total": total}),
                                 workers=job.get("workers"), redact=redact_file_text)
        finally:
            store.close()
    except UserError as exc:
        say({"error": str(exc)})
        sys.exit(2)
    say({"report": asdict(report)})
