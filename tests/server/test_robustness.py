"""Bad input and robustness: malformed JSON-RPC, unknown methods, invalid params, URIs outside the
workspace, cancellation, the editor dying, bad settings, several folders. Every request gets
exactly one answer, no traceback reaches the client, and the server stays up with its data.

The raw tests talk JSON-RPC over the server's stdio byte by byte (rawclient.py); the others use
pytest-lsp as an editor would."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from lsprotocol import types as t

from conftest import (MEMORIES, SERVER, cli, command, copy_project, hover_at, open_doc, pull, running, uri,
                      wait_for)
from rawclient import RawClient

GOTCHA, DECISION, POLICY = (m[0] for m in MEMORIES)


def hover_params(root, rel="app/core.py", line=3):
    return {"textDocument": {"uri": uri(root, rel)}, "position": {"line": line, "character": 4}}


def stats(raw: RawClient) -> dict:
    answer = raw.call("workspace/executeCommand", {"command": "memory.stats", "arguments": [{}]})
    return answer["result"]


def no_tracebacks(raw: RawClient) -> None:
    text = json.dumps(raw.messages)
    assert "Traceback" not in text and "traceback" not in text


@pytest.fixture(scope="module")
def raw(tmp_path_factory, project_template):
    """One server for the tests that only send bad input: it must survive all of them."""
    root = copy_project(project_template, tmp_path_factory.mktemp("raw") / "proj")
    client = RawClient(SERVER)
    client.initialize(root)
    client.wait_indexed()
    client.root = root
    yield client
    assert client.close() == 0
    assert "Traceback" not in "".join(line for line in client.stderr if " ERROR " in line and "memory_lsp" in line)


def test_malformed_json_rpc(raw):
    baseline = stats(raw)
    garbage = [
        b"{this is not json",
        b'{"jsonrpc": "2.0", "id": 900, "method": "textDocument/hover", "params": {',  # truncated
        b"[1, 2, 3]",  # a batch: LSP has none
        b'"just a string"',
        b"\xff\xfe\x00 not utf-8",
        b'{"jsonrpc": "2.0", "id": 901}',  # neither a request nor a response
        b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"nonsense": true}}',  # a bad notification
        b'{"jsonrpc": "2.0", "result": null}',  # a response without an id
    ]
    for body in garbage:
        raw.send_bytes(body)
        assert stats(raw) == baseline  # still answering, with the same data
    raw.write(b"Content-Length: many\r\n\r\n")  # a header that cannot be read, and no body
    assert stats(raw) == baseline
    raw.write(b"X-Unknown-Header: 1\r\n\r\n")
    assert stats(raw) == baseline
    no_tracebacks(raw)


def test_malformed_requests_get_exactly_one_error(raw):
    # no "jsonrpc": "2.0": not JSON-RPC, but a request with an id: it gets an Invalid Request
    raw.send_bytes(json.dumps({"id": 910, "method": "workspace/symbol", "params": {"query": "parse"}}).encode())
    assert raw.response(910)["error"]["code"] == -32600
    # an id that is neither a number nor a string cannot be echoed: the answer has a null id
    before = len(raw.responses(None))
    raw.send({"id": {"an": "object"}, "method": "workspace/symbol", "params": {"query": "parse"}})
    raw.wait_for(lambda: len(raw.responses(None)) > before, what="the invalid request's answer")
    assert raw.responses(None)[-1]["error"]["code"] == -32600
    # a method that is not a string
    raw.send({"id": 911, "method": 7, "params": {}})
    assert raw.response(911)["error"]["code"] == -32600
    # params that are not an object
    raw.send({"id": 912, "method": "textDocument/hover", "params": "line 3"})
    assert raw.response(912)["error"]["code"] == -32602
    stats(raw)
    for request_id in (910, 911, 912):
        assert len(raw.responses(request_id)) == 1
    assert len(raw.responses(None)) == before + 1
    no_tracebacks(raw)


def test_unknown_methods(raw):
    answer = raw.call("memory/nonsense", {})
    assert answer["error"]["code"] == -32601  # MethodNotFound
    answer = raw.call("textDocument/nonsense", {"textDocument": {"uri": uri(raw.root, "app/core.py")}})
    assert answer["error"]["code"] == -32601
    raw.notify("memory/nonsenseNotification", {"x": 1})  # an unknown notification is ignored
    raw.notify("$/somethingOptional", {})
    assert stats(raw)["languages"]
    answer = raw.call("workspace/executeCommand", {"command": "memory.nonsense", "arguments": [{}]})
    assert answer["error"]["code"] == -32601 and "memory.nonsense" in answer["error"]["message"]  # MethodNotFound
    no_tracebacks(raw)


def test_invalid_params_are_answered(raw):
    # pygls alone sends nothing for these: the client would wait forever
    cases = [
        ("textDocument/hover", {"textDocument": {"uri": uri(raw.root, "app/core.py")}}),  # no position
        ("textDocument/hover", {"position": {"line": 3, "character": 0}}),  # no document
        ("textDocument/hover", {"textDocument": {"uri": uri(raw.root, "app/core.py")},
                                "position": {"line": -1, "character": 0}}),
        ("textDocument/hover", {"textDocument": {"uri": uri(raw.root, "app/core.py")},
                                "position": {"line": "three", "character": 0}}),
        ("textDocument/hover", None),
        ("textDocument/codeLens", {}),
        ("textDocument/codeAction", {"textDocument": {"uri": uri(raw.root, "app/core.py")}}),  # no range, context
        ("textDocument/diagnostic", {"textDocument": 5}),
        ("workspace/executeCommand", {}),  # no command
        ("workspace/executeCommand", {"command": "memory.search", "arguments": [{"query": ["a", "list"]}]}),
        ("workspace/symbol", {}),
    ]
    ids = [raw.request(method, params) for method, params in cases]
    hover_id = raw.request("textDocument/hover", omit_params=True)
    for request_id in [*ids, hover_id]:
        answer = raw.response(request_id)
        assert answer["error"]["code"] == -32602, answer
        assert answer["error"].get("data") is None
    # a good request after them is answered with the data
    good = raw.call("textDocument/hover", hover_params(raw.root))
    assert GOTCHA in good["result"]["contents"]["value"]
    for request_id in [*ids, hover_id]:
        assert len(raw.responses(request_id)) == 1
    no_tracebacks(raw)


def test_documents_outside_the_workspace_get_empty_answers(raw, tmp_path):
    (tmp_path / "other.py").write_text("import os\nos.system('ls')\n", encoding="utf-8")
    for doc in ((tmp_path / "other.py").as_uri(), "untitled:Untitled-1", "https://example.com/x.py",
                "file:///definitely/not/here.py", "not a uri at all"):
        here = {"textDocument": {"uri": doc}}
        assert raw.call("textDocument/hover", {**here, "position": {"line": 1, "character": 0}})["result"] is None
        assert raw.call("textDocument/codeLens", here)["result"] == []
        assert raw.call("textDocument/diagnostic", here)["result"]["items"] == []
        assert raw.call("textDocument/codeAction", {**here, "range": {"start": {"line": 0, "character": 0},
                                                                       "end": {"line": 1, "character": 0}},
                                                    "context": {"diagnostics": []}})["result"] == []
        lens = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "data": {"uri": doc, "path": "x.py", "symbol": "x"}}
        assert raw.call("codeLens/resolve", lens)["result"].get("command") is None
        raw.notify("textDocument/didOpen", {"textDocument": {"uri": doc, "languageId": "python", "version": 1,
                                                            "text": "x = 1\n"}})
        raw.notify("textDocument/didChange", {"textDocument": {"uri": doc, "version": 2},
                                              "contentChanges": [{"text": "y = 2\n"}]})
        raw.notify("textDocument/didClose", {"textDocument": {"uri": doc}})
    # an unsupported language inside the workspace
    (raw.root / "notes.txt").write_text("parse everything\n", encoding="utf-8")
    notes = {"textDocument": {"uri": uri(raw.root, "notes.txt")}}
    assert raw.call("textDocument/hover", {**notes, "position": {"line": 0, "character": 0}})["result"] is None
    assert raw.call("textDocument/diagnostic", notes)["result"]["items"] == []
    assert raw.call("textDocument/codeLens", notes)["result"] == []
    assert stats(raw)["languages"] == [{"lang": "python", "files": 4, "symbols": 7}]
    no_tracebacks(raw)


def test_cancel_a_slow_request(project):
    """A command queued behind the first indexing run is cancelled: one RequestCancelled answer,
    and nothing is left behind (background embedding, which gives way to queued commands, still
    finishes)."""
    raw = RawClient(SERVER)
    try:
        raw.initialize(project, options={"embeddings": {"background": True}})
        # once indexing has begun, a command waits on the folder's writer behind the first run
        raw.wait_for(lambda: [m for m in raw.notifications("$/progress") if m["params"]["value"]["kind"] == "begin"],
                     what="indexing to begin")
        queued = raw.request("workspace/executeCommand", {"command": "memory.reindex", "arguments": [{}]})
        raw.notify("$/cancelRequest", {"id": queued})
        answer = raw.response(queued)
        assert answer.get("error", {}).get("code") == -32800 or "result" in answer  # RequestCancelled, or done
        raw.wait_indexed()
        # a running command that is cancelled also gets exactly one answer
        running_one = raw.request("workspace/executeCommand", {"command": "memory.reindex", "arguments": [{}]})
        time.sleep(0.05)
        raw.notify("$/cancelRequest", {"id": running_one})
        answer = raw.response(running_one)
        assert answer.get("error", {}).get("code") == -32800 or answer["result"]["files"] == 4
        raw.notify("$/cancelRequest", {"id": 424242})  # unknown: ignored

        def embedded():
            found = raw.call("workspace/executeCommand", {"command": "memory.search", "arguments": [
                {"query": "comma inside quotes", "kind": "memory"}]})["result"]
            return found["note"] is None and found["results"]
        raw.wait_for(embedded, timeout=90, what="background embedding to finish")
        time.sleep(0.3)
        assert len(raw.responses(queued)) == 1 and len(raw.responses(running_one)) == 1
        no_tracebacks(raw)
    finally:
        assert raw.close() == 0


@pytest.mark.parametrize("mode", ["owner", "standalone"])
def test_the_server_exits_when_the_editor_dies(project, mode):
    editor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    raw = RawClient(SERVER + (["--standalone"] if mode == "standalone" else []))
    try:
        raw.initialize(project, process_id=editor.pid)
        raw.wait_indexed()
        assert stats(raw)["languages"]
        # while a server holds the index, the CLI's reads go through it (the owner, or the
        # standalone server's bridge)
        busy = cli(project, "stats", "--json")
        assert busy.returncode == 0 and json.loads(busy.stdout)["languages"]
        assert ("answered by the running language server" in busy.stderr) == (mode == "standalone")
        editor.kill()
        editor.wait()  # reaped: no zombie that still answers kill(pid, 0)
        raw.proc.wait(timeout=30)
        assert raw.proc.returncode == 0
        # the session is over and the index released: the CLI reads it again
        done = cli(project, "stats", "--json")
        assert done.returncode == 0, done.stderr
        assert "answered by the running language server" not in done.stderr
        assert json.loads(done.stdout)["languages"] == [{"lang": "python", "files": 4, "symbols": 7}]
    finally:
        if editor.poll() is None:
            editor.kill()
            editor.wait()
        raw.close()


async def test_bad_settings_are_reported_and_defaults_used(project):
    options = {"diagnostics": {"maxPerFile": "lots", "minConfidence": 7, "colour": "red"},
               "hover": 5, "codeLens": {"enabled": "yes"}, "telemetry": True}
    async with running(project, options=options) as lsp:
        await wait_for(lambda: len(lsp.messages) >= 6, what="the settings warnings")
        warnings = [m.message for m in lsp.messages if m.type == t.MessageType.Warning]
        assert len(warnings) == len(lsp.messages) == 6
        assert all(w.startswith("memory-lsp settings (initializationOptions): ") for w in warnings)
        for needle in ("diagnostics.maxPerFile = 'lots' is not valid (expected a number): using 20",
                       "diagnostics.minConfidence = 7 is not valid (expected 0.0 to 1.0): using 0.3",
                       "unknown setting diagnostics.colour ignored", "setting hover must be an object",
                       "codeLens.enabled = 'yes' is not valid", "unknown setting 'telemetry' ignored"):
            assert sum(needle in w for w in warnings) == 1, (needle, warnings)
        # the defaults apply: both memories of core.py are shown, lenses and hovers are on
        doc = open_doc(lsp, project, "app/core.py")
        assert len(await pull(lsp, doc)) == 2
        assert GOTCHA in (await hover_at(lsp, doc, 3)).contents.value
        assert await lsp.text_document_code_lens_async(t.CodeLensParams(text_document=t.TextDocumentIdentifier(uri=doc)))


async def test_bad_settings_from_workspace_configuration(project):
    async with running(project, configuration={"memory": {"hover": {"maxMemories": -3}, "indexing": "fast"}}) as lsp:
        await wait_for(lambda: len(lsp.messages) >= 2, what="the settings warnings")
        warnings = sorted(m.message for m in lsp.messages)
        assert all(m.type == t.MessageType.Warning for m in lsp.messages)
        assert any("(workspace/configuration)" in w and "hover.maxMemories = -3" in w for w in warnings)
        assert any("setting indexing must be an object" in w for w in warnings)
        doc = open_doc(lsp, project, "app/core.py")
        hover = (await hover_at(lsp, doc, 3)).contents.value
        assert GOTCHA in hover and DECISION in hover  # maxMemories kept its default


async def test_settings_that_are_not_an_object(project):
    async with running(project, options=None) as lsp:
        lsp.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings={"memory": ["a", "list"]}))
        await wait_for(lambda: lsp.messages, what="the warning")
        assert "settings must be an object" in lsp.messages[0].message
        assert len(await pull(lsp, open_doc(lsp, project, "app/core.py"))) == 2


async def test_multi_root_workspace(project, project_template, tmp_path):
    second = copy_project(project_template, tmp_path / "second")
    only_second = "In the second folder, parse() is fed tab-separated lines"
    done = cli(second, "teach", only_second, "--type", "gotcha", "--cite", "app/core.py::parse")
    assert done.returncode == 0, done.stderr
    async with running(None, folders=[project, second]) as lsp:
        first_doc = open_doc(lsp, project, "app/core.py")
        second_doc = open_doc(lsp, second, "app/core.py")
        first = (await hover_at(lsp, first_doc, 3)).contents.value
        other = (await hover_at(lsp, second_doc, 3)).contents.value
        assert GOTCHA in first and only_second not in first
        assert GOTCHA in other and only_second in other
        assert uri(second, "app/core.py") + "#L4" in other  # links point into the right folder
        assert len(await pull(lsp, first_doc)) == 2 and len(await pull(lsp, second_doc)) == 3

        # workspace/symbol answers from both folders
        found = await lsp.workspace_symbol_async(t.WorkspaceSymbolParams(query="parse"))
        assert {(s.name, s.location.uri) for s in found} == {
            (name, uri(root, path)) for root in (project, second)
            for name, path in (("parse", "app/core.py"), ("test_parse", "tests/test_core.py"))}
        assert all(s.kind == t.SymbolKind.Function for s in found)

        # a folder removed: its documents are outside the workspace now
        lsp.workspace_did_change_workspace_folders(t.DidChangeWorkspaceFoldersParams(event=t.WorkspaceFoldersChangeEvent(
            added=[], removed=[t.WorkspaceFolder(uri=second.as_uri(), name="second")])))

        async def gone():
            return await hover_at(lsp, second_doc, 3) is None
        await wait_for(gone, what="the removed folder's hover to go")
        assert GOTCHA in (await hover_at(lsp, first_doc, 3)).contents.value
        # the server let go of it: the CLI reads that index again
        done = cli(second, "stats", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["languages"] == [{"lang": "python", "files": 4, "symbols": 7}]
        # and added back: indexed again (from the index it left behind)
        lsp.workspace_did_change_workspace_folders(t.DidChangeWorkspaceFoldersParams(event=t.WorkspaceFoldersChangeEvent(
            added=[t.WorkspaceFolder(uri=second.as_uri(), name="second")], removed=[])))

        async def back():
            hover = await hover_at(lsp, second_doc, 3)
            return hover and only_second in hover.contents.value
        await wait_for(back, what="the added folder's hover")
        # and the CLI's reads there see what the server sees
        done = cli(second, "memories", "--file", "app/core.py", "--json")
        assert done.returncode == 0, done.stderr
        assert only_second in done.stdout


async def test_workspace_symbols(client, project):
    found = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="Store"))
    assert [(s.name, s.kind, s.location.uri, s.location.range.start.line) for s in found] == [
        ("Store", t.SymbolKind.Class, uri(project, "app/core.py"), 8)]
    found = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="ADD"))  # any case
    assert [(s.name, s.kind, s.container_name) for s in found] == [("Store.add", t.SymbolKind.Method, "app/core.py")]
    found = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="parse"))
    assert {(s.name, s.location.uri) for s in found} == {("parse", uri(project, "app/core.py")),
                                                         ("test_parse", uri(project, "tests/test_core.py"))}
    assert len(await client.workspace_symbol_async(t.WorkspaceSymbolParams(query=""))) == 7  # everything
    # LIKE's wildcards and quotes are literal characters
    for query in ("%", "\\", "'; DROP TABLE symbols; --", "nothing-like-this"):
        assert await client.workspace_symbol_async(t.WorkspaceSymbolParams(query=query)) == []
    underscored = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="_"))
    assert {s.name for s in underscored} == {"Store.__init__", "test_parse"}
    assert (await command(client, "memory.stats"))["languages"][0]["symbols"] == 7


def test_the_search_index_is_built_in_the_background_after_the_first_index(project):
    """No search has to make the whole search index: after the first index run the background job
    brings it up to date (before embedding), as `memory.doctor` reports."""
    raw = RawClient(SERVER)
    try:
        raw.initialize(project, options={"embeddings": {"background": True}})
        raw.wait_indexed()

        def built():
            found = raw.call("workspace/executeCommand", {"command": "memory.doctor", "arguments": [{}]})["result"]
            return found["search_index"]["up_to_date"] and found["search_index"]
        status = raw.wait_for(built, timeout=90, what="the search index built in the background")
        assert status["documents"] > 0 and status["files_behind"] == 0
        no_tracebacks(raw)
    finally:
        assert raw.close() == 0
