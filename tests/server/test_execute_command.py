"""workspace/executeCommand: each command answers with what `memory-lsp ... --json` prints for the
same arguments. The CLI cannot open the index while the server owns it, so it runs on a twin: a
copy of the same project (same memories, same ids), indexed by the CLI. Bad arguments get one
error each, and the server goes on answering."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException

from conftest import MEMORIES, cli_here, command, copy_project, memory, memory_ids, running

pytestmark = pytest.mark.asyncio(loop_scope="module")

GOTCHA, DECISION, POLICY = (m[0] for m in MEMORIES)
AGENTS = """# Working here

- Always run the tests with `pytest -q` before committing.
- Never edit generated files under build/.
"""


def cli_json(root: Path, *args: str):
    """What `memory-lsp ARGS --json` prints (run in this process on the twin: no server holds it)."""
    code, out = cli_here(root, *args, "--json")
    assert code == 0
    return json.loads(out)


@pytest.fixture(scope="module")
def twin(tmp_path_factory, project_template) -> tuple[Path, dict]:
    """The project again, indexed by the CLI (its `index --json` output kept)."""
    root = copy_project(project_template, tmp_path_factory.mktemp("twin") / "proj")
    return root, cli_json(root, "index")


def same_root(value, here: Path, there: Path):
    """`value` with the twin's folder written as this project's (doctor names its files)."""
    return json.loads(json.dumps(value).replace(str(there), str(here)))


def same(ours, theirs, where: str = "") -> None:
    """Equal, except that numbers with a fraction may differ in their last digits (effective
    confidence decays by the millisecond, centrality scores are sums of floats) and that keys
    may come in another order (edge kinds with the same count)."""
    if isinstance(ours, float) or isinstance(theirs, float):
        assert isinstance(ours, (int, float)) and isinstance(theirs, (int, float)), where
        assert abs(ours - theirs) <= 1e-3, f"{where}: {ours} != {theirs}"
    elif isinstance(ours, dict):
        assert isinstance(theirs, dict) and set(ours) == set(theirs), f"{where}: keys {list(ours)} != {list(theirs)}"
        for k in ours:
            same(ours[k], theirs[k], f"{where}.{k}")
    elif isinstance(ours, list):
        assert isinstance(theirs, list) and len(ours) == len(theirs), f"{where}: {ours} != {theirs}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def shape(value, path: str = "") -> set[str]:
    """Every key path in a JSON value (`results[].citations[].state`), with the type of the leaves."""
    if isinstance(value, dict):
        out = {path or "."}
        for k, v in value.items():
            out |= shape(v, f"{path}.{k}")
        return out
    if isinstance(value, list):
        out = {f"{path}[]"}
        for v in value:
            out |= shape(v, f"{path}[]")
        return out
    if value is None:
        return {f"{path}"}
    return {f"{path}:{'number' if isinstance(value, (int, float)) and not isinstance(value, bool) else type(value).__name__}"}


# -- reading commands: equal to the CLI's answer on the twin -------------------------------------------------
async def test_impact(module_client, twin):
    ours = await command(module_client, "memory.impact", target="app/core.py::parse", depth=2)
    same(ours, cli_json(twin[0], "impact", "app/core.py::parse", "--depth", "2"))
    assert [d["symbol"] for d in ours["dependents"]] == ["Store.add", "handle", "test_parse"]
    assert ours["tests"] == ["tests/test_core.py"]
    # the default depth is the CLI's too
    same(await command(module_client, "memory.impact", target="app/core.py"), cli_json(twin[0], "impact", "app/core.py"))


async def test_search_memories(module_client, twin):
    ours = await command(module_client, "memory.search", query="comma inside quotes", kind="memory")
    same(ours, cli_json(twin[0], "search", "comma inside quotes", "--kind", "memory"))
    assert ours["results"][0]["text"] == GOTCHA
    assert ours["results"][0]["kind"] == "memory" and ours["results"][0]["state"] == "valid"
    assert ours["note"]  # no vectors in this tiny workspace: BM25 and the graph, and it says so
    code = await command(module_client, "memory.search", query="Store add rows", kind="code", k=3, mode="bm25")
    same(code, cli_json(twin[0], "search", "Store add rows", "--kind", "code", "--k", "3", "--mode", "bm25"))
    assert len(code["results"]) <= 3 and all(r["kind"] == "code" for r in code["results"])


async def test_context(module_client, twin):
    ours = await command(module_client, "memory.context", file=["app/core.py"], query="parse", budget=500)
    same(ours, cli_json(twin[0], "context", "--file", "app/core.py", "--query", "parse", "--budget", "500"))
    assert "<memory>" in ours["text"] and GOTCHA in ours["text"]
    assert ours["tokens"] <= 500


async def test_expand(module_client, twin):
    ours = await command(module_client, "memory.expand", file="app/core.py")
    same(ours, cli_json(twin[0], "expand", "app/core.py"))
    assert [s["symbol"] for s in ours["symbols"]] == ["parse", "Store", "Store.__init__", "Store.add"]
    assert {m["text"] for m in ours["memories"]} == {GOTCHA, DECISION, POLICY}


async def test_stats_and_doctor(module_client, module_project, twin):
    same(await command(module_client, "memory.stats", top=2, example=True),
         cli_json(twin[0], "stats", "--top", "2", "--example"))
    ours = await command(module_client, "memory.doctor")
    same(ours, same_root(cli_json(twin[0], "doctor"), module_project, twin[0]))
    assert ours["healthy"] is True and ours["memory_log"]["memories"] == 3


async def test_memories_and_export(module_client, twin):
    ours = await command(module_client, "memory.memories", file="app/core.py")
    same(ours, cli_json(twin[0], "memories", "--file", "app/core.py"))
    for fmt in ("json", "markdown", "agents"):
        exported = await command(module_client, "memory.export", format=fmt)
        assert set(exported) == {"format", "count", "text"} and exported["count"] == 3
        code, printed = cli_here(twin[0], "export", "--format", fmt)  # the CLI prints the text itself
        assert code == 0
        if fmt == "json":
            same(json.loads(exported["text"]), json.loads(printed))
        else:
            assert exported["text"].strip() == printed.strip()


async def test_reindex(module_client, twin):
    ours = await command(module_client, "memory.reindex")
    assert shape(ours) == shape(twin[1])
    assert ours["files"] == twin[1]["files"] == 4
    assert ours["parsed"] == 0 and ours["unchanged"] == 4  # nothing changed since the server indexed
    assert (ours["languages"], ours["edges"]) == (twin[1]["languages"], twin[1]["edges"])
    # ties come in any order, and centrality scores may differ in their last digit
    assert sorted((c["path"], c["dependents"]) for c in ours["central"]) == \
        sorted((c["path"], c["dependents"]) for c in twin[1]["central"])
    one = await command(module_client, "memory.reindex", files=["app/api.py"])
    assert shape(one) == shape(ours)


# -- writing commands: the same shape as the CLI's answer; the memory changes -----------------------------
async def test_teach_feedback_forget(project, project_template, tmp_path):
    other = copy_project(project_template, tmp_path / "other")
    async with running(project) as lsp:
        text = "handle() builds a new Store per request: nothing is shared between requests"
        taught = await command(lsp, "memory.teach", text=text, type="gotcha", cite=["app/api.py::handle"],
                               tag=["store"])
        theirs = cli_json(other, "teach", text, "--type", "gotcha", "--cite", "app/api.py::handle", "--tag", "store")
        assert shape(taught) == shape(theirs)
        assert taught["created"] is True and taught["memory"]["text"] == text
        assert taught["memory"]["citations"][0]["state"] == "valid"
        # teaching the same text again writes nothing
        again = await command(lsp, "memory.teach", text=text, type="gotcha")
        assert again["created"] is False and again["id"] == taught["id"]

        ids = await memory_ids(lsp)
        assert ids[text] == taught["id"]
        verdict = await command(lsp, "memory.feedback", id=ids[DECISION], verdict="useful")
        assert verdict == cli_json(other, "feedback", ids[DECISION], "useful") == {"id": ids[DECISION], "ok": True}
        assert (await memory(lsp, ids[DECISION]))["feedback"]["useful"] == 1

        forgot = await command(lsp, "memory.forget", id=taught["id"], reason="Store is now shared")
        assert forgot == {"id": taught["id"], "ok": True}
        assert shape(forgot) == shape(cli_json(other, "forget", theirs["id"], "--reason", "Store is now shared"))
        assert taught["id"] not in (await memory_ids(lsp)).values()
        gone = await memory(lsp, taught["id"], all=True)
        assert gone["valid_to"] is not None


async def test_import_and_export(project, project_template, tmp_path):
    other = copy_project(project_template, tmp_path / "other")
    for root in (project, other):
        (root / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    async with running(project) as lsp:
        imported = await command(lsp, "memory.import")
        theirs = cli_json(other, "import")
        assert shape(imported) == shape(theirs)
        assert imported["files"] == theirs["files"] == ["AGENTS.md"]
        assert len(imported["created"]) == len(theirs["created"]) == 2
        assert (await command(lsp, "memory.import"))["unchanged"] == 2  # idempotent

        exported = await command(lsp, "memory.export", format="json")
        texts = {m["text"] for m in json.loads(exported["text"])["memories"]}
        assert any("pytest -q" in text for text in texts) and GOTCHA in texts
        assert exported["count"] == 5
        # the imported memories carry their file and line
        listed = (await command(lsp, "memory.memories", type="workflow_recipe"))["memories"] + \
            (await command(lsp, "memory.memories", type="policy"))["memories"]
        assert any((m["provenance"] or {}).get("path") == "AGENTS.md" for m in listed)


# -- bad arguments ----------------------------------------------------------------------------------------------------
BAD = [
    ("memory.nope", [{}], "memory.nope"),  # unknown command
    ("memory.search", [{"query": 5}], "argument 'query' must be a string"),  # wrong type
    ("memory.search", [{"query": "x", "k": "ten"}], "argument 'k' must be an integer"),
    ("memory.search", [{"query": "x", "k": True}], "argument 'k' must be an integer"),  # a boolean is not one
    ("memory.search", [{"query": "x", "kind": "everything"}], "must be one of memory, code, all"),
    ("memory.search", [{}], "missing argument 'query'"),  # missing required
    ("memory.impact", [], "missing argument 'target'"),
    ("memory.search", ["comma"], "takes one argument, a JSON object"),  # not an object
    ("memory.search", [{"query": "x"}, {"k": 2}], "takes one argument, a JSON object"),
    ("memory.search", [{"query": "x", "bogus": 1}], "unknown argument 'bogus'"),
    ("memory.teach", [{"text": "x", "type": "rumour"}], "argument 'type' must be one of"),
    ("memory.feedback", [{"id": "no-such-memory", "verdict": "wrong"}], "no-such-memory"),
    ("memory.impact", [{"target": "nowhere.py"}], "nowhere.py"),
    ("memory.expand", [{"file": ["app/core.py"]}], "argument 'file' must be a string"),
    ("memory.stats", [{"workspace": "/not/a/folder/we/have"}], "not one of the open workspace folders"),
]


def record_responses(client) -> list:
    """Every response the client receives, as (id, error or None)."""
    seen = []
    original = client.protocol.handle_message

    def handle(message):
        if not hasattr(message, "method") and getattr(message, "id", None) is not None:
            seen.append((message.id, getattr(message, "error", None)))
        return original(message)
    client.protocol.handle_message = handle
    return seen


async def test_bad_arguments_get_one_error_each(module_client):
    responses = record_responses(module_client)
    ids_before = await memory_ids(module_client)
    responses.clear()
    for name, arguments, needle in BAD:
        with pytest.raises(JsonRpcException) as raised:
            await module_client.workspace_execute_command_async(t.ExecuteCommandParams(command=name,
                                                                                       arguments=arguments))
        unknown = name == "memory.nope"  # MethodNotFound; the rest InvalidParams
        assert raised.value.code == (-32601 if unknown else -32602), (name, arguments, raised.value)
        assert needle in raised.value.message, (name, arguments, raised.value.message)
        assert "Traceback" not in raised.value.message and raised.value.data is None
    # still answering, with its data; the bad requests changed nothing
    stats = await command(module_client, "memory.stats")
    assert stats["languages"] == [{"lang": "python", "files": 4, "symbols": 7}]
    assert await memory_ids(module_client) == ids_before
    await asyncio.sleep(0.3)  # time for any stray second answer to arrive
    answered = [i for i, _ in responses]
    assert len(answered) == len(set(answered)) == len(BAD) + 2
    assert sum(error is not None for _, error in responses) == len(BAD)


async def test_commands_in_a_multi_root_workspace_pick_their_folder(project, project_template, tmp_path):
    second = copy_project(project_template, tmp_path / "second")
    (second / "app/extra.py").write_text("def extra():\n    return 1\n", encoding="utf-8")
    async with running(None, folders=[project, second]) as lsp:
        first = await command(lsp, "memory.stats")  # no workspace given: the first folder
        assert first["languages"][0]["files"] == 4
        other = await command(lsp, "memory.stats", workspace=str(second))
        assert other["languages"][0]["files"] == 5
        other = await command(lsp, "memory.stats", workspace=second.as_uri())
        assert other["languages"][0]["files"] == 5
        taught = await command(lsp, "memory.teach", workspace=str(second), text="extra() is a stub", type="fact")
        assert "extra() is a stub" in (second / ".memory/events.jsonl").read_text()
        assert "extra() is a stub" not in (project / ".memory/events.jsonl").read_text()
        assert taught["created"]
