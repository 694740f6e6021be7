"""The JSON-RPC byte stream, read so that it never goes deaf: frames (`FrameReader`) and bodies
(`inspect`), shared by the relay (proxy.py, which has no pygls) and the pygls sessions (protocol.py).

A frame whose headers cannot be trusted (a negative, non-numeric, duplicated or missing
Content-Length, one over `MAX_BODY`, a header line over `MAX_LINE`) is answered with a parse error
and skipped up to the next `Content-Length:` header, wherever it starts: a body is never
allocated from a length it did not earn. A body that does not parse is answered the same way and,
when it swallowed the next frame's header (a Content-Length larger than the body), the reader
goes back to that header. A body that parses but is not one JSON-RPC 2.0 message (a batch, a
wrong "jsonrpc", an id that is not an integer or a string, a request without a string method) is
answered with InvalidRequest. The answer carries the request's id when it can be found, else null
(JSON-RPC 2.0, section 5.1).
"""

from __future__ import annotations

import json
import logging
import re
from typing import NamedTuple

log = logging.getLogger("memory_lsp.stream")

MAX_BODY = 64 * 1024 * 1024  # a larger Content-Length is refused, never allocated
MAX_LINE = 64 * 1024  # a longer header line is junk
CHUNK = 65536
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND = -32700, -32600, -32601

_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*")
_LENGTH = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,15}(?![.\deE])|"(?:[^"\\\r\n]|\\.){0,200}")')


class Frame(NamedTuple):
    body: bytes | None  # None: a malformed frame, answered with `error`
    error: dict | None = None


class FrameReader:
    """LSP frames from a binary stream (anything with `read1` or `read`); `read()` -> Frame or None
    at the end of the stream."""

    def __init__(self, stream, max_body: int = MAX_BODY):
        self.stream = stream
        self.max_body = max_body
        self.buf = bytearray()
        self.skipping = False  # after a malformed frame: bytes up to the next Content-Length header are its rest
        self._read = getattr(stream, "read1", None) or stream.read

    def read(self) -> Frame | None:
        length: int | None = None
        problem: str | None = None
        started = False
        while True:
            line = self._line()
            if line is None:
                return None
            if not line.endswith(b"\n"):  # longer than MAX_LINE
                if self.skipping or not started:  # junk: a header may start anywhere in it
                    found = _LENGTH.search(line, 1)
                    keep = found.start() if found else len(line) - 32  # a header cut at the chunk's end
                    self.buf[:0] = line[keep:]
                    continue
                self._drop_line()
                problem = problem or f"a header line longer than {MAX_LINE} bytes"
                continue
            text = line.rstrip(b"\r\n")
            if self.skipping or not started:
                found = _LENGTH.search(text)
                if found is not None and (found.start() > 0 or self.skipping):
                    log.warning("skipped %d bytes to the next frame header", found.start())
                    self.skipping = False
                    text = text[found.start():]
                elif self.skipping or text and not _HEADER.fullmatch(text):
                    continue  # the rest of a malformed frame, or junk between frames
            if not text:
                if started:
                    break
                continue  # a stray blank line between frames
            started = True
            header = _HEADER.fullmatch(text)
            if header is None:
                problem = problem or f"a malformed header line {_short(text)}"
            elif header.group(1).lower() == b"content-length":
                value = header.group(2)
                if not value.isdigit():
                    problem = problem or f"Content-Length {_short(value)} is not a length"
                elif length is not None and int(value) != length:
                    problem = problem or "two different Content-Length headers"
                else:
                    length = int(value)
        if problem is None and length is None:
            problem = "a frame without Content-Length"
        if problem is None and length > self.max_body:
            problem = f"Content-Length {length} is over the limit of {self.max_body} bytes"
        if problem is not None:
            self.skipping = True
            # the id, when the body already arrived (it is skipped, not read further for it)
            hint = bytes(self.buf[:_next_header(self.buf)])
            log.warning("a malformed frame (%s): answered with a parse error, skipping to the next header", problem)
            return Frame(None, error_response(find_id(hint), PARSE_ERROR, f"parse error: {problem}"))
        body = self._exactly(length)
        return None if body is None else Frame(body)

    def resync(self, body: bytes) -> bool:
        """A body that did not parse: when it holds the next frame's header (its Content-Length was
        larger than the body), read on from that header. True if it did."""
        found = _LENGTH.search(body, 1)
        if found is None:
            return False
        self.buf[:0] = body[found.start():]
        return True

    # -- bytes ---------------------------------------------------------------------------------------
    def _fill(self) -> bool:
        chunk = self._read(CHUNK)
        if not chunk:
            return False
        self.buf += chunk
        return True

    def _line(self) -> bytes | None:
        """One line with its newline; at most MAX_LINE bytes without one; None at the end."""
        start = 0
        while True:
            end = self.buf.find(b"\n", start)
            if end >= 0 and end < MAX_LINE:
                line = bytes(self.buf[:end + 1])
                del self.buf[:end + 1]
                return line
            if len(self.buf) >= MAX_LINE:
                line = bytes(self.buf[:MAX_LINE])
                del self.buf[:MAX_LINE]
                return line
            start = len(self.buf)
            if not self._fill():
                return None

    def _drop_line(self) -> None:
        while (end := self.buf.find(b"\n")) < 0:
            self.buf.clear()
            if not self._fill():
                return
        del self.buf[:end + 1]

    def _exactly(self, n: int) -> bytes | None:
        while len(self.buf) < n:
            if not self._fill():
                return None
        body = bytes(self.buf[:n])
        del self.buf[:n]
        return body


