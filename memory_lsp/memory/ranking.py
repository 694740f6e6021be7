"""One home for how memories are ordered and weighed: which types come first where, how much
each type and each source counts in search. (Priorities and half-lives are part of the type
itself: `model.TYPES`, `model.PRIORITIES`.)
"""

from __future__ import annotations

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
