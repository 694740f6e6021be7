"""A folder the owner opens for CLI commands (opened, never started: no graph loop, no watcher):
after an index command, the full-text index is built behind the answer, so that an agent's first
`search` does not build it (2.5 s on the standard library, BENCHMARKS.md da)."""

from concurrent.futures import ThreadPoolExecutor

from memory_lsp.server.folders import Folder
from memory_lsp.settings import Config


def test_an_index_command_builds_the_full_text_index_behind_its_answer(tmp_path, write_files):
    root = write_files(tmp_path / "ws", {"app/core.py": "def parse(text):\n    return text.split(',')\n",
                                         "app/api.py": "from app.core import parse\n\ndef serve(x):\n    return parse(x)\n"})
    with ThreadPoolExecutor(1) as reader:
        folder = Folder(root, Config(), reader, on_change=lambda folder, paths: None)
        try:
            folder.open().result(timeout=60)
            answer = folder.command("memory.reindex", {}).result(timeout=120)
            assert answer["parsed"] == 2
            folder.sync_memories().result(timeout=60)  # a writer job queued after the one behind the answer
            assert folder.ws.search_index_current()
            found = folder.command("memory.search", {"query": "parse"}).result(timeout=60)
            assert found["results"][0]["symbol"] == "parse"
        finally:
            folder.close()
