"""A protocol stream that recovers (issue 14 item 4): the malformed-message corpus, each case
followed by a valid request that must be answered, against the relay (`memory-lsp serve`, which
reads the editor's frames first) and the standalone server (pygls over stdio). Each malformed
request gets exactly the JSON-RPC error the spec names: -32700 parse error, -32600 invalid
request, -32601 method not found; with its id where the bytes show one, else null."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "server"))  # the raw client lives with the server tests
from rawclient import RawClient  # noqa: E402

SERVE = [sys.executable, "-m", "memory_lsp", "serve"]
MODES = {"relay": SERVE, "standalone": SERVE + ["--standalone"]}
PARSE, INVALID, NOT_FOUND = -32700, -32600, -32601


def request(ident, method="workspace/symbol", params=None, **extra) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": method,
            "params": {"query": "handler"} if params is None else params, **extra}


def body(message) -> bytes:
    return json.dumps(message).encode()


def framed(data: bytes, length: int | None = None, eol: bytes = b"\r\n") -> bytes:
    return b"Content-Length: %d" % (len(data) if length is None else length) + eol + eol + data


def deep(n: int) -> bytes:
    return b'{"jsonrpc": "2.0", "id": 1, "method": "workspace/symbol", "params": {"query": "x", "deep": ' \
        + b"[" * n + b"]" * n + b"}}"


A = 7001
GOOD = body(request(A))
# name -> (bytes sent, [(id, code)] expected; code None: a normal answer)
CORPUS = {
    "negative length": (b"Content-Length: -5\r\n\r\n" + GOOD, [(A, PARSE)]),
    "non-numeric length": (b"Content-Length: ten\r\n\r\n" + GOOD, [(A, PARSE)]),
    "two different lengths": (b"Content-Length: 3\r\nContent-Length: %d\r\n\r\n" % len(GOOD) + GOOD, [(A, PARSE)]),
    "the same length twice": (b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(GOOD), len(GOOD)) + GOOD,
                              [(A, None)]),
    "body shorter than its length": (framed(GOOD, len(GOOD) + 40), [(A, PARSE)]),
    "body longer than its length": (framed(GOOD, len(GOOD) - 10), [(A, PARSE)]),
    "LF-only headers": (framed(GOOD, eol=b"\n"), [(A, None)]),
    "1 MB junk line before the header": (b"X-Junk: " + b"j" * 1_000_000 + b"\r\n" + framed(GOOD), [(A, None)]),
    "1 MB junk header in the frame": (b"Content-Length: %d\r\nX-Junk: " % len(GOOD) + b"j" * 1_000_000
                                      + b"\r\n\r\n" + GOOD, [(A, PARSE)]),
    "length of a terabyte": (framed(GOOD, 1099511627776), [(A, PARSE)]),
    "no Content-Length": (b"X-Unknown-Header: 1\r\n\r\n" + GOOD, [(A, PARSE)]),
    "junk between frames": (b"garbage, not a header\r\n\r\n", []),
    "not JSON": (framed(b"{this is not json"), [(None, PARSE)]),
    "truncated JSON": (framed(GOOD[:-12]), [(A, PARSE)]),
    "invalid UTF-8": (framed(GOOD.replace(b'"handler"', b'"hand\xffler"')), [(A, PARSE)]),
    "100k-deep nesting": (framed(deep(100_000)), [(1, PARSE)]),
    "batch array": (framed(b"[" + GOOD + b", " + body(request(A + 1)) + b"]"), [(A, INVALID), (A + 1, INVALID)]),
    "empty batch": (framed(b"[]"), [(None, INVALID)]),
    "a JSON string": (framed(b'"just a string"'), [(None, INVALID)]),
    'jsonrpc "1.0"': (framed(body(request(A, jsonrpc="1.0"))), [(A, INVALID)]),
    "no jsonrpc": (framed(body({k: v for k, v in request(A).items() if k != "jsonrpc"})), [(A, INVALID)]),
    "fractional id": (framed(GOOD.replace(b"%d" % A, b"1006.5")), [(None, INVALID)]),
    "boolean id": (framed(body(request(True))), [(None, INVALID)]),
    "method not a string": (framed(body(request(A, method=7))), [(A, INVALID)]),
    "neither request nor response": (framed(body({"jsonrpc": "2.0", "id": A})), [(A, INVALID)]),
    "unknown method": (framed(body(request(A, method="memory/nonsense", params={}))), [(A, NOT_FOUND)]),
    "unknown command": (framed(body(request(A, method="workspace/executeCommand",
                                            params={"command": "memory.nonsense", "arguments": [{}]}))),
                        [(A, NOT_FOUND)]),
}


def make_workspace(root: Path, write_files) -> Path:
    return write_files(root, {"app.py": "def handler(event):\n    return event\n"})


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, write_files) -> Path:
    return make_workspace(tmp_path_factory.mktemp("stream") / "proj", write_files)


@pytest.fixture
def own_workspace(tmp_path, write_files) -> Path:
    """A workspace of the test's own: the module's server still holds the shared one's index."""
    return make_workspace(tmp_path / "proj", write_files)


