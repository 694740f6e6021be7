"""Code actions: teach a memory about the selection; mark a memory at the cursor outdated or wrong;
re-anchor a drifted citation; pin or unpin. Each action carries a workspace command, and running
that command changes the memory."""

from __future__ import annotations

from lsprotocol import types as t

from conftest import (MEMORIES, PROJECT, code_actions, hover_at, memory, memory_ids, open_doc, pull, replace_all,
                      wait_for)

GOTCHA, DECISION, POLICY = (m[0] for m in MEMORIES)
CORE = PROJECT["app/core.py"]


async def execute(client, action: t.CodeAction):
    cmd = action.command
    return await client.workspace_execute_command_async(t.ExecuteCommandParams(command=cmd.command,
                                                                                 arguments=list(cmd.arguments)))


def titled(actions, prefix: str) -> t.CodeAction:
    found = [a for a in actions if a.title.startswith(prefix)]
    assert len(found) == 1, f"no single action {prefix!r} in {[a.title for a in actions]}"
    return found[0]


async def test_teach_from_the_selection(client, project, tmp_path):
    doc = open_doc(client, project, "app/core.py")
    # a selection: the citation is its lines
    actions = await code_actions(client, doc, (4, 0), (6, 0))
    teach = actions[0]
    assert isinstance(teach, t.CodeAction)
    assert teach.title == "Teach a memory about this selection"
    assert teach.kind == t.CodeActionKind.Refactor
    assert teach.command.command == "memory.teachDraft"
    assert list(teach.command.arguments) == [{"cite": ["app/core.py:5-6"], "type": "gotcha"}]

    # the cursor in a function: the citation is the symbol
    teach = (await code_actions(client, doc, (13, 8)))[0]
    assert teach.title == "Teach a memory about Store.add"
    assert list(teach.command.arguments) == [{"cite": ["app/core.py::Store.add"], "type": "gotcha"}]

    # an editor that can prompt asks for the text and runs memory.teach with it
    args = {**teach.command.arguments[0], "text": "add() returns the new row count, not the row"}
    taught = await client.workspace_execute_command_async(t.ExecuteCommandParams(command="memory.teach",
                                                                                   arguments=[args]))
    assert taught["created"] is True
    cite = taught["memory"]["citations"][0]
    assert (cite["path"], cite["symbol"], cite["state"]) == ("app/core.py", "Store.add", "valid")

    async def shown():
        hover = await hover_at(client, doc, 13)
        return hover and args["text"] in hover.contents.value
    await wait_for(shown, what="the new memory in the hover")
    assert (await code_actions(client, doc, (13, 8)))[1].title.startswith("Mark “add() returns the new row")

    # nothing for a document outside the workspace
    (tmp_path / "x.py").write_text("x = 1\n")
    assert await code_actions(client, (tmp_path / "x.py").as_uri(), (0, 0)) == []


async def test_feedback_and_pin_on_the_memory_at_the_cursor(client, project):
    ids = await memory_ids(client)
    doc = open_doc(client, project, "app/core.py")
    actions = await code_actions(client, doc, (3, 4))  # def parse
    assert [a.title for a in actions] == [
        "Teach a memory about parse",
        "Mark “parse() splits on every comma, even ins…” outdated",
        "Mark “parse() splits on every comma, even ins…” wrong",
        "Pin “parse() splits on every comma, even ins…”",
    ]
    outdated = titled(actions, "Mark “parse() splits on every comma, even ins…” outdated")
    assert outdated.kind == t.CodeActionKind.QuickFix
    assert list(outdated.command.arguments) == [{"id": ids[GOTCHA], "verdict": "outdated"}]
    assert titled(actions, "Pin").command.arguments[0] == {"id": ids[GOTCHA], "off": False}

    assert await execute(client, outdated) == {"id": ids[GOTCHA], "ok": True}
    m = await memory(client, ids[GOTCHA])
    assert m["feedback"]["outdated"] == 1 and m["confidence"] == 0.5
    await execute(client, titled(actions, "Mark “parse() splits on every comma, even ins…” wrong"))
    m = await memory(client, ids[GOTCHA])
    assert m["feedback"] == {"useful": 0, "wrong": 1, "outdated": 1}
    assert abs(m["confidence"] - 0.15) < 1e-9

    # pin, then the action offered is unpin
    await execute(client, titled(actions, "Pin"))
    assert (await memory(client, ids[GOTCHA]))["pinned"] is True

    async def unpin_offered():
        return any(a.title.startswith("Unpin") for a in await code_actions(client, doc, (3, 4)))
    await wait_for(unpin_offered, what="the unpin action")
    unpin = titled(await code_actions(client, doc, (3, 4)), "Unpin")
    assert unpin.command.arguments[0] == {"id": ids[GOTCHA], "off": True}
    await execute(client, unpin)
    assert (await memory(client, ids[GOTCHA]))["pinned"] is False

    # a memory reached through the diagnostic the editor passes along (a policy has no citation)
    api = open_doc(client, project, "app/api.py")
    (hit,) = await pull(client, api)
    actions = await code_actions(client, api, (hit.range.start.line, hit.range.start.character),
                                 diagnostics=[hit])
    wrong = titled(actions, "Mark “Never shell out with os.system: use sub…” wrong")
    assert wrong.command.arguments[0] == {"id": ids[POLICY], "verdict": "wrong"}
    assert [d.code for d in wrong.diagnostics] == [ids[POLICY]]
    # and nothing but "teach" where no memory is
    assert [a.title for a in await code_actions(client, api, (0, 0))] == ["Teach a memory about app/api.py"]


async def test_reanchor_a_drifted_citation(client, project):
    ids = await memory_ids(client)
    doc = open_doc(client, project, "app/core.py")
    assert not any(a.title.startswith("Re-anchor") for a in await code_actions(client, doc, (3, 4)))
    replace_all(client, doc, CORE.replace('return text.split(",")', 'return text.split(";")'), version=2)

    async def drift_diagnostic():
        return next((d for d in await pull(client, doc)
                     if d.code == ids[GOTCHA] and (d.data or {}).get("citation") == "drifted"), None)
    diagnostic = await wait_for(drift_diagnostic, what="the drifted citation")
    assert (await memory(client, ids[GOTCHA]))["state"] == "drifted"

    actions = await code_actions(client, doc, (3, 0), diagnostics=[diagnostic])
    reanchor = titled(actions, "Re-anchor")
    assert reanchor.title == "Re-anchor “parse() splits on every comma, even ins…” to the current code"
    assert reanchor.kind == t.CodeActionKind.QuickFix and reanchor.is_preferred
    assert [d.code for d in reanchor.diagnostics] == [ids[GOTCHA]]
    assert list(reanchor.command.arguments) == [{"id": ids[GOTCHA]}]

    assert await execute(client, reanchor) == {"id": ids[GOTCHA], "ok": True}
    m = await memory(client, ids[GOTCHA])
    assert m["state"] == "valid" and m["citations"][0]["state"] == "valid"

    async def anchored_again():
        d = next((d for d in await pull(client, doc) if d.code == ids[GOTCHA]), None)
        return d is not None and "citation" not in d.data
    await wait_for(anchored_again, what="the diagnostic back to the memory itself")
    assert not any(a.title.startswith("Re-anchor") for a in await code_actions(client, doc, (3, 4)))
