"""Agent rule files (CLAUDE.md, AGENTS.md, .cursorrules, .mdc...) read into typed rule items.

Pure: reads text, returns items; the caller turns them into memories with provenance.
"""

from __future__ import annotations

import pathlib
import re
import textwrap
from dataclasses import dataclass, field

RULE_FILES = ("CLAUDE.md", "AGENTS.md", ".cursorrules", ".windsurfrules",
              ".github/copilot-instructions.md")
CURSOR_RULES_DIR = ".cursor/rules"
BLOCK_BEGIN = "<!-- memory-lsp:begin -->"
BLOCK_END = "<!-- memory-lsp:end -->"
# plain-text rule files put one rule per line; Markdown wraps a paragraph over several lines
_LINE_PER_RULE = (".cursorrules", ".windsurfrules")

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_RULER = re.compile(r"^\s*([-*_=])(\s*\1){2,}\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$")
_SHELL_FENCES = {"sh", "bash", "shell", "console", "zsh", "powershell", "ps1"}
_COMMAND = re.compile(r"^(?:run\s*:?\s*)?`?\$?\s*(?:make|npm|npx|pnpm|yarn|pip|uv|poetry|python3?|"
                      r"pytest|tox|nox|cargo|go|docker|git|bundle|rake|mvn|gradle|\./)\b", re.I)

# first match wins: a failed attempt is a dead end even when it says "don't"; a prohibition
# is a policy; process (commits, PRs, releases) a workflow; "must" a requirement; a choice of
# tool or style a preference; where things go or how they are shaped a pattern.
_KIND_WORDS = (
    ("dead_end", r"\b(tried|did not work|didn't work|does not work|doesn't work|abandoned)\b"),
    ("policy", r"\b(never|do not|don't|must not|mustn't|shall not|forbidden|not allowed|under no circumstances)\b"),
    ("workflow_recipe", r"\b(commit messages?|conventional commits?|commit format|pull requests?|PRs?|"
                        r"branch(es)? names?|changelog|release notes|code reviews?|rebase|"
                        r"before (pushing|committing|merging|opening))\b"),
    ("requirement", r"\b(must|required|mandatory|needs? to|has to|have to)\b"),
    ("preference", r"\b(prefer\w*|favou?r\w*|avoid\w*|style|always use)\b"
                   r"|\b(use|choose|pick)\b.*\b(instead of|over|rather than)\b"),
    ("decision", r"\b(we chose|decided|decision\w*|because we)\b"
                 r"|\binstead of\b.*\b(because|since|so that)\b|\b(because|since)\b.*\binstead of\b"),
    ("gotcha", r"\b(gotcha\w*|careful|beware|watch out|pitfall\w*|breaks|fails when|caveat\w*)\b"),
    ("pattern", r"\b(patterns?|follow the|naming|named after|(go|goes|belongs?) (in|under|into)|"
                r"put (\w+ )+(in|under|into)|one \w+ per \w+|co-?located|structure (each|every|your))\b"),
    ("requirement", r"\b(always|should|ensure|make sure)\b"),
)
_KINDS = tuple((kind, re.compile(words, re.I)) for kind, words in _KIND_WORDS)
_WORKFLOW_HEADING = re.compile(r"\b(build\w*|test\w*|run\w*|deploy\w*|workflow\w*|setup|set up|"
                               r"install\w*|release\w*)\b", re.I)
_PATTERN_HEADING = re.compile(r"\b(organi[sz]ation|layout|naming|conventions?)\b", re.I)
# words about the rules rather than rules: "STRICTLY FOLLOW BELOW RULES", "Here are the guidelines:"
_FILLER = re.compile(r"^(?:please\s+)?(?:strictly\s+|always\s+|carefully\s+)?(?:follow|adhere to|obey|read|respect)\s+"
                     r"(?:the\s+|these\s+|all\s+|this\s+|my\s+)?(?:below\s+|following\s+)?(?:rules?|instructions?|"
                     r"guidelines?|conventions)(?:\s+below|\s+strictly|\s+carefully)?\W*$"
                     r"|^(?:here are|below are|the following are)\b[^.]*:?$"
                     r"|^you are (?:a|an)\b[^.]*\b(?:assistant|ai|chatbot|language model)\b"
                     r"|^(?:important|note|rules?|instructions?|guidelines?)\s*:?!?$", re.I)
