"""Auto-capture: memory candidates from free text an agent passes in (a transcript, notes).

Regex patterns pick the sentences (seed 004); an importance score keeps the novel and salient
ones (seed 002). No model calls: `similarity` is pluggable, lexical by default.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Callable

THRESHOLD = 0.3
DUPLICATE = 0.88  # as consolidation: closer than this to an earlier candidate is the same memory

_PREFERENCE = re.compile(r"\b(i|we)\s+(?:really\s+|much\s+|always\s+)?(?:prefer|like|love|hate|dislike)\b"
                         r"|\b(?:always|never)\s+use\b|\bi always\b|\bmy favou?rite\b"
                         r"|\b(?:i'd|i would|we'd|we would)\s+(?:much\s+)?(?:rather|prefer)\b"
                         r"|^use\b.*\b(?:for|instead|over|rather than|whenever|when|inside|everywhere)\b", re.I)
_CONSTRAINT = re.compile(r"\bmust\b|\brequired\b|\b(?:don't|do not) ever\b|\bnever\b(?!\s+use\b)"
                         r"|\bforbidden\b|\b(?:has|have) to\b|\bnot allowed\b|\bmake sure\b|\bbe sure to\b"
                         r"|\bensure\b|, ever\b|\bever\.$", re.I)
# an order at the head of a sentence: "Don't ...", "Keep ...", "No sleeps in tests"
_IMPERATIVE = re.compile(r"^(?:don't|do not|avoid|keep|always|stop|remember to|only)\b|^no\s+(?!,)[a-z]", re.I)
_FAILED = (r"(?:fail\w*|didn't work|did not work|doesn't work|does not work|broke\w*|too slow|not worth|"
           r"abandon\w*|gave up|no luck|couldn't|could not|dead end)")
_DEAD_END = re.compile(rf"\b(?:tried|attempted|tested)\b(?=.*\b{_FAILED}\b)|\b{_FAILED}\b.*\b(?:tried|attempted)\b"
                       r"|\bdead end\b|\bgave up on\b", re.I)
_CORRECTION = re.compile(r"^(?:actually|no)\b\s*[,:]|\bactually,|\bnot\b[^.]{1,80}?\bbut\b"
                         r"|\bthat'?s (?:wrong|incorrect|not right)\b|\binstead\b|\brevert\b|\bundo that\b"
                         r"|\banymore\b|\bno longer\b|\b(?:moved|switched) (?:off|away from|to)\b|\bwe dropped\b|\w, not \w", re.I)
# how the team works: "We use zerolog", "We run tests with pytest"
_CONVENTION = re.compile(r"^(?:we|our team|the team)\s+always\b|^(?:we|our team|the team)\s+(?:always\s+|only\s+|usually\s+)?(?:use|run|put|keep|freeze|"
                         r"write|deploy|pin|store|support|build|release)\b|\b(?:is|are) always\b"
                         r"|\b(?:go|goes|live|lives|belong|belongs) (?:in|under|into)\b|^\S+(?: \S+){0,2} only\.?$", re.I)
_GOTCHA = re.compile(r"^careful\b|\bbeware\b|\bwatch out\b|\b(?:breaks|crashes|hangs|times out|fails)\s+(?:when|if|above|below|with|on|under)\b"
                     r"|\bnot (?:fork|thread|async)-safe\b", re.I)
# content before speech act: "Actually, you must X" is a rule and "No, I prefer X" a preference;
# a failed attempt is a dead end even when it says "don't"
PATTERNS = (
    ("dead_end", _DEAD_END, "dead_end", "high"),
    ("preference", _PREFERENCE, "preference", "medium"),
    ("constraint", _CONSTRAINT, "policy", "critical"),
    ("imperative", _IMPERATIVE, "policy", "high"),
    ("correction", _CORRECTION, "fact", "high"),
    ("convention", _CONVENTION, "policy", "high"),
    ("gotcha", _GOTCHA, "gotcha", "high"),
)
# said in passing, not about the project
_FILLER = re.compile(r"\b(?:don't worry|no worries|no problem|never mind|don't know|not sure|no idea|no rush)\b", re.I)
# words that open a sentence without changing what it asks: "Please don't", "Right, no match statements"
_LEAD = re.compile(r"^(?:(?:please|and|also|so|ok|okay|right|yes|yeah|sure|good|fine|hmm|then|oh)\b[,.!]?\s*)+", re.I)
USER_ROLES = frozenset({"user", "human", "me"})

_ROLE = re.compile(r"^\s*(?:>\s*)*(?:(?:user|human|me|assistant|ai|agent|system|claude|model)\s*:\s*)?"
                   r"(?:[-*+]\s+)?", re.I)
_SPEAKER = re.compile(r"^\s*(?:>\s*)*(user|human|me|assistant|ai|agent|system|claude|model)\s*:", re.I)
_DISCOURSE = re.compile(r"^(?:actually|no)\s*[,:]\s*", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf)\.$", re.I)

_IDENTIFIER = re.compile(r"`[^`]+`|\b[a-z0-9]+_[a-z0-9_]+\b|\b[A-Z][a-z0-9]+[A-Z]\w*|\b[a-z]+[A-Z]\w*"
                         r"|\w/\w|\.py\b")
_CAPITALIZED = re.compile(r"(?<=\s)[A-Z][a-z]+\b")  # not the first word; "I" has no lowercase
_NUMBER = re.compile(r"\b\d")
_TECHNICAL = re.compile(r"`[^`]+`|\b[A-Za-z_]\w*\.[A-Za-z_]\w*")
_TOKEN = re.compile(r"[a-z0-9_]+")
_STOP = frozenset("""a an and are as at be been but by do does for from has have i if in into is it
its me my of on or our so that the their them then there these they this to was we were will with
you your""".split())


@dataclass
class Candidate:
    text: str
    type: str
    priority: str
    pattern: str
    salience: float
    novelty: float
    importance: float


def clean(text: str) -> str:
    """Seed 002 cleaning: NFC, stripped, runs of blank lines collapsed to one."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").strip()
    return re.sub(r"\n\s*\n+", "\n\n", text)


