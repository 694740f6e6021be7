"""Teaching through a draft file, the way an editor that cannot prompt does it: the code action
runs `memory.teachDraft`, the editor shows `.memory/drafts/<id>.md`, the user writes the text and
saves, and the memory is stored and the draft deleted. Empty or bad drafts store nothing."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as t

from conftest import code_actions, memory_ids, open_doc, replace_all, running, wait_for


async def execute(client, action: t.CodeAction):
    cmd = action.command
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(command=cmd.command,
                                                                                 arguments=list(cmd.arguments)))


def save(client, doc_uri: str) -> None:
    client.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=doc_uri)))


async def said(client, words: str, what: str) -> t.ShowMessageParams:
    def found():
        return next((m for m in client.messages if words in m.message), None)
    return await wait_for(found, timeout=30, what=what)


def write(client, project: Path, rel: str, text: str, version: int) -> None:
    """What an editor does on save: the buffer changes, the file is written, didSave follows."""
    replace_all(client, (project / rel).as_uri(), text, version)
    (project / rel).write_text(text, encoding="utf-8")
    save(client, (project / rel).as_uri())


async def test_teach_through_a_draft(client, project):
    doc = open_doc(client, project, "app/core.py")
    teach = (await code_actions(client, doc, (13, 8)))[0]
    assert teach.title == "Teach a memory about Store.add"
    assert teach.command.command == "memory.teachDraft"
    assert list(teach.command.arguments) == [{"cite": ["app/core.py::Store.add"], "type": "gotcha"}]

    before = await memory_ids(client)
    opened = await execute(client, teach)
    rel = opened["draft"]
    assert rel.startswith(".memory/drafts/") and rel.endswith(".md")
    assert opened["opened"] == "showDocument"
    assert [d.uri for d in client.shown_documents] == [opened["uri"]] == [(project / rel).as_uri()]
    draft = (project / rel).read_text(encoding="utf-8")
    assert "type: gotcha\n" in draft and "cite: app/core.py::Store.add\n" in draft and "text:\n" in draft
    assert "drafts/" in (project / ".memory/.gitignore").read_text().splitlines()

    # saved as it came: nothing stored, the draft stays
    draft_uri = open_doc(client, project, rel)
    save(client, draft_uri)
    await said(client, "nothing stored", "the empty draft's message")
    assert (project / rel).exists() and await memory_ids(client) == before

    # written and saved: stored with the draft's citation, the draft gone
    text = "add() returns the new row count, not the row"
    write(client, project, rel, draft + text + "\n", 2)
    await said(client, "the draft is deleted", "the stored message")
    assert not (project / rel).exists()
    after = await memory_ids(client)
    assert set(after) - set(before) == {text}
    found = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="memory.memories", arguments=[{"file": "app/core.py"}]))
    stored = next(m for m in found["memories"] if m["text"] == text)
    assert stored["type"] == "gotcha"
    assert [(c["path"], c["symbol"], c["state"]) for c in stored["citations"]] == [("app/core.py", "Store.add", "valid")]
    # the draft never reached the code index
    symbols = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="teach"))
    assert not [s for s in symbols or [] if ".memory" in s.location.uri]


async def test_a_bad_draft_is_kept_and_an_empty_closed_one_dropped(client, project):
    opened = await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="memory.teachDraft", arguments=[{"cite": ["app/core.py::parse"], "type": "gotcha"}]))
    rel = opened["draft"]
    draft_uri = open_doc(client, project, rel)
    before = await memory_ids(client)
    draft = (project / rel).read_text(encoding="utf-8")
    write(client, project, rel, draft.replace("type: gotcha", "type: rumour") + "parse is slow\n", 2)
    message = await said(client, "not stored", "the bad type's message")
    assert message.type == t.MessageType.Error and "rumour" in message.message
    assert (project / rel).exists() and await memory_ids(client) == before

    # a second draft, closed without text: deleted; the bad one, closed with text: kept
    second = (await client.workspace_execute_command_async(t.ExecuteCommandParams(
        command="memory.teachDraft", arguments=[{"cite": [], "type": "decision"}])))["draft"]
    second_uri = open_doc(client, project, second)
    for doc_uri in (second_uri, draft_uri):
        client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=doc_uri)))
    await wait_for(lambda: not (project / second).exists(), timeout=30, what="the empty draft deleted")
    assert (project / rel).exists()


async def test_a_client_without_show_document_is_told_where_the_draft_is(project):
    async with running(project, client="neovim@v0.7.0") as client:
        opened = await client.workspace_execute_command_async(t.ExecuteCommandParams(
            command="memory.teachDraft", arguments=[{"cite": ["app/api.py::handle"], "type": "decision"}]))
        assert opened["opened"] == "message"
        rel = opened["draft"]
        assert "cite: app/api.py::handle\n" in (project / rel).read_text(encoding="utf-8")
        await said(client, rel, "the message naming the draft")


async def test_a_client_without_show_document_gets_a_workspace_edit(project):
    from conftest import SERVER, indexed, init_params, prepare
    from pytest_lsp import ClientServerConfig

    client = prepare(await ClientServerConfig(server_command=SERVER).start())
    edits: list[t.WorkspaceEdit] = []

    @client.feature(t.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: t.ApplyWorkspaceEditParams):  # an editor: a new buffer with the inserted text
        edits.append(params.edit)
        return t.ApplyWorkspaceEditResult(applied=True)
    try:
        params = init_params(project)
        params.capabilities.window.show_document = None
        await client.initialize_session(params)
        await indexed(client)
        opened = await client.workspace_execute_command_async(t.ExecuteCommandParams(
            command="memory.teachDraft", arguments=[{"cite": ["app/core.py::Store"], "type": "decision"}]))
        assert opened["opened"] == "applyEdit" and not client.shown_documents
        create, insert = edits[0].document_changes
        assert isinstance(create, t.CreateFile) and create.uri == opened["uri"]
        content = insert.edits[0].new_text
        assert "cite: app/core.py::Store\n" in content
        assert not (project / opened["draft"]).exists()  # the editor creates it, on save

        rel = opened["draft"]
        open_doc(client, project, rel, text=content)
        text = "Store is not thread-safe"
        write(client, project, rel, content + text + "\n", 2)
        await said(client, "the draft is deleted", "the stored message")
        assert text in await memory_ids(client) and not (project / rel).exists()
    finally:
        await client.shutdown_session()
        await client.stop()
