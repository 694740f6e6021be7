"""The workspace commands: one layer under the CLI and the language server.

`COMMANDS` maps each LSP command name (`memory.search`, ...) to a `Command`: its typed
arguments, its function and how it touches the workspace. `run(target, name, arguments)` checks
the arguments strictly (a mistake is one clear line), fills in the defaults and returns the
JSON-serialisable dict that `memory-lsp ... --json` prints and `workspace/executeCommand`
answers. The functions live in `commands_memory` and `commands_index`.

A target is what a command runs against: `LocalTarget` for the CLI (it opens the index when it
is there and free; memory reads then fall back to replaying the log) or `WorkspaceTarget` for the
server (an open `Workspace` that it does not own). Memory writes always go to the event log
(`target.book`), so they never need the index.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable

from memory_lsp.errors import IndexBusy, UserError
from memory_lsp.memory import citations as cites
from memory_lsp.memory.book import MemoryBook, select
from memory_lsp.memory.model import Memory, iso, parse_time
from memory_lsp.paths import MEMORY_DIR, relpath, workspace_root

if TYPE_CHECKING:
    from memory_lsp.workspace import Workspace

log = logging.getLogger(__name__)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
# the argument types: JSON strings, integers (never booleans), booleans, lists of strings
_EXPECTED = {str: "a string", int: "an integer", bool: "true or false", list: "a list of strings"}


@dataclass(frozen=True)
class Param:
    """One argument: its type (str, int, bool or list = list of strings), default, allowed values."""
    type: type
    default: Any = REQUIRED  # None: optional, and null is accepted
    choices: tuple[str, ...] | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def check(self, command: str, name: str, value: Any) -> Any:
        if value is None and self.default is None:
            return None
        if not _has_type(value, self.type):
            raise UserError(f"{command}: argument {name!r} must be {_EXPECTED[self.type]}, got {_describe(value)}")
        if self.choices is not None and value not in self.choices:
            raise UserError(f"{command}: argument {name!r} must be one of {', '.join(self.choices)}; got {value!r}")
        return list(value) if self.type is list else value


@dataclass(frozen=True)
class Command:
    name: str
    params: dict[str, Param]
    function: Callable[["Target", SimpleNamespace], dict]
    needs_index: bool = False  # runs on the index (a busy one is an error, or a question to the server)
    reads_memories: bool = False  # reads memories: from the index, else by replaying the log
    writes_memories: bool = False  # appends to the event log (the CLI always does that itself)
    timeout: float | None = 120.0  # how long the CLI waits for a running server's answer (None: no limit)

    @property
    def forwardable(self) -> bool:
        """May the CLI ask a running language server instead, while that server owns the index?"""
        return (self.needs_index or self.reads_memories) and not self.writes_memories

    def arguments(self, given: dict | None) -> dict:
        """The checked arguments with the defaults filled in; a mistake is a one-line UserError."""
        given = {} if given is None else given
        if not isinstance(given, dict):
            raise UserError(f"{self.name}: the arguments must be a JSON object, got {_describe(given)}")
        unknown = [key for key in given if key not in self.params]
        if unknown:
            raise UserError(f"{self.name}: unknown argument {unknown[0]!r} "
                            f"(it takes: {', '.join(self.params) or 'no arguments'})")
        values = {}
        for key, param in self.params.items():
            if key in given:
                values[key] = param.check(self.name, key, given[key])
            elif param.required:
                raise UserError(f"{self.name}: missing argument {key!r} ({_EXPECTED[param.type]})")
            else:
                values[key] = list(param.default) if isinstance(param.default, list) else param.default
        return values

    def usage(self) -> str:
        """`name arg:type [arg:type=default (a|b)]...`, for the docs."""
        parts = [self.name]
        for key, p in self.params.items():
            text = f"{key}:{'list[str]' if p.type is list else p.type.__name__}"
            if not p.required:
                text += f"={json.dumps(p.default)}"
            if p.choices:
                text += f" ({'|'.join(p.choices)})"
            parts.append(text if p.required else f"[{text}]")
        return " ".join(parts)


COMMANDS: dict[str, Command] = {}


def command(name: str, *, needs_index: bool = False, reads_memories: bool = False, writes_memories: bool = False,
            timeout: float | None = 120.0, **params: Param):
    """Register the decorated `function(target, args) -> dict` as the command `name`."""
    def register(function):
        COMMANDS[name] = Command(name, params, function, needs_index=needs_index, reads_memories=reads_memories,
                                 writes_memories=writes_memories, timeout=timeout)
        return function
    return register


def run(target: "Target", name: str, arguments: dict | None = None) -> dict:
    """Run one command against `target`; the result is what `memory-lsp ... --json` prints."""
    found = COMMANDS.get(name)
    if found is None:
        raise UserError(f"unknown command {name!r}; the commands are: {', '.join(COMMANDS)}")
    return found.function(target, SimpleNamespace(**found.arguments(arguments)))


def _has_type(value: Any, expected: type) -> bool:
    if expected is list:
        return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


def _describe(value: Any) -> str:
    """A JSON value for an error message: `a string ("ten")`, `true`, `null`, `a list ([1, 2])`."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    kind = ("an integer" if isinstance(value, int) else "a number" if isinstance(value, float)
            else "a string" if isinstance(value, str) else "a list" if isinstance(value, (list, tuple))
            else "an object" if isinstance(value, dict) else type(value).__name__)
    text = json.dumps(value, default=str)
    return f"{kind} ({text if len(text) <= 60 else text[:57] + '...'})"