def split_sentences(text: str, roles: frozenset[str] | None = None) -> list[str]:
    """Sentences of `text`, one line at most each, without role prefixes or fenced code.

    With `roles`, only the turns of those speakers ("User:", "Assistant:", ...); a line without
    a prefix belongs to the turn above it, and text with no prefix at all is the user's own notes.
    """
    sentences: list[str] = []
    in_fence = False
    lines = clean(text).split("\n")
    speaker = "user"
    if roles is not None and not any(_SPEAKER.match(line) for line in lines):
        roles = None
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence  # code is not a statement about the project
            continue
        if who := _SPEAKER.match(line):
            speaker = who.group(1).lower()
        line = _ROLE.sub("", line).strip()
        if in_fence or not line or (roles is not None and speaker not in roles):
            continue
        pieces: list[str] = []
        for piece in _SENTENCE_END.split(line):
            if pieces and _ABBREVIATION.search(pieces[-1]):
                pieces[-1] += " " + piece
            else:
                pieces.append(piece)
        sentences += [p.strip() for p in pieces if p.strip()]
    return sentences


def capture(text: str, existing: list[str], threshold: float = THRESHOLD,
            similarity: Callable[[str, str], float] | None = None,
            roles: frozenset[str] | None = USER_ROLES) -> list[Candidate]:
    """Candidates from the user's turns (`roles=None`: every turn), novel and salient enough."""
    similarity = similarity or lexical_similarity
    kept: list[Candidate] = []
    for sentence in split_sentences(text, roles):
        fired = _pattern(sentence)
        if fired is None:
            continue
        name, kind, priority = fired
        body = _DISCOURSE.sub("", sentence) if name == "correction" else sentence
        if any(_normal(body) == _normal(c.text) for c in kept):
            continue  # only a repeat; "status < 500" after "status >= 500" is a correction, kept
        sal = salience(sentence)
        novelty = 1.0 - max((similarity(body, e) for e in existing), default=0.0)
        novelty = min(1.0, max(0.0, novelty))
        # rounded so that float noise does not decide a candidate on the threshold
        importance = round(novelty * 0.6 + sal * 0.4, 4)
        if importance >= threshold:
            kept.append(Candidate(body, kind, priority, name, sal, round(novelty, 4), importance))
    return kept


def _pattern(sentence: str) -> tuple[str, str, str] | None:
    """The first pattern that fires on a statement; questions, asides and two-word replies are none."""
    text = sentence.replace("\u2019", "'").strip()
    if text.endswith("?") or _FILLER.search(text) or len(text.split()) < 3:
        return None
    head = _LEAD.sub("", text)
    return next(((name, kind, priority) for name, regex, kind, priority in PATTERNS
                 if regex.search(head)), None)


def salience(sentence: str) -> float:
    """Seed 002 content signals, adapted to code: identifiers count as named entities."""
    score = 0.0
    if _IDENTIFIER.search(sentence) or _CAPITALIZED.search(sentence):
        score += 0.3
    if _NUMBER.search(sentence):
        score += 0.2
    if _PREFERENCE.search(sentence):
        score += 0.4
    if _TECHNICAL.search(sentence):
        score += 0.1
    return round(min(score, 1.0), 4)


def lexical_similarity(a: str, b: str) -> float:
    """Cosine of word counts, stop words dropped; 0 when either side has no words left."""
    ca, cb = _words(a), _words(b)
    dot = sum(n * cb[w] for w, n in ca.items())
    norm = math.sqrt(sum(n * n for n in ca.values())) * math.sqrt(sum(n * n for n in cb.values()))
    return min(1.0, dot / norm) if norm else 0.0


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _words(text: str) -> Counter:
    return Counter(w for w in _TOKEN.findall(text.lower()) if w not in _STOP)
