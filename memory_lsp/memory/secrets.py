"""Secret scanner: runs before a memory is stored in the event log, exported or injected.

Provider-specific rules (the token shapes of gitleaks and GitHub secret scanning) almost never
match ordinary text, so their findings block the write. Generic assignments and high-entropy
strings are noisy: they only warn, but redact() masks them too. Call strip_invisible() first:
a zero-width character inside a token splits it and hides it from every rule.
Offsets, lines and columns count Python characters (code points), not UTF-16 units.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

BLOCK, WARN = "block", "warn"


@dataclass(frozen=True)
class Finding:
    """One secret: start/end are offsets into the scanned text, line and column count from 1,
    severity is "block" (provider-specific rules) or "warn" (generic and high-entropy rules)."""

    rule: str
    description: str
    start: int
    end: int
    line: int
    column: int
    severity: str


def _re(pattern: str) -> re.Pattern[str]:
    # ASCII: \w and \b mean what the token alphabets mean, not any Unicode letter
    return re.compile(pattern, re.ASCII)


_PEM_BEGIN = r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
_TOKEN_START = r"(?<![\w-])"  # not \b: in a-a-a-... every dash would restart a scan
_SCHEME = r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://"
_ASSIGN_OP = r"""["']?\s*(?::=|=>|[:=])\s*"""

# (rule, description, pattern): the secret is the first group that matched, else the whole match
_RULES = [
    # a base64 body must follow, so naming the header in prose is no finding; a key cut short
    # still leaks, so without a footer the finding runs to the end of the text
    ("private-key", "Private key", _re(
        _PEM_BEGIN + r"(?=[\s\S]{0,200}?[A-Za-z0-9+/]{40})[\s\S]*?(?:" + _PEM_END + r"|\Z)")),
    ("gcp-service-account", "GCP service account private key", _re(
        r'"type"\s*:\s*"service_account"[\s\S]{0,4000}?"private_key"\s*:\s*"([^"]{64,})"')),
    ("aws-access-key-id", "AWS access key ID", _re(
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b")),
    ("aws-secret-access-key", "AWS secret access key", _re(
        r"(?i:\b(?:aws_?)?secret_?access_?key)" + _ASSIGN_OP
        + r"""["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""")),
    ("github-token", "GitHub token", _re(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{82,})\b")),
    ("gitlab-token", "GitLab personal access token", _re(_TOKEN_START + r"glpat-[\w-]{20,}(?![\w-])")),
    # bot/user/legacy tokens, config tokens (xoxe.xoxp-1-...), refresh tokens (xoxe-1-...) and
    # app-level tokens (xapp-1-...): a digit somewhere, so kebab-case prose is no finding
    ("slack-token", "Slack token", _re(
        _TOKEN_START + r"(?:xoxe\.)?(?:xox[abeoprs]|xapp)-(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+"
        r"(?<=[A-Za-z0-9-]{20})(?![\w-])")),
    ("slack-webhook", "Slack webhook URL", _re(
        r"(?:https?://)?hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}")),
    ("stripe-key", "Stripe secret key", _re(r"\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{24,}\b")),
    ("anthropic-api-key", "Anthropic API key", _re(_TOKEN_START + r"sk-ant-[a-z]{2,8}\d\d-[\w-]{32,}")),
    # sk-learn, sk-image-1 and kebab-case names: real keys are long and mix digits and capitals
    ("openai-api-key", "OpenAI API key", _re(
        _TOKEN_START + r"sk-(?!ant-)(?=[\w-]*\d)(?=[\w-]*[A-Z])[\w-]{20,}(?![\w-])")),
    ("gcp-api-key", "Google API key", _re(r"\bAIza[\w-]{35}(?![\w-])")),
    ("npm-token", "npm access token", _re(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi-token", "PyPI upload token", _re(
        r"\bpypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[\w-]{50,}")),
    ("huggingface-token", "Hugging Face access token", _re(
        r"\b(?:hf|api_org)_(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{30,}\b")),
    ("jwt", "JSON Web Token", _re(_TOKEN_START + r"eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]{10,}")),
    ("url-credentials", "Password in a URL", _re(
        _SCHEME + r"[^\s:/@]*:([^\s/@]+)@[\w\[.-]")),
    ("twilio-api-key", "Twilio API key", _re(r"(?<![A-Za-z0-9])SK(?=[0-9a-fA-F]*\d)(?:[0-9a-f]{32}|[0-9A-F]{32})(?![A-Za-z0-9])")),
    ("twilio-auth-token", "Twilio auth token", _re(
        r"(?i:twilio[\w.-]{0,30}?(?:auth|token|secret|key)\w*)" + _ASSIGN_OP + r"""["']?([0-9a-fA-F]{32})(?![\w])""")),
    ("sendgrid-api-key", "SendGrid API key", _re(r"\bSG\.[\w-]{22}\.[\w-]{43}(?![\w-])")),
    ("azure-storage-key", "Azure storage account key", _re(r"(?i:AccountKey)=([A-Za-z0-9+/]{86}==)")),
    ("azure-storage-key", "Azure key in an assignment", _re(
        r"(?i:azure[\w.-]{0,40}?(?:key|secret|password|token)\w*)" + _ASSIGN_OP
        + r"""["']?([A-Za-z0-9+/]{40,}={0,2})(?![\w+/=])""")),
    # shared access signatures: the sig parameter of a SAS URL or connection string
    ("azure-sas-signature", "Azure shared access signature", _re(
        r"(?i:[?&;]sig=)((?:[A-Za-z0-9+/]|%2[BbFf]|%3[Dd]){30,}={0,2})")),
]

_PLACEHOLDER = _re(
    r"(?i)^(?:changeme|change_me|password|passwd|pass|pwd|secret|token|dummy|placeholder|redacted"
    r"|none|null|nil|true|false)$"
    r"|^[<{\[].*[>}\]]$|^\$\{?\w+\}?$|^%\(\w+\)s$|^[\d.]+$|^[*x.]+$"  # <key> {key} ${KEY} $KEY %(k)s
    r"|([*x#0])\1{5,}|example|your[_-]")  # xxxxxx, ******, 000000 (a random token may hold 0000); AWS docs' ...EXAMPLE keys

_ASSIGN = _re(
    r"(?i)(?<![\w.-])[\w.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|auth[_-]?key)s?" + _ASSIGN_OP + r"""(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`,;&)}\]]+))""")
# an unquoted dotted name, call or subscript (settings.KEY, getenv(, os.environ[) fetches
# the secret rather than being it
_CODE_REF = _re(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:[(\[].*)?")

_CANDIDATE = _re(r"(?<![\w+/=-])[\w+/-]{32,}={0,2}(?![\w+/=-])")
_URL = _re(_SCHEME + r"\S+")
_UUID = _re(r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_HEX = _re(r"[0-9a-fA-F]+")
_CLASS_RUN = _re(r"[A-Z]*[a-z]+|[A-Z]+|[0-9]+")

# Characters that render as nothing or reorder what is shown: a reviewer approves text that
# looks harmless while an agent still reads the hidden part (e.g. ASCII smuggled as Unicode tags).
_INVISIBLE = re.compile(
    "[\U000E0000-\U000E007F\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C"
    "\u200B-\u200D\u2060\uFEFF\u180E\u00AD]")


def scan(text: str) -> list[Finding]:
    """Every secret in text, sorted by start; of overlapping findings the block one, then the longest."""
    found = []
    for rule, description, pattern in _RULES:
        for m in pattern.finditer(text):
            start, end = _secret_span(m)
            if not _PLACEHOLDER.search(text[start:end]):
                found.append(_finding(text, rule, description, start, end, BLOCK))
    found += _assignments(text)
    found += _high_entropy(text)
    kept: list[Finding] = []
    # stable sort: on a tie the earlier rule (provider, then assignment, then entropy) wins
    for f in sorted(found, key=lambda f: (f.severity != BLOCK, f.start - f.end)):
        if all(f.end <= k.start or k.end <= f.start for k in kept):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


def blocking(findings) -> list[Finding]:
    return [f for f in findings if f.severity == BLOCK]


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """text with every finding, block or warn, replaced by [REDACTED:<rule>]."""
    if findings is None:
        findings = scan(text)
    out, pos = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        if f.end <= pos:
            continue
        out += [text[pos:max(f.start, pos)], f"[REDACTED:{f.rule}]"]
        pos = f.end
    return "".join(out) + text[pos:]


# A line can hold a secret only if it has a long token-like run with a digit or both cases, a URL,
# or a key word; a multi-line secret (PEM, service-account JSON) names itself in the text.
_HINT_RUN = re.compile(rb"[A-Za-z0-9_+/=-]{16,}")
# a run that is no hint: no digit, and its letters all lower or all upper case (snake_case, CONSTANT)
_PLAIN_RUN = re.compile(rb"[_+/=-]*(?:[a-z][a-z_+/=-]*|[A-Z][A-Z_+/=-]*)")
_HINT_WORD = re.compile(rb"://|passw|pwd|secret|token|eyj|(?:api|access|private|auth)[_-]?key")
_HINT_WORD_PARTS = (b"://", b"passw", b"pwd", b"secret", b"token", b"eyj", b"key")  # one in each of its matches
_MULTILINE_MARKS = ("PRIVATE KEY", "service_account")


def redact_file_text(text: str) -> str:
    """redact() for workspace files (the search index's code chunks): the same rules, but only
    on the lines that could hold a secret (scan() of a whole file costs about 3 s per MB)."""
    if any(mark in text for mark in _MULTILINE_MARKS):
        return redact(text)
    data = text.encode("utf-8", "surrogatepass")  # offsets only pick lines: bytes are enough
    lower = data.lower()  # a substring search is much faster than the regex, which most chunks need not run
    hits = [m.start() for m in _HINT_WORD.finditer(lower)] if any(w in lower for w in _HINT_WORD_PARTS) else []
    hits += [m.start() for m in _HINT_RUN.finditer(data) if not _PLAIN_RUN.fullmatch(m.group())]
    if not hits:
        return text
    lines = text.split("\n")
    number, pos, done = 0, 0, -1
    for h in sorted(hits):  # a hit's line: the newlines before it, counted on from the last hit
        number += data.count(b"\n", pos, h)
        pos = h
        if number != done:
            lines[number] = redact(lines[number])
            done = number
    return "\n".join(lines)


def describe(f: Finding) -> str:
    return f"{f.description} ({f.rule}) at line {f.line}, column {f.column}"


def strip_invisible(text: str) -> tuple[str, int]:
    """(text without invisible characters, how many were removed).

    Kept, because text means something else without them: ZWJ inside an emoji sequence
    (family, rainbow flag), ZWJ/ZWNJ between letters of a script that shapes with them
    (Persian, Devanagari, ...), and the tag characters of a subdivision flag.
    """
    removed = 0

    def drop(m: re.Match[str]) -> str:
        nonlocal removed
        if m.group() in "\u200c\u200d" and _joiner_needed(text, m.start(), m.group()):
            return m.group()
        removed += 1
        return ""

    out, pos = [], 0
    for flag in _TAG_FLAG.finditer(text):
        out += [_INVISIBLE.sub(drop, text[pos:flag.start()]), flag.group()]
        pos = flag.end()
    out.append(_INVISIBLE.sub(drop, text[pos:]))
    return "".join(out), removed


# black flag + tag letters/digits + cancel tag: England, Scotland, Wales
_TAG_FLAG = re.compile("\U0001F3F4[\U000E0030-\U000E0039\U000E0061-\U000E007A]{2,6}\U000E007F")
_JOINING_SCRIPTS = ("ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "DEVANAGARI", "BENGALI", "GURMUKHI",
                    "GUJARATI", "ORIYA", "TAMIL", "TELUGU", "KANNADA", "MALAYALAM", "SINHALA",
                    "MYANMAR", "KHMER", "TIBETAN", "THAANA", "MANDAIC")


def _joiner_needed(text: str, at: int, joiner: str) -> bool:
    before, after = text[at - 1:at], text[at + 1:at + 2]
    if not before or not after:
        return False
    if joiner == "\u200d" and _emoji_part(before) and _emoji(after):
        return True
    return _script_letter(before) is not None and _script_letter(before) == _script_letter(after)


def _emoji(c: str) -> bool:
    o = ord(c)
    return 0x1F000 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF or 0x2B00 <= o <= 0x2BFF or o in (0x2640, 0x2642, 0x2695)


def _emoji_part(c: str) -> bool:
    """An emoji, or what may end one before a ZWJ (variation selector 16, a keycap)."""
    return _emoji(c) or c in "\ufe0f\u20e3"


def _script_letter(c: str) -> str | None:
    """The joining script of a letter or mark (a virama before ZWJ), else None."""
    if not unicodedata.category(c).startswith(("L", "M")):
        return None
    name = unicodedata.name(c, "")
    return next((s for s in _JOINING_SCRIPTS if name.startswith(s + " ")), None)


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    for i in range(1, m.re.groups + 1):
        if m.group(i) is not None:
            return m.span(i)
    return m.span()


def _finding(text: str, rule: str, description: str, start: int, end: int, severity: str) -> Finding:
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return Finding(rule, description, start, end, line, column, severity)


def _assignments(text: str) -> list[Finding]:
    out = []
    for m in _ASSIGN.finditer(text):
        start, end = _secret_span(m)
        value = text[start:end]
        if len("".join(value.split())) < 8 or _PLACEHOLDER.search(value):
            continue
        if m.group(3) is not None and _CODE_REF.fullmatch(value) and (
                re.search(r"[.(\[]", value) or not re.search(r"\d", value)):
            continue
        out.append(_finding(text, "generic-secret-assignment", "Possible secret in an assignment",
                            start, end, WARN))
    return out


def _high_entropy(text: str) -> list[Finding]:
    urls = [m.span() for m in _URL.finditer(text)]
    out = []
    for m in _CANDIDATE.finditer(text):
        if any(a <= m.start() < b for a, b in urls) or not _random_looking(m.group()):
            continue
        out.append(_finding(text, "high-entropy-string", "High-entropy string",
                            m.start(), m.end(), WARN))
    return out


def _random_looking(s: str) -> bool:
    if not (re.search(r"[A-Za-z]", s) and re.search(r"\d", s)) or _UUID.search(s):
        return False
    if _HEX.fullmatch(s):
        # commit SHAs (7 to 40 hex) are everyday memory content
        return len(s) > 40 and _entropy(s) >= 3.0
    # words, identifiers and paths come in long runs of one character class (src/memory_lsp,
    # batch_of_200); random text switches class every one or two characters
    runs = _CLASS_RUN.findall(s)
    return sum(map(len, runs)) / len(runs) < 4 and _entropy(s) >= 4.0


def _entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())
