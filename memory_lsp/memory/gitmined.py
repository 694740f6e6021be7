"""Causal-dependency memories mined from git: files that are usually changed together.

They are computed from the CO_CHANGES edges on every index run, not logged: every clone can
recompute them from its own history, and logging them would add lines to the committed log on
each run. Their ids are stable (a hash of the pair), so feedback and forget events about them,
which are logged, keep applying as the counts move.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from memory_lsp.memory.model import Citation, Memory, iso

MIN_SHARED_COMMITS = 5
MIN_CONFIDENCE = 0.6


def memory_id(path: str, partner: str) -> str:
    return "git-" + hashlib.blake2b(f"{path}\0{partner}".encode(), digest_size=8).hexdigest()


def couplings(rows: list[tuple]) -> dict[str, Memory]:
    """rows: (path, partner, shared commits, commits of path, confidence, last change unix time)."""
    out = {}
    for path, partner, shared, commits, confidence, last in rows:
        mid = memory_id(path, partner)
        when = iso(datetime.fromtimestamp(last or 0, timezone.utc))
        out[mid] = Memory(
            id=mid, type="causal_dependency", source="git_mined", created=when, updated=when,
            text=f"{path} is usually changed with {partner}: {shared} of {commits} commits that touch "
                 f"{path} also touch {partner}",
            priority="medium", confidence=round(confidence, 4), scope=path, tags=["git"],
            citations=[Citation(path), Citation(partner)])
    return out
