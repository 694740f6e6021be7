"""One home for how memories are ordered and weighed: which types come first where, how much
each type and each source counts in search. (Priorities and half-lives are part of the type
itself: `model.TYPES`, `model.PRIORITIES`.)
"""

from __future__ import annotations

import fnmatch
import re

from memory_lsp.memory.model import PRIORITIES, Memory

# hovers and diagnostics: what must not be missed comes before background
HOVER_FIRST = ("policy", "gotcha", "dead_end", "requirement", "error_pattern")
# `context` for agents: standing rules go first (seed 002/004)
CONTEXT_FIRST = ("policy", "preference", "requirement")
# exports: every type, in the order a reader of the document wants them
EXPORT_ORDER = ("policy", "requirement", "gotcha", "decision", "preference", "dead_end", "pattern",
                "error_pattern", "workflow_recipe", "causal_dependency", "module_insight", "fact")
# the agents block (CLAUDE.md / AGENTS.md): an agent acts on rules and preferences first
AGENTS_ORDER = ("policy", "preference", "gotcha", "decision", "dead_end", "workflow_recipe")

# search: how much a memory's source and type weigh on its fused score
TRUST = {"user_taught": 1.4, "agent_explicit": 1.2, "imported": 1.2, "git_mined": 1.0, "observer_inferred": 0.85}
TYPE_WEIGHT = {"policy": 1.15, "gotcha": 1.15, "dead_end": 1.1, "decision": 1.05, "error_pattern": 1.1}


def hover_order(m: Memory) -> tuple:
    """Sort key for hovers and diagnostics: first types, then priority, then age."""
    return (0 if m.type in HOVER_FIRST else 1, -PRIORITIES.get(m.priority, 1), m.created)


def importance_order(m: Memory) -> tuple:
    """Sort key for listings: priority, then age, then id (stable across runs)."""
    return (-PRIORITIES.get(m.priority, 1), m.created, m.id)


# -- one file's memories (hover, `memories --file`, `context --file`, lenses) ------------------
_WORD = re.compile(r"[A-Za-z][a-z0-9]+|[A-Z]+(?![a-z])")


def cites_file(m: Memory, path: str) -> bool:
    """Does a citation of the memory point into `path` (where it was cited or where it is now)?"""
    return any(c.path == path or c.now.path == path for c in m.citations)


def is_standing_rule(m: Memory) -> bool:
    """A rule for every file it covers, not a note about some code: uncited and global or scoped."""
    return not m.citations


def glob_specificity(scope: str, path: str) -> int:
    """How narrowly `scope` covers `path`: the literal characters of its most specific matching
    glob (`flask/*.py` beats `**/*.py`); 0 for a global scope or none that matches."""
    if not scope or scope == "global":
        return 0
    best = 0
    for glob in (g.strip().split("::", 1)[0] for g in scope.split(",")):
        if glob and (fnmatch.fnmatch(path, glob) or path == glob):
            best = max(best, len(glob.replace("*", "").replace("?", "")))
    return best


def _stems(text: str) -> set[str]:
    return {w.lower().rstrip("s") for w in _WORD.findall(text) if len(w) > 2}


def file_order(path: str, words: str = ""):
    """Sort key for the memories of one file: those citing the file or its symbols first (by
    type, priority and age, as hovers order them); then cited memories about other code; then
    standing rules, the most narrowly scoped first, then those sharing most words with the file
    (its path and `words`, e.g. its symbol names), then priority. No number of rules can push
    the file's own memories down."""
    stems = _stems(path.replace("/", " ") + " " + words)

    def key(m: Memory) -> tuple:
        if cites_file(m, path):
            return (0, *hover_order(m), m.id)
        if not is_standing_rule(m):
            return (1, *hover_order(m), m.id)
        shared = len(stems & _stems(m.text))
        return (2, -glob_specificity(m.scope, path), -shared, -PRIORITIES.get(m.priority, 1), m.created, m.id)
    return key
