"""`memory-lsp consolidate`: near-duplicates proposed for merge, contradictions for supersede.

Nothing changes until a person accepts a proposal by its id (`--apply ID...`); each accepted
proposal is written as the usual `memory.superseded` events (the kept or newer memory named as
`by`), so `memories --at` still shows what was there before. Ids hash the kind and the members,
so the same proposal has the same id on every run.

Near-duplicates: cosine >= 0.88 between the offline embedder's vectors (DESIGN.md section 2), same
polarity. Contradictions: two memories citing the same code whose words are nearly the same once
negations and numbers are set aside, but one says "not" where the other does not, or the numbers
differ ("the timeout is 30 s" / "the timeout is 60 s"). The newer one is proposed to supersede.
"""

from __future__ import annotations

import hashlib
import re

from memory_lsp.commands.spec import Command, Param
from memory_lsp.errors import UserError
from memory_lsp.memory.model import PRIORITIES, Memory

DUPLICATE = 0.88
SAME_CLAIM = 0.8  # words this close, negation and numbers aside, make the same claim about the code
_NEGATION = re.compile(r"\b(?:not|never|no|none|without|avoid|don't|doesn't|isn't|aren't|won't|can't|cannot|"
                       r"shouldn't|mustn't|didn't|wasn't|n't)\b", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_PATH = re.compile(r"[\w.-]*\w/[\w./-]*\w")  # a path or URL tail: two rules about different files differ


def consolidate(ws, a, ctx) -> dict:
    live = [m for m in ws.memories() if m.valid_to is None]
    pairs, how = _close_pairs([m.text for m in live])
    contradictions = _contradictions(live)
    opposed = {frozenset([p["keep"], *p["retire"]]) for p in contradictions}
    proposals = contradictions + _duplicates(live, pairs, opposed)
    applied = []
    if a.apply:
        by_id = {p["id"]: p for p in proposals}
        unknown = [i for i in a.apply if i not in by_id]
        if unknown:
            raise UserError(f"no proposal {unknown[0]!r} (run `memory-lsp consolidate` to list them; "
                            "an applied one is gone)")
        everything = {m.id: m for m in ws.memories(include_retired=True)}
        retired: set[str] = set()
        for pid in dict.fromkeys(a.apply):
            p = by_id[pid]
            if retired & {p["keep"], *p["retire"]}:
                raise UserError(f"proposal {pid} overlaps one applied before it in this run; run consolidate again")
            for old in p["retire"]:
                why = (f"near-duplicate of {p['keep']}" if p["kind"] == "merge" else f"contradicted by {p['keep']}")
                ws.book.forget(everything, old, reason=why + " (consolidate)", by=p["keep"])
                retired.add(old)
            applied.append(pid)
        ws.sync_memories()
    return {"similarity": how, "proposals": [p for p in proposals if p["id"] not in applied], "applied": applied}


def _close_pairs(texts: list[str]) -> tuple[dict[tuple[int, int], float], str]:
    """{(i, j): cosine} of the memories at least DUPLICATE alike: the offline embedder's vectors,
    else word counts (said in `how`). A lead-in that several items share ("The project uses: X")
    is left out, so that the items of one list are compared on what each says."""
    texts = _without_shared_lead_ins(texts)
    if len(texts) < 2:
        return {}, "none"
    try:
        from memory_lsp.retrieval.embedder import Embedder

        vectors = Embedder().encode(texts)
    except (RuntimeError, OSError, ImportError):  # no model installed: still useful, less so
        scores = ((i, j, _lexical(texts[i], texts[j])) for i in range(len(texts))
                  for j in range(i + 1, len(texts)))
        return {(i, j): s for i, j, s in scores if s >= DUPLICATE}, "lexical"
    matrix = vectors @ vectors.T
    rows, cols = (matrix >= DUPLICATE).nonzero()
    return {(int(i), int(j)): float(matrix[i, j]) for i, j in zip(rows, cols) if i < j}, "embedding"


def _without_shared_lead_ins(texts: list[str]) -> list[str]:
    leads = [t.split(": ", 1)[0] if ": " in t and len(t.split(": ", 1)[0].split()) <= 15 else None for t in texts]
    shared = {lead for lead in leads if lead and leads.count(lead) > 1}
    return [t.split(": ", 1)[1] if lead in shared else t for t, lead in zip(texts, leads)]


def _duplicates(live: list[Memory], pairs: dict[tuple[int, int], float], opposed: set[frozenset]) -> list[dict]:
    parent = list(range(len(live)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    negated = [_negated(m.text) for m in live]
    paths = [set(_PATH.findall(m.text)) for m in live]
    closest: dict[tuple[int, int], float] = {}
    for (i, j), score in pairs.items():
        if negated[i] != negated[j] or frozenset([live[i].id, live[j].id]) in opposed:
            continue  # "always X" and "never X" are close vectors and opposite rules
        if paths[i] and paths[j] and paths[i] != paths[j]:
            continue  # "read docs/AGENTS.md" and "read tests/AGENTS.md": close vectors, two rules
        closest[(i, j)] = score
        parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(live)):
        groups.setdefault(root(i), []).append(i)
    out = []
    for members in (g for g in groups.values() if len(g) > 1):
        ms = [live[i] for i in members]
        keep = min(ms, key=_keeper)
        score = min(s for (i, j), s in closest.items() if i in members and j in members)
        out.append(_proposal("merge", keep, [m for m in ms if m is not keep], round(score, 3),
                             "say the same thing: keep one"))
    return out


def _contradictions(live: list[Memory]) -> list[dict]:
    out, seen = [], set()
    citing: dict[str, list[Memory]] = {}  # only memories that cite the same code can contradict
    for m in live:
        for where in _cited(m):
            citing.setdefault(where, []).append(m)
    for group in citing.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if (a.id, b.id) in seen:
                    continue
                shared = _cited(a) & _cited(b)
                seen.add((a.id, b.id))
                plain = _lexical(_bare(a.text), _bare(b.text))
                flipped = _negated(a.text) != _negated(b.text)
                numbers = _NUMBER.findall(a.text) != _NUMBER.findall(b.text)
                if plain >= SAME_CLAIM and (flipped or numbers):
                    older, newer = sorted((a, b), key=lambda m: (m.created, m.id))
                    why = "opposite claims" if flipped else "different numbers"
                    out.append(_proposal("supersede", newer, [older], round(plain, 3),
                                         f"{why} about {sorted(shared)[0]}: the newer one wins"))
    return out


def _proposal(kind: str, keep: Memory, retire: list[Memory], score: float, why: str) -> dict:
    ids = sorted(m.id for m in retire)
    digest = hashlib.blake2b(f"{kind}:{keep.id}:{','.join(ids)}".encode(), digest_size=4).hexdigest()
    return {"id": f"{kind[0]}{digest}", "kind": kind, "keep": keep.id, "retire": ids, "score": score, "why": why,
            "texts": {m.id: m.text for m in [keep, *retire]}}


def _keeper(m: Memory) -> tuple:
    """The one a merge keeps: pinned, reviewed, most important, cited, then the oldest."""
    return (not m.pinned, m.needs_review, -PRIORITIES.get(m.priority, 1), not m.citations, m.created, m.id)


def _cited(m: Memory) -> set[str]:
    return {f"{c.now.path}::{c.now.symbol}" if c.now.symbol else c.now.path
            for c in m.citations if c.state != "orphaned"}


def _negated(text: str) -> bool:
    return len(_NEGATION.findall(text.replace("\u2019", "'"))) % 2 == 1


def _lexical(a: str, b: str) -> float:
    from memory_lsp.memory.capture import lexical_similarity  # not on the way of every CLI command

    return lexical_similarity(a, b)


def _bare(text: str) -> str:
    return _NUMBER.sub(" ", _NEGATION.sub(" ", text.replace("\u2019", "'")))


COMMANDS = (
    Command("memory.consolidate", consolidate, reads_memories=True, writes_memories=True,
            help="propose merging near-duplicate memories and superseding contradicted ones", params={
                "apply": Param(list, [], metavar="ID", help="accept these proposals (repeat; default: only list them)")}),
)