# -- targets -------------------------------------------------------------------------------
class Target:
    """What a command runs against: a workspace root, its memory book and, when it can, its index."""

    progress: Callable[[int, int], None] | None = None  # a full reindex reports (done, total) here
    note: str | None = None  # for people: why an answer is less than it could be

    def __init__(self, root: Path, book: MemoryBook):
        self.root = root
        self.book = book
        self._ws: "Workspace | None" = None

    def workspace(self) -> "Workspace":
        """The open workspace (its index), or IndexBusy."""
        raise NotImplementedError

    def index(self) -> "Workspace | None":
        """The open workspace if there is one to read; None: read the memories from the log."""
        raise NotImplementedError

    def warn(self, line: str) -> None:
        """Something a person should see that is not part of the result."""
        log.warning("%s", line)

    def memories(self, **filters) -> list[Memory]:
        """Memories filtered as `select` does: from the index, else replayed from the log with the
        citation states read from the files."""
        ws = self.index()
        if ws is not None:
            return ws.memories(**filters)
        at = filters.get("at")
        memories = list(self.book.load(until=iso(parse_time(at)) if at else None).memories.values())
        lookup = self.lookup()
        for m in memories:
            for c in m.citations:
                cites.resolve(c, lookup)
        if filters.get("file"):
            filters["file"] = relpath(self.root, filters["file"])
        return select(memories, **filters)

    def by_id(self) -> dict[str, Memory]:
        return {m.id: m for m in self.memories(include_retired=True)}

    def lookup(self) -> cites.CodeLookup:
        ws = self.index()
        return ws.snapshot().lookup() if ws is not None else cites.FileLookup(self.root)

    def after_write(self) -> None:
        """Keep the index's projection of the memories in step with what was just written."""
        if self._ws is not None:
            self._ws.sync_memories()


class LocalTarget(Target):
    """The CLI's target: opens the index on demand; closes it on exit (use it as a context manager)."""

    def __init__(self, root, db: str | None = None):
        root = workspace_root(root)
        super().__init__(root, MemoryBook(root))
        self.db = db
        self.busy: IndexBusy | None = None  # set when another process owns the index
        self.warnings: list[str] = []

    def workspace(self) -> "Workspace":
        if self._ws is None:
            if self.busy is not None:
                raise self.busy
            from memory_lsp.workspace import Workspace  # duckdb loads only for the commands that need it

            try:
                self._ws = Workspace.open(self.root, db=self.db)
            except IndexBusy as exc:
                self.busy = exc
                raise
        return self._ws

    def index(self) -> "Workspace | None":
        if self._ws is None and self.busy is None and (self.db or (self.root / MEMORY_DIR / "index.duckdb").exists()):
            try:
                self.workspace()
            except IndexBusy:
                pass
        if self.busy is not None:
            self.note = f"{self.busy}: citation states are read from the files"
        return self._ws

    def warn(self, line: str) -> None:
        self.warnings.append(line)

    def close(self) -> None:
        if self._ws is not None:
            self._ws.close()
            self._ws = None

    def __enter__(self) -> "LocalTarget":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class WorkspaceTarget(Target):
    """The server's target: a Workspace it holds open; never closed here. Cheap: one per request."""

    def __init__(self, ws: "Workspace"):
        super().__init__(ws.root, ws.book)
        self._ws = ws

    def workspace(self) -> "Workspace":
        return self._ws

    def index(self) -> "Workspace":
        return self._ws


# the command functions register themselves; the memory commands first (the order they are listed in)
from memory_lsp import commands_memory  # noqa: E402,F401,I001
from memory_lsp import commands_index  # noqa: E402,F401
