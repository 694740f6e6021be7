"""Git history: which files change together (CO_CHANGES), how often each changes, and when.

One `git log` call. Commits that touch more than `co_change_max_files` files (mass renames,
formatting sweeps) say nothing about coupling and are ignored for pairs.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path


@dataclass
class History:
    head: str | None = None
    churn: Counter = field(default_factory=Counter)  # path -> commits touching it
    last_change: dict[str, float] = field(default_factory=dict)  # path -> unix time
    pairs: Counter = field(default_factory=Counter)  # (a, b) with a < b -> shared commits


def head(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.decode().strip() or None


def mine(root: Path, known: set[str], max_commits: int, max_files: int) -> History:
    history = History(head=head(root))
    if history.head is None:
        return history
    try:
        prefix = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-prefix"],
                                capture_output=True, timeout=10, check=True).stdout.decode().strip()
        out = subprocess.run(
            ["git", "-C", str(root), "log", "--no-merges", "--no-renames", "--name-only",
             "--format=%x00%ct", f"-n{max_commits}", "--", "."],
            capture_output=True, timeout=120, check=True).stdout.decode("utf-8", "surrogateescape")
    except (OSError, subprocess.SubprocessError):
        return history
    for record in out.split("\0")[1:]:
        lines = record.strip("\n").split("\n")
        try:
            when = float(lines[0])
        except (ValueError, IndexError):
            continue
        files = sorted({p[len(prefix):] for p in lines[1:] if p.startswith(prefix)} & known)
        for p in files:
            history.churn[p] += 1
            history.last_change[p] = max(history.last_change.get(p, 0.0), when)
        if 1 < len(files) <= max_files:
            for a, b in combinations(files, 2):
                history.pairs[(a, b)] += 1
    return history


def co_change_edges(history: History, min_support: int) -> list[tuple]:
    """Rows for the edges table, both directions; confidence = shared / commits of the source."""
    rows = []
    for (a, b), shared in history.pairs.items():
        if shared < min_support:
            continue
        for src, dst in ((a, b), (b, a)):
            rows.append((src, dst, "CO_CHANGES", src, dst, None,
                         round(shared / max(history.churn[src], 1), 4), "git", None, shared))
    return rows