_LEAD_WORDS = 15  # longer than this, a line ending in ':' is a statement, not a lead-in
# a sentence that opens with a verb is an instruction ("Keep functions small"): guidance, not a fact
_IMPERATIVE = re.compile(r"^(?:keep|write|handle|test|group|maintain|use|add|follow|make|put|name|document|check|"
                         r"think|leave|delete|fail|wrap|return|raise|log|validate|include|update|create|"
                         r"organi[sz]e|limit|split|reuse|stick to|stay|place|read|consider|minimi[sz]e)\b", re.I)
_INLINE_COMMAND = re.compile(r"`(?:[A-Z_]+=\S+\s+)*(?:make|npm|npx|pnpm|yarn|uv|poetry|pytest|tox|nox|cargo|go|docker|git)"
                             r"\s+[^`]+`")  # a command with its arguments, not a tool's name
ON_REQUEST = "on-request"  # the scope of an .mdc rule an agent reads only when it asks for it


@dataclass
class RuleItem:
    text: str                 # cleaned; an attached code block follows on the next lines
    type: str
    path: str                 # workspace-relative, posix
    line: int                 # 1-based, where the rule starts
    scope: str | None = None  # comma-separated globs from .mdc front matter
    tags: list[str] = field(default_factory=list)


@dataclass
class _Draft:
    line: int
    heading: str | None
    parts: list[str]
    bullet: bool = False
    indent: int = 0     # of a list item: a deeper item belongs to the lead-in above it
    code: list[str] = field(default_factory=list)
    shell: bool = False  # a shell code block is attached: the rule is a recipe


def find_rule_files(root: pathlib.Path) -> list[pathlib.Path]:
    found = [root / name for name in RULE_FILES if (root / name).is_file()]
    rules_dir = root / CURSOR_RULES_DIR
    if rules_dir.is_dir():
        found += [p for p in rules_dir.rglob("*.mdc") if p.is_file()]
    return sorted(found)


def parse_rules(path: str, text: str) -> list[RuleItem]:
    lines = text.replace("\r\n", "\n").split("\n")
    meta, start = _front_matter(lines)
    scope = None if meta.get("alwaysapply", "").lower() == "true" else _globs(meta.get("globs"))
    if scope is None and meta and meta.get("alwaysapply", "").lower() == "false":
        scope = ON_REQUEST  # "Agent Requested" or "Manual": never a standing rule
    # an .mdc description says what its rules are about: it stands in for a heading
    drafts = _drafts(_visible(lines, start), meta.get("description") or None,
                     line_per_rule=path.rsplit("/", 1)[-1] in _LINE_PER_RULE)
    items = []
    for d in _with_lead_ins(drafts):
        prose = _prose(d)
        body = "\n".join([prose, *d.code]).strip()
        if len(body.split()) < 3 or (not d.code and _FILLER.match(prose)):
            continue
        slug = _slug(d.heading or "")
        items.append(RuleItem(body, classify(prose, d.heading, d.shell), path, d.line, scope,
                              [slug] if slug else []))
    return items


def _prose(d: _Draft) -> str:
    return re.sub(r"\s+", " ", " ".join(d.parts).replace("**", "")).strip()


def _with_lead_ins(drafts: list[_Draft]) -> list[_Draft]:
    """A line ending in ':' before a list ("The project uses:") goes with each item, not alone."""
    out: list[_Draft] = []
    leads: list[tuple[int, str]] = []  # (indent, text) of the lead-ins still open, outermost first
    heading = None  # a lead-in ends with its section
    for i, d in enumerate(drafts):
        following = drafts[i + 1] if i + 1 < len(drafts) else None
        if not d.bullet or heading != d.heading:
            leads = []
        else:
            leads = [(n, t) for n, t in leads if n < d.indent]
        heading = d.heading
        text = _prose(d)
        opens = (text.endswith(":") and not d.code and following is not None and following.bullet
                 and following.heading == d.heading and (not d.bullet or following.indent > d.indent))
        if opens:
            # a long paragraph says something of its own: it stays, and its last sentence leads the items
            lead = re.split(r"(?<=[.!?])\s+", text)[-1]
            if len(lead.split()) <= _LEAD_WORDS:
                leads.append((d.indent if d.bullet else -1, " ".join([*(t for _, t in leads), lead])
                              if d.bullet and leads else lead))
            if lead != text or len(lead.split()) > _LEAD_WORDS:
                out.append(d)
            continue
        if d.bullet and leads:
            d.parts.insert(0, leads[-1][1])
        out.append(d)
    return out


def classify(text: str, heading: str | None = None, shell: bool = False) -> str:
    """The memory type of one rule: its own words first, then the command shape, then its heading."""
    text = text.replace("\u2019", "'")
    for kind, pattern in _KINDS:
        if pattern.search(text):
            return kind
    if shell or _COMMAND.match(text) or _INLINE_COMMAND.search(text):
        return "workflow_recipe"
    for kind, pattern in (*_KINDS, ("workflow_recipe", _WORKFLOW_HEADING), ("pattern", _PATTERN_HEADING)):
        if heading and pattern.search(heading):
            return kind
    return "preference" if _IMPERATIVE.match(text) else "fact"


