"""The folders a process holds, shared by every session that uses them.

In the owner (owner.py) several editor windows, each its own LSP session, may open one workspace:
they share its `Folder` (one index, one writer, one graph) and each is told when it changes. A
folder opens with its first session and closes with its last. A standalone server
(`serve --standalone`) has a pool of its own with one session.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from memory_lsp.server.folders import Folder
from memory_lsp.settings import Config

READERS = 4  # threads running read commands of every folder


class Listener(Protocol):
    def changed(self, folder: Folder | None, paths: set[str] | None) -> None: ...


class FolderPool:
    def __init__(self):
        self.reader = ThreadPoolExecutor(READERS, thread_name_prefix="memory-command")
        self._folders: dict[Path, Folder] = {}
        self._users: dict[Path, list[Listener]] = {}
        self._closing: dict[Path, threading.Event] = {}  # set when the folder released last has closed
        self._lock = threading.Lock()

    def acquire(self, path: Path, config: Config, user: Listener) -> tuple[Folder, bool]:
        """The folder at `path` for `user` (told of its changes from now on); True if it is new
        and the caller must start it. A folder still closing at `path` is waited for first: two
        connections to one DuckDB file in a process would conflict (its run rolls back meanwhile)."""
        closing = self._closing.get(path)
        if closing is not None:
            closing.wait(timeout=30)
        with self._lock:
            folder = self._folders.get(path)
            created = folder is None
            if created:
                folder = self._folders[path] = Folder(path, config, self.reader, on_change=self._changed)
            users = self._users.setdefault(path, [])
            if user not in users:
                users.append(user)
            return folder, created

    def release(self, folder: Folder, user: Listener) -> None:
        """`user` is done with the folder; the last one closes it."""
        with self._lock:
            users = self._users.get(folder.path, [])
            if user in users:
                users.remove(user)
            last = not users and self._folders.get(folder.path) is folder
            if last:
                del self._folders[folder.path]
                self._users.pop(folder.path, None)
                closed = self._closing[folder.path] = threading.Event()
        if last:
            try:
                folder.close()
            finally:
                closed.set()
                with self._lock:
                    if self._closing.get(folder.path) is closed:
                        del self._closing[folder.path]

    def holds(self, path: Path | None) -> bool:
        """Whether a folder at `path` is open or closing."""
        with self._lock:
            return path in self._folders or path in self._closing

    def users(self) -> int:
        with self._lock:
            return sum(len(u) for u in self._users.values())

    def _changed(self, folder: Folder, paths: set[str] | None) -> None:
        with self._lock:
            users = list(self._users.get(folder.path, ()))
        for user in users:
            user.changed(folder, paths)
