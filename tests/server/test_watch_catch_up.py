"""Files changed on disk after the first index looked at the folder but before the file watcher
began: no event reports them, so the watcher compares the disk with the index once it watches
(server/watch.py, index/stale.py). The gap is made certain here: the folder's change notice at
the end of the first index, sent before the watch starts, writes the files."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from memory_lsp.server.folders import Folder
from memory_lsp.settings import Config
from memory_lsp.store import code

from conftest import copy_project

NEW = "from app.core import parse\n\n\ndef extra_fields(line):\n    return parse(line)[1:]\n"


def indexed(folder: Folder) -> dict:
    return code.known_files(folder.ws.store.cursor())


def test_files_changed_before_the_watch_began_are_indexed(tmp_path, project_template):
    root = copy_project(project_template, tmp_path / "proj")
    core = (root / "app/core.py").read_text(encoding="utf-8")
    written = []

    def write_in_the_gap(folder, paths):
        if not written and indexed(folder):  # the first index's notice (not the opening's)
            written.append(True)
            (root / "app/extra.py").write_text(NEW, encoding="utf-8")
            (root / "app/core.py").write_text(core + "\n\ndef parse_twice(text):\n    return parse(parse(text))\n",
                                              encoding="utf-8")
            (root / "tests/test_core.py").unlink()
            (root / "app/api.py").write_text("def saved_elsewhere():\n    pass\n", encoding="utf-8")

    with ThreadPoolExecutor(1) as reader:
        folder = Folder(root, Config(), reader, on_change=write_in_the_gap)
        folder.open_buffers.add("app/api.py")  # open in the editor: its buffer wins over the disk
        try:
            folder.start().result(timeout=120)
            assert written
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                files = indexed(folder)
                if "app/extra.py" in files and "tests/test_core.py" not in files \
                        and files["app/core.py"].size == (root / "app/core.py").stat().st_size:
                    break
                time.sleep(0.05)
            names = {r[0] for r in folder.ws.store.cursor().execute("SELECT name FROM symbols").fetchall()}
            assert {"extra_fields", "parse_twice"} <= names
            assert "test_parse" not in names
            assert "saved_elsewhere" not in names
        finally:
            folder.close()
