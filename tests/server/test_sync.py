"""Keeping up with the workspace: buffer edits (debounced), saves and closes; files changed on
disk outside the editor (the watcher, and didChangeWatchedFiles); memories appended by the CLI
while the server runs. After a change the server asks the editor to refresh."""

from __future__ import annotations

import pytest
from lsprotocol import types as t

from conftest import (MEMORIES, PROJECT, cli, hover_at, lenses, open_doc, pull, replace_all, running, uri,
                      wait_for)

pytestmark = pytest.mark.asyncio(loop_scope="module")

GOTCHA, DECISION, POLICY = (m[0] for m in MEMORIES)
CORE = PROJECT["app/core.py"]
NEW_FUNCTION = '''

def parse_quoted(text):
    """parse() for quoted input."""
    import csv
    return next(csv.reader([text]))


def clear_screen():
    return os.system("clear") or parse_quoted("")
'''


async def symbols(client, query: str) -> set[tuple[str, str]]:
    found = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query=query))
    return {(s.name, s.location.uri) for s in found or []}


async def lens_symbols(client, doc: str) -> list[str]:
    return [lens.data["symbol"] for lens in await lenses(client, doc, resolve=False)]


async def test_a_buffer_edit_changes_lenses_and_diagnostics(project):
    async with running(project) as lsp:
        doc = open_doc(lsp, project, "app/core.py")
        assert await lens_symbols(lsp, doc) == ["parse", "Store", "Store.add"]  # lenses only with something to say
        before = await pull(lsp, doc)
        assert all(d.severity != t.DiagnosticSeverity.Warning for d in before)
        lens_refreshes, diagnostic_refreshes = lsp.lens_refreshes, lsp.diagnostic_refresh_count

        # typing: an incremental edit that appends two functions (unsaved)
        end = len(CORE.splitlines())
        lsp.text_document_did_change(t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=doc, version=2),
            content_changes=[t.TextDocumentContentChangePartial(
                range=t.Range(t.Position(end, 0), t.Position(end, 0)), text=NEW_FUNCTION)]))

        async def new_lenses():
            return "parse_quoted" in await lens_symbols(lsp, doc)
        await wait_for(new_lenses, what="a lens on the new function")
        assert await lens_symbols(lsp, doc) == ["parse", "Store", "Store.add", "parse_quoted"]  # clear_screen calls it
        resolved = {lens.data["symbol"]: lens.command.title for lens in await lenses(lsp, doc)}
        assert resolved["parse_quoted"] == "1 dependent"  # no test calls it (test_core's calls parse only)
        await wait_for(lambda: lsp.lens_refreshes > lens_refreshes, what="a code lens refresh")
        await wait_for(lambda: lsp.diagnostic_refresh_count > diagnostic_refreshes, what="a diagnostic refresh")

        # the diagnostics changed with the buffer: the policy's pattern matches in the new code
        after = await pull(lsp, doc)
        (hit,) = [d for d in after if d.severity == t.DiagnosticSeverity.Warning]
        assert POLICY in hit.message and hit.range.start.line == end + 9
        assert [d.code for d in after if d != hit] == [d.code for d in before]
        # the new function is in the index, from the buffer: the disk did not change
        assert ("parse_quoted", doc) in await symbols(lsp, "parse_quoted")
        assert "parse_quoted" not in (project / "app/core.py").read_text()
        # between edits the run's writes go into the index file, not DuckDB's memory (and log)
        wal = project / ".memory" / "index.duckdb.wal"
        await wait_for(lambda: not wal.exists() or wal.stat().st_size == 0, what="the edit checkpointed")


async def test_save_reindexes_at_once_and_close_returns_to_the_disk(project):
    # a long debounce: only the save can re-index in time
    async with running(project, options={"indexing": {"debounceMs": 10_000}}) as lsp:
        doc = open_doc(lsp, project, "app/core.py")
        replace_all(lsp, doc, CORE + NEW_FUNCTION, version=2)
        (project / "app/core.py").write_text(CORE + NEW_FUNCTION, encoding="utf-8")
        lsp.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=doc)))

        async def indexed_new():
            return ("clear_screen", doc) in await symbols(lsp, "clear_screen")
        await wait_for(indexed_new, what="the saved function in the index")

        # an unsaved edit, then the buffer is closed without saving: the disk is the truth again
        replace_all(lsp, doc, CORE + NEW_FUNCTION + "\n\ndef scratch():\n    pass\n", version=3)
        lsp.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=doc)))
        await wait_for(lambda: symbols(lsp, "scratch"), what="the unsaved function, indexed on save")
        lsp.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=doc)))

        async def gone():
            return not await symbols(lsp, "scratch")
        await wait_for(gone, what="the closed buffer's function to leave the index")
        assert await symbols(lsp, "clear_screen")


