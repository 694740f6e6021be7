"""Text crossing the terminal: arguments and stdin must be UTF-8 (else a one-line user error, not
a traceback), and printed text is made inert (a stored ESC, CR or bidi override is shown, never
obeyed)."""

from __future__ import annotations

import re
import sys

from memory_lsp.errors import UserError

# C0 and C1 controls but \t and \n, DEL, and what reorders or breaks lines on a terminal
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """Text for a terminal: a stored ESC, CR or bidi override is shown as \\x1b, never obeyed."""
    return _UNPRINTABLE.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100
                            else "\\u%04x" % ord(m.group()), text)


def read_stdin() -> str:
    """All of stdin as UTF-8; anything else is a user error, not a traceback."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"stdin is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def check_arguments(argv: list[str]) -> None:
    """Invalid UTF-8 in an argument arrives as lone surrogates (PEP 383): say which argument."""
    for n, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            byte = ord(arg[exc.start]) - 0xDC00 if 0xDC80 <= ord(arg[exc.start]) <= 0xDCFF else None
            what = f" (byte 0x{byte:02x} at character {exc.start + 1})" if byte is not None else ""
            raise UserError(f"argument {n} is not valid UTF-8{what}") from None