def _drafts(visible: list[tuple[int, str]], heading: str | None, line_per_rule: bool) -> list[_Draft]:
    drafts: list[_Draft] = []
    open_rule = None  # the rule that continuation lines still join
    last = None       # the rule a following code block belongs to (none after a heading)
    fence = None      # lines of the code block being read
    for i, (number, line) in enumerate(visible):
        if fence is not None:
            fence.append(line)
            if _FENCE.match(line) and line.strip().startswith(fence[0].strip()[:3]):
                _attach(last, fence)
                fence = None
            continue
        stripped = line.strip()
        if _FENCE.match(line):
            fence, open_rule = [line], None
        elif not stripped or _RULER.match(line):
            open_rule = None
        elif heading_match := _HEADING.match(line):
            heading, open_rule, last = heading_match.group(1), None, None
        elif stripped.startswith("|"):
            following = visible[i + 1][1] if i + 1 < len(visible) else ""
            if not _TABLE_SEPARATOR.match(line) and not _TABLE_SEPARATOR.match(following):
                cells = [c.strip() for c in stripped.strip("|").split("|")]
                last = _Draft(number, heading, [" — ".join(c for c in cells if c)])
                drafts.append(last)
            open_rule = None
        elif bullet := _BULLET.match(line):
            open_rule = last = _Draft(number, heading, [bullet.group(1)], bullet=True,
                                      indent=len(line) - len(line.lstrip()))
            drafts.append(last)
        elif open_rule is not None and (line[:1].isspace() or not (line_per_rule or open_rule.bullet)):
            open_rule.parts.append(stripped.lstrip("> "))
        elif line[:1].isspace() and last is not None and last.bullet:  # a loose list item goes on
            open_rule = last
            last.parts.append(stripped)
        else:
            open_rule = last = _Draft(number, heading, [stripped.lstrip("> ")])
            drafts.append(last)
    if fence is not None:
        _attach(last, fence)
    return drafts


def _attach(draft: _Draft | None, fence: list[str]) -> None:
    """Code belongs to the rule before it; a code block with no rule before it is dropped."""
    if draft is None:
        return
    draft.code.append(textwrap.dedent("\n".join(fence)).strip())
    draft.shell = draft.shell or _FENCE.match(fence[0]).group(2).lower() in _SHELL_FENCES


def _visible(lines: list[str], start: int) -> list[tuple[int, str]]:
    """(1-based line number, line) without HTML comments and without our own export block."""
    out: list[tuple[int, str]] = []
    in_block = in_comment = False
    for number, line in enumerate(lines[start:], start + 1):
        if in_block or BLOCK_BEGIN in line:
            in_block = BLOCK_END not in line
            out.append((number, ""))  # the block separates what is around it
            continue
        kept, rest = "", line
        while rest:
            if in_comment:
                end = rest.find("-->")
                rest, in_comment = ("", True) if end < 0 else (rest[end + 3:], False)
            else:
                begin = rest.find("<!--")
                if begin < 0:
                    kept, rest = kept + rest, ""
                else:
                    kept, rest, in_comment = kept + rest[:begin], rest[begin + 4:], True
        if kept.strip() or not line.strip():
            out.append((number, kept))
    return out


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """Keys of a leading `---` YAML block (lower-cased; block lists joined by commas) and the line after it."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    meta: dict[str, str] = {}
    key = None
    for i, line in enumerate(lines[1:], 1):
        if line.strip() in ("---", "..."):
            return meta, i + 1
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and key:
            meta[key] = ", ".join(filter(None, [meta[key], item.group(1)]))
        elif pair := re.match(r"^([\w-]+)\s*:\s*(.*)$", line):
            key = pair.group(1).lower()
            meta[key] = pair.group(2).strip().strip("'\"")
    return {}, 0  # no closing line: not front matter


def _globs(value: str | None) -> str | None:
    """`a, b`, `["a", "b"]` or a block list, as one comma-separated string of globs."""
    if not value:
        return None
    globs = [g.strip().strip("'\"") for g in value.strip().strip("[]").split(",")]
    return ",".join(g for g in globs if g) or None


def _slug(heading: str) -> str:
    words = re.findall(r"[a-z0-9]+", heading.lower())
    return "-".join(words[:5])  # a long heading or description makes a tag, not a sentence
