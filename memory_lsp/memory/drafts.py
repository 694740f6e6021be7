"""Teach drafts: `.memory/drafts/<id>.md`, a short file an editor opens when it cannot prompt for a
memory's text. It holds the citations and the type, and a line for the text; saving it with text
stores the memory (the server does that, then deletes the draft).

The format is plain lines so that any editor can fill it in:

    <!-- ... what to do ... -->
    type: gotcha
    cite: app/core.py::Store.add
    text:
    The memory's text, on the line after `text:` (or on it), as many lines as it needs.
"""

from __future__ import annotations

import secrets as _random
import time
from pathlib import Path
from typing import NamedTuple

from memory_lsp.errors import UserError
from memory_lsp.paths import MEMORY_DIR, memory_dir

DRAFTS = f"{MEMORY_DIR}/drafts"
HELP = ("<!-- Write the memory below `text:` and save: it is stored and this draft deleted. "
        "Saved empty, nothing is stored. You may change the type or the cite lines. -->")


class Draft(NamedTuple):
    type: str
    cite: list[str]
    text: str  # "" when nobody wrote one


def is_draft(rel: str) -> bool:
    """Is this workspace-relative path a teach draft?"""
    return rel.startswith(DRAFTS + "/") and rel.endswith(".md") and rel.count("/") == 2


def new_path(root: Path) -> str:
    """A fresh draft's workspace-relative path (the folder made, with the .gitignore that keeps it out of git)."""
    (memory_dir(root) / "drafts").mkdir(exist_ok=True)
    return f"{DRAFTS}/teach-{time.strftime('%Y%m%d-%H%M%S')}-{_random.token_hex(3)}.md"


def render(cite: list[str], type_: str) -> str:
    lines = [HELP, f"type: {type_}"] + [f"cite: {c}" for c in cite] + ["text:", ""]
    return "\n".join(lines)


def parse(content: str) -> Draft:
    """The draft's fields; a line that is neither a field nor under `text:` is an error."""
    type_, cite, text, in_text = None, [], [], False
    for number, line in enumerate(content.splitlines(), 1):
        if in_text:
            text.append(line)
            continue
        stripped = line.strip()
        if not stripped or (stripped.startswith("<!--") and stripped.endswith("-->")):
            continue
        key, colon, value = stripped.partition(":")
        key, value = key.strip().lower(), value.strip()
        if not colon or key not in ("type", "cite", "text"):
            raise UserError(f"line {number}: expected `type:`, `cite:` or `text:`, got {stripped[:60]!r}")
        if key == "type":
            type_ = value
        elif key == "cite":
            if value:
                cite.append(value)
        else:
            in_text = True
            text.append(value)
    if type_ is None or not type_:
        raise UserError("the draft has no `type:` line")
    return Draft(type_, cite, "\n".join(text).strip())