@pytest.fixture(scope="module", params=list(MODES))
def server(request, workspace):
    client = RawClient(MODES[request.param])
    client.initialize(workspace)
    client.wait_indexed()
    yield client
    assert client.close() == 0
    assert not [m for m in client.messages if m.get("method") == "window/showMessage"
                and m["params"]["type"] == 1], "an error was shown to the user"


def answered_normally(client: RawClient) -> None:
    """A valid request after the case gets its answer, with data."""
    answer = client.call("workspace/symbol", {"query": "handler"}, timeout=30)
    assert [s["name"] for s in answer["result"]] == ["handler"], answer


@pytest.mark.parametrize("case", list(CORPUS))
def test_malformed_input_is_answered_and_the_stream_recovers(server, case):
    data, expected = CORPUS[case]
    ids = {ident for ident, _code in expected} | {None}  # no stray null-id answer either
    before = {ident: len(server.responses(ident)) for ident in ids}
    server.write(data)
    answered_normally(server)
    for ident in ids:  # errors come before the follow-up's answer; a normal answer may come after it
        want = sorted(code or 0 for i, code in expected if i == ident)
        server.wait_for(lambda: len(server.responses(ident)) - before[ident] >= len(want), 30, f"answers to {ident}")
        got = server.responses(ident)[before[ident]:]
        codes = sorted((m.get("error") or {}).get("code", 0) for m in got)
        assert codes == want, (case, got)
        assert all("Traceback" not in json.dumps(m) for m in got)


@pytest.mark.parametrize("mode", list(MODES))
def test_requests_after_shutdown_get_invalid_request(own_workspace, mode):
    client = RawClient(MODES[mode])
    try:
        client.initialize(own_workspace)
        assert client.call("shutdown", None, timeout=30).get("error") is None
        late = client.call("workspace/symbol", {"query": "handler"}, timeout=30)
        assert late["error"]["code"] == INVALID and "shutdown" in late["error"]["message"]
        again = client.call("shutdown", None, timeout=30)
        assert again["error"]["code"] == INVALID
        client.notify("exit")
        assert client.proc.wait(timeout=30) == 0
    finally:
        client.close()


@pytest.mark.parametrize("mode", list(MODES))
def test_internal_errors_reach_the_user_as_a_short_line(own_workspace, mode):
    client = RawClient(MODES[mode])
    try:
        client.initialize(own_workspace)
        client.wait_indexed()
        nope = (own_workspace / "nope.py").as_uri()
        # a change to a document that was never opened: pygls fails on it outside any request
        client.notify("textDocument/didChange", {"textDocument": {"uri": nope, "version": 2},
                                                 "contentChanges": [{"text": "x = 1\n"}]})
        answered_normally(client)
        client.wait_for(lambda: client.notifications("window/showMessage"), 30, "the message to the user")
        shown = [m["params"]["message"] for m in client.notifications("window/showMessage")]
        assert shown == ["memory-lsp: an internal error occurred; the details are in the server log"], shown
        client.notify("textDocument/didChange", {"textDocument": {"uri": nope, "version": 3},
                                                 "contentChanges": [{"text": "x = 2\n"}]})
        answered_normally(client)
        assert len(client.notifications("window/showMessage")) == 1  # once a session: the rest to the log
    finally:
        assert client.close() == 0


def test_the_relays_replay_record_survives_messages_of_any_shape():
    # found by the stream fuzzer: `textDocument/didOpen` with params a list ended the relay
    from memory_lsp.server.proxy import Session

    session = Session()
    for message in ({"method": "textDocument/didOpen", "params": [1, 2]},
                    {"method": "textDocument/didChange", "params": {"textDocument": 7}},
                    {"method": "textDocument/didClose", "params": "x"}):
        session.from_editor(message)
    assert session.documents == {}
