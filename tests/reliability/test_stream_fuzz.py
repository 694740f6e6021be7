"""A fuzzer over JSON-RPC messages (issue 14 item 7): hypothesis writes messages an editor could
send and many it never would (any method, id, params and jsonrpc value; framed junk), into one
running server per mode, the relay and the standalone server. After each, a probe request must be
answered, so the server is never deaf; every well-formed request gets exactly one answer, no
answer carries a traceback, and the server's memory stays under 1.5 GB. The CI run is small
(`MEMORY_LSP_FUZZ_EXAMPLES`, default 150 per mode); bench/bench_reliability_stream_fuzz.py runs
it for as long as it is asked and records each answer's latency."""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "server"))  # the raw client lives with the server tests
from rawclient import RawClient  # noqa: E402

SERVE = [sys.executable, "-m", "memory_lsp", "serve"]
MODES = {"relay": SERVE, "standalone": SERVE + ["--standalone"]}
EXAMPLES = int(os.environ.get("MEMORY_LSP_FUZZ_EXAMPLES", "150"))
ANSWER_TIMEOUT = float(os.environ.get("MEMORY_LSP_FUZZ_TIMEOUT", "60"))  # generous: CI machines are loaded
RSS_LIMIT = 1.5 * 2**30
CANCELLED = -32800
# what an editor sends, minus what ends the session (shutdown, exit) or starts another (initialize)
METHODS = ["textDocument/hover", "textDocument/codeLens", "codeLens/resolve", "textDocument/codeAction",
           "textDocument/diagnostic", "workspace/symbol", "workspace/executeCommand", "textDocument/didOpen",
           "textDocument/didChange", "textDocument/didSave", "textDocument/didClose",
           "workspace/didChangeConfiguration", "workspace/didChangeWatchedFiles", "$/cancelRequest",
           "$/setTrace", "initialized", "textDocument/definition", "memory/unknown"]
COMMANDS = ["memory.search", "memory.impact", "memory.memories", "memory.context", "memory.expand",
            "memory.stats", "memory.nonsense", "memory.teachDraft", "memory.feedback"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20)


def plausible_params(uri: str):
    """Params shaped like the real ones, with values out of range as often as in it."""
    position = st.fixed_dictionaries({"line": st.integers(-5, 10**9), "character": st.integers(-5, 10**9)})
    document = st.fixed_dictionaries({"uri": st.sampled_from([uri, uri + "x", "file:///nope.py", "not a uri", ""])})
    text_range = st.fixed_dictionaries({"start": position, "end": position})
    return st.one_of(
        st.fixed_dictionaries({"textDocument": document, "position": position}),
        st.fixed_dictionaries({"textDocument": document, "range": text_range,
                               "context": st.just({"diagnostics": []})}),
        st.fixed_dictionaries({"textDocument": document.map(lambda d: {**d, "languageId": "python", "version": 1,
                                                                        "text": "def handler(event):\n"})}),
        st.fixed_dictionaries({"query": st.text(max_size=30)}),
        st.fixed_dictionaries({"command": st.sampled_from(COMMANDS),
                               "arguments": st.lists(json_values, max_size=2)}),
        st.fixed_dictionaries({"settings": json_values}),
        st.fixed_dictionaries({"id": st.integers(0, 10**6) | st.text(max_size=5)}),
    )


def messages(uri: str):
    ids = st.one_of(st.none(), st.integers(-2**40, 2**40), st.text(max_size=8), st.floats(allow_nan=False),
                    st.booleans(), st.lists(st.integers(), max_size=2))
    message = st.fixed_dictionaries(
        {"method": st.sampled_from(METHODS) | st.text(max_size=20) | json_values},
        optional={"jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0", ""]) | json_values,
                  "id": ids, "params": plausible_params(uri) | json_values})
    request = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": st.integers(0, 2**31), "method":
                                     st.sampled_from(METHODS), "params": plausible_params(uri)})
    framed_junk = st.binary(max_size=300).map(lambda b: b"Content-Length: %d\r\n\r\n" % len(b) + b)
    return st.one_of(request.map(lambda m: ("message", m)), message.map(lambda m: ("message", m)),
                     framed_junk.map(lambda b: ("bytes", b)))


def is_request(message: dict) -> bool:
    """A message the spec says must get exactly one answer carrying its id."""
    ident = message.get("id")
    return (message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str)
            and (isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool)))
            and ("params" not in message or isinstance(message["params"], (dict, list))))


def probe_answer(client: RawClient, ident: str) -> dict:
    """A valid request's answer (its id a string no fuzzed message can carry: an answer to a
    malformed message that kept its own id must not pass for the probe's)."""
    client.send({"id": ident, "method": "workspace/symbol", "params": {"query": "handler"}})
    return client.response(ident, ANSWER_TIMEOUT)


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, write_files) -> Path:
    return write_files(tmp_path_factory.mktemp("fuzz") / "proj", {"app.py": "def handler(event):\n    return event\n"})


@pytest.mark.parametrize("mode", list(MODES))
def test_any_message_gets_its_answer_and_the_server_stays_alive(workspace, mode):
    client = RawClient(MODES[mode])
    uri = (workspace / "app.py").as_uri()
    counter = itertools.count(1)
    sent: dict[str, dict] = {}  # well-formed requests by id (made unique per example)
    latencies: list[float] = []  # seconds from a message to the probe's answer after it
    try:
        client.initialize(workspace)
        client.wait_indexed()

        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  derandomize=not os.environ.get("MEMORY_LSP_FUZZ_RANDOM"),  # the bench's repeated runs differ
                  suppress_health_check=list(HealthCheck))
        @given(messages(uri))
        def one(case):
            kind, payload = case
            n, began = next(counter), time.monotonic()
            message = dict(payload) if kind == "message" else payload
            if kind == "message" and is_request(message):
                message["id"] = f"fuzzed-request-{n}"  # longer than any fuzzed id: no collision
                sent[message["id"]] = message
            try:
                client.write(payload) if kind == "bytes" else client.send_bytes(json.dumps(message).encode())
            except BrokenPipeError:
                raise AssertionError(f"the server is gone (exit {client.proc.poll()}) before {message!r}: "
                                     + "".join(client.stderr[-15:])) from None
            probe = probe_answer(client, f"probe-after-{n}")
            assert "result" in probe or probe["error"]["code"] == CANCELLED, probe  # a fuzzed $/cancelRequest
            latencies.append(time.monotonic() - began)
            assert client.proc.poll() is None

        one()
        probe_answer(client, "probe-last")
        for ident, message in sent.items():  # answered before the probe after it, or soon after (a slow read)
            client.wait_for(lambda: client.responses(ident), ANSWER_TIMEOUT, f"the answer to {message}")
            assert len(client.responses(ident)) == 1, client.responses(ident)
        assert not [m for m in client.messages if "Traceback" in json.dumps(m)]
        peak = rss(client.proc.pid)
        assert peak < RSS_LIMIT
        if os.environ.get("MEMORY_LSP_FUZZ_REPORT"):  # bench/bench_reliability_stream_fuzz.py reads it
            with open(os.environ["MEMORY_LSP_FUZZ_REPORT"], "a", encoding="utf-8") as report:
                report.write(json.dumps({"mode": mode, "examples": len(latencies), "requests": len(sent),
                                         "latencies": latencies, "rss": peak}) + "\n")
    finally:
        client.close()
