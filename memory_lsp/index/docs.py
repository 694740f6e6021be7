"""Markdown and reStructuredText: heading chunks for search, and the code they mention.

A mention is a backticked token or a path-like word; the indexer turns mentions that name a
workspace file or symbol into DOCUMENTS edges.
"""

from __future__ import annotations

import re

from memory_lsp.index.facts import Chunk, Mention

DOC_LANGUAGES = {"markdown": (".md", ".markdown"), "rst": (".rst",)}
DOC_EXTENSIONS = {ext: name for name, exts in DOC_LANGUAGES.items() for ext in exts}

_BACKTICKED = re.compile(r"`+([^`\n]{2,120})`+")
_PATHLIKE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|js|jsx|mjs|ts|tsx|go|rs|java|c|h|cc|cpp|hpp|rb))\b")
_RST_UNDERLINE = re.compile(r"^([=\-~^*+#\"'`])\1{2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def extract_doc(facts, data: bytes) -> None:
    lines = data.decode("utf-8", "replace").split("\n")
    sections = _sections(lines, rst=facts.lang == "rst")
    for heading, start, end in sections:
        text = "\n".join(lines[start - 1:end]).strip()
        if text:
            facts.chunks.append(Chunk(heading, "section", start, end, text))
    for heading, start, end in sections:
        for offset, line in enumerate(lines[start - 1:end]):
            tokens = {m.group(1).strip() for m in _BACKTICKED.finditer(line)}
            tokens |= {m.group(1) for m in _PATHLIKE.finditer(line)}
            for token in tokens:
                facts.mentions.append(Mention(heading, start + offset, token))


def _sections(lines: list[str], rst: bool) -> list[tuple[str, int, int]]:
    """(heading, first line, last line), 1-based; text before the first heading is "(top)"."""
    starts = [("(top)", 1)]
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not rst and line.startswith("#"):
            title = line.lstrip("#").strip()
            if title:
                starts.append((title, i + 1))
        elif rst and i > 0 and _RST_UNDERLINE.match(line) and lines[i - 1].strip() \
                and len(line.strip()) >= len(lines[i - 1].strip()):
            starts.append((lines[i - 1].strip(), i))
    if len(starts) > 1 and starts[1][1] <= 2:
        starts.pop(0)
    out = []
    for j, (title, start) in enumerate(starts):
        end = starts[j + 1][1] - 1 if j + 1 < len(starts) else len(lines)
        if end >= start:
            out.append((title, start, end))
    return out