async def test_a_file_written_outside_the_editor_is_indexed(module_client, module_project):
    path = module_project / "app/extra.py"
    path.write_text("from app.core import parse\n\n\ndef extra_fields(line):\n    return parse(line)[1:]\n",
                    encoding="utf-8")

    async def found():
        return await symbols(module_client, "extra_fields")
    assert await wait_for(found, what="the watcher to index the new file") == {
        ("extra_fields", uri(module_project, "app/extra.py"))}
    # and it is in the graph: parse has one more dependent
    doc = open_doc(module_client, module_project, "app/core.py")

    async def counted():
        titles = {lens.data["symbol"]: lens.command.title for lens in await lenses(module_client, doc)}
        return titles["parse"] == "1 memory · 4 dependents · 1 test"
    await wait_for(counted, what="the new dependent in the lens")

    path.unlink()
    await wait_for(lambda: _empty(symbols(module_client, "extra_fields")), what="the deleted file to leave the index")


async def _empty(awaitable) -> bool:
    return not await awaitable


async def test_did_change_watched_files_without_the_watcher(project):
    async with running(project, options={"indexing": {"watch": False}}) as lsp:
        (project / "app/extra.py").write_text("def extra_fields(line):\n    return line[1:]\n", encoding="utf-8")
        lsp.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
            t.FileEvent(uri=uri(project, "app/extra.py"), type=t.FileChangeType.Created)]))
        await wait_for(lambda: symbols(lsp, "extra_fields"), what="the reported file to be indexed")

        # a memory appended to the log, reported the same way
        done = cli(project, "teach", "extra_fields drops the first field", "--type", "fact",
                   "--cite", "app/extra.py::extra_fields")
        assert done.returncode == 0, done.stderr
        lsp.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(changes=[
            t.FileEvent(uri=uri(project, ".memory/events.jsonl"), type=t.FileChangeType.Changed)]))
        doc = open_doc(lsp, project, "app/extra.py")

        async def shown():
            hover = await hover_at(lsp, doc, 0)
            return hover and "extra_fields drops the first field" in hover.contents.value
        await wait_for(shown, what="the memory in the hover")


async def test_a_memory_taught_by_the_cli_appears_in_a_hover(module_client, module_project):
    doc = open_doc(module_client, module_project, "app/api.py")
    text = "shell() passes cmd to the shell unquoted: never call it with user input"
    hover = await hover_at(module_client, doc, 12)
    assert text not in hover.contents.value
    # another process writes to the log while the server owns the index
    done = cli(module_project, "teach", text, "--type", "gotcha", "--cite", "app/api.py::shell")
    assert done.returncode == 0, done.stderr

    async def shown():
        hover = await hover_at(module_client, doc, 12)
        return hover.contents.value if text in hover.contents.value else None
    value = await wait_for(shown, what="the CLI's memory in the hover")
    assert value.index(text) < value.index(POLICY)  # it is about the symbol under the cursor
    # and the diagnostics know it too
    assert any(text in d.message for d in await pull(module_client, doc))


async def test_the_cli_reads_through_the_running_server(module_client, module_project):
    # DuckDB lets one process open the index: read commands are answered by the owner that holds it
    done = cli(module_project, "search", "comma inside quotes", "--kind", "memory", "--json")
    assert done.returncode == 0, done.stderr
    assert "in use by another" not in done.stderr
    assert GOTCHA in done.stdout
    done = cli(module_project, "impact", "app/core.py::parse", "--json")
    assert done.returncode == 0, done.stderr
    assert '"tests/test_core.py"' in done.stdout


async def test_a_saved_package_json_moves_imports_in_the_running_server(tmp_path):
    """package.json is not code, but its `exports` decide where `import "pkg/x"` lands: the
    watcher hands it to a run, and the lenses follow without any source file changing."""
    import json

    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "pkg", "exports": {"./x": "./src/x.ts"}}))
    (root / "src/x.ts").write_text("export function f() { return 1 }\n")
    (root / "src/y.ts").write_text("export function f() { return 2 }\n")
    (root / "src/a.ts").write_text('import { f } from "pkg/x"\n\nexport const g = () => f()\n')
    async with running(root, options={"codeLens": {"minDependents": 1}}) as lsp:
        doc = open_doc(lsp, root, "src/y.ts")

        async def titles():
            return [lens.command.title for lens in await lenses(lsp, doc)]
        assert not any("dependent" in title for title in await titles())
        (root / "package.json").write_text(json.dumps({"name": "pkg", "exports": {"./x": "./src/y.ts"}}))

        async def moved():
            return any("dependent" in title for title in await titles())
        await wait_for(moved, what="src/a.ts to depend on src/y.ts once package.json says so")