def inspect(body: bytes) -> tuple[dict | None, list[dict]]:
    """(the message, []) for one JSON-RPC 2.0 object; (None, the error answers) for anything else."""
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        return None, [error_response(find_id(body), PARSE_ERROR, "parse error: the body is not valid UTF-8")]
    except RecursionError:
        return None, [error_response(find_id(body), PARSE_ERROR, "parse error: JSON nested too deeply")]
    except ValueError as exc:
        return None, [error_response(find_id(body), PARSE_ERROR, f"parse error: {exc}")]
    if isinstance(data, list):
        ids = [m["id"] for m in data if isinstance(m, dict) and "method" in m and _valid_id(m.get("id"))]
        message = "invalid request: batches are not supported by LSP; send one message per frame"
        return None, [error_response(i, INVALID_REQUEST, message) for i in ids or [None]]
    if not isinstance(data, dict):
        return None, [error_response(None, INVALID_REQUEST, "invalid request: not a JSON object")]
    ident = data.get("id")
    request = "method" in data
    if data.get("jsonrpc") != "2.0":
        if request and "id" not in data:
            log.warning("ignored a notification that is not JSON-RPC 2.0: %.200r", data)
            return None, []
        return None, [error_response(ident if _valid_id(ident) else None, INVALID_REQUEST,
                                     'invalid request: "jsonrpc" must be "2.0"')]
    if "id" in data and not _valid_id(ident):
        if not request:
            log.warning("ignored a response with an invalid id: %.200r", data)
            return None, []
        return None, [error_response(None, INVALID_REQUEST,
                                     f"invalid request: the id must be an integer or a string, got {_short(ident)}")]
    if request and not isinstance(data["method"], str):
        return None, [error_response(ident, INVALID_REQUEST, "invalid request: the method must be a string")]
    if not request and "id" in data and "result" not in data and "error" not in data:
        return None, [error_response(ident, INVALID_REQUEST, "invalid request: neither a request nor a response")]
    if not request and "id" not in data:
        log.warning("ignored a message that is neither a request, a notification nor a response: %.200r", data)
        return None, []
    return data, []


def error_response(ident, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def find_id(raw: bytes):
    """The id of a request that could not be parsed, when its bytes show one; else None."""
    found = _ID.search(raw[:MAX_LINE])
    if found is None:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return None


def _valid_id(value) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _next_header(buf: bytearray) -> int:
    found = _LENGTH.search(buf)
    return found.start() if found else len(buf)


def _short(value) -> str:
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else repr(value)
    return repr(text[:40] + ("…" if len(text) > 40 else ""))
