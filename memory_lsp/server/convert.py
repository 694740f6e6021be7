"""Between the workspace's terms and LSP's: paths and URIs, 1-based lines and Ranges, code points
and the client's position units (UTF-16 unless negotiated otherwise), LSP's line breaks, and the
small pieces of Markdown a memory is shown with (age, plurals, quotes). Pure functions.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from lsprotocol import types as t
from pygls.uris import to_fs_path

from memory_lsp.memory.model import parse_time
from memory_lsp.memory.secrets import strip_invisible

LINE_BREAK = re.compile(r"\r\n|\r|\n")


# -- paths and URIs ----------------------------------------------------------------------------------
def document_path(uri: str) -> str | None:
    """The file a `file:` URI names; None for other schemes."""
    if not uri.startswith("file:"):
        return None
    return to_fs_path(uri)


def folder_path(uri_or_path: str) -> Path:
    """A folder given as a file URI or a path, resolved."""
    path = (to_fs_path(uri_or_path) or "") if uri_or_path.startswith("file:") else uri_or_path
    return Path(path).resolve()


def file_uri(root: Path, path: str, line: int | None = None) -> str:
    """The URI of a workspace-relative path, with a `#L<line>` fragment for Markdown links."""
    uri = (root / path).as_uri()
    return f"{uri}#L{line}" if line else uri


# -- lines and ranges ----------------------------------------------------------------------------------
def lsp_lines(text: str) -> list[str]:
    """The lines as LSP counts them: str.splitlines also breaks at form feeds, \u2028 and others,
    which would move every position after them."""
    return LINE_BREAK.split(text)


def line_start(line: int) -> t.Range:
    """The empty range at the start of line `line` (1-based)."""
    return t.Range(t.Position(line - 1, 0), t.Position(line - 1, 0))


def line_range(lines: list[str] | None, line: int) -> t.Range:
    """Line `line` (1-based) from its first non-blank character to its end."""
    text = lines[line - 1] if lines and 0 < line <= len(lines) else ""
    start = len(text) - len(text.lstrip())
    return t.Range(t.Position(line - 1, start), t.Position(line - 1, len(text)))


def lines_range(lines: list[str] | None, start: int | None, end: int | None) -> t.Range:
    """Lines `start`..`end` (1-based, inclusive) through the end of the last one; the top of the
    file when there is no start."""
    rng = line_range(lines, start) if start else t.Range(t.Position(0, 0), t.Position(0, 0))
    if end and end > (start or 0):
        last = len(lines[end - 1]) if lines and end <= len(lines) else 0
        rng = t.Range(rng.start, t.Position(end - 1, last) if last else t.Position(end, 0))
    return rng


def to_client_units(items: list[t.Diagnostic], text: str | None, codec) -> list[t.Diagnostic]:
    """Diagnostics counted in code points, recounted in the client's units (`codec`: pygls's
    PositionCodec, negotiated at initialize). Only lines beyond ASCII differ."""
    if not text or text.isascii():
        return items
    lines = lsp_lines(text)

    def convert(rng: t.Range) -> t.Range:
        return t.Range(*(t.Position(p.line, codec.client_num_units(lines[p.line][:p.character]))
                         if p.character and p.line < len(lines) else p for p in (rng.start, rng.end)))
    for d in items:
        d.range = convert(d.range)
        for info in d.related_information or ():
            info.location.range = convert(info.location.range)  # the cited lines, in this file
    return items


# -- Markdown pieces -------------------------------------------------------------------------------------
def age(when: str, now: datetime | None = None) -> str:
    days = ((now or datetime.now(timezone.utc)) - parse_time(when)).total_seconds() / 86400
    if days < 1:
        return "today"
    if days < 2:
        return "yesterday"
    if days < 60:
        return f"{int(days)} days ago"
    if days < 730:
        return f"{int(days / 30)} months ago"
    return f"{int(days / 365)} years ago"


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def quote(text: str) -> str:
    """Memory text as an inert Markdown block quote: it shows as written, but no HTML, image,
    link or autolink in it becomes active (the only links in a hover are the ones we add)."""
    return "\n".join("> " + inert(line) for line in text.splitlines() or [""])


# enough to keep links, images and code spans from forming; emphasis is harmless and stays
_MARKDOWN_ACTIVE = re.compile(r"[\\`\[\]]")
# GFM autolinks: scheme://, www., and e-mail addresses
_AUTOLINK = re.compile(r"(?<=[A-Za-z0-9])(?=://)|(?i:(?<=\bwww)(?=\.))|(?<=[\w.+-])(?=@[\w-]+\.)")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def inert(text: str) -> str:
    """One line of stored text for Markdown: invisible characters gone, control characters
    spelled out, HTML escaped, the brackets and backticks of links and code backslash-escaped
    (CommonMark renders the character itself), autolinks broken (`http\\://`, `www\\.`, `a\\@b.c`)."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", strip_invisible(text)[0])
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _AUTOLINK.sub("\\\\", _MARKDOWN_ACTIVE.sub(lambda m: "\\" + m.group(), text))


def plain(text: str) -> str:
    """Stored text for a plain-text field (a diagnostic's message): invisible characters gone,
    control characters spelled out, every line break a \\n."""
    text = "\n".join(strip_invisible(text)[0].splitlines())
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def type_name(memory_type: str) -> str:
    """`workflow_recipe` -> `workflow recipe`."""
    return memory_type.replace("_", " ")


def where(c) -> tuple[str, int | None, int | None]:
    """Where a citation points now: (path, first line, last line)."""
    now = c.now
    return now.path, now.start_line, now.end_line
