"""How a command is declared: `Param` (one argument), `Command` (a name, its params, its function),
the strict argument check every caller goes through, the usage line, and the argparse parser the
CLI is built from. Each command's arguments are written once, as Params in `commands.memory` and
`commands.code`; the CLI, `workspace/executeCommand` and the README table all follow them.
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

from memory_lsp.errors import UserError

log = logging.getLogger(__name__)


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
# the argument types: JSON strings, integers (never booleans), booleans, lists of strings
_EXPECTED = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
             list: "a list of strings"}
# how the CLI takes an argument: an --option, a positional argument, stdin, or not at all
CLI_KINDS = ("option", "positional", "stdin", "none")


@dataclass(frozen=True)
class Param:
    """One argument: its type (str, int, float, bool or list = list of strings), default, allowed values,
    and how the CLI spells it (`cli`, `short`, `metavar`, `help`)."""
    type: type
    default: Any = REQUIRED  # None: optional, and null is accepted
    choices: tuple[str, ...] | None = None
    cli: str = "option"  # one of CLI_KINDS
    short: str | None = None  # a one-letter alias for the option, e.g. "-t"
    metavar: str | None = None
    help: str | None = None

    def __post_init__(self) -> None:
        if self.cli not in CLI_KINDS:
            raise ValueError(f"cli must be one of {CLI_KINDS}, got {self.cli!r}")

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


@dataclass
class Context:
    """What a command may tell its caller besides its result: progress of a long job, warnings."""
    progress: Callable[[int, int], None] | None = None
    warn: Callable[[str], None] = field(default=lambda line: log.warning("%s", line))


# a command function: (workspace, checked arguments, context) -> a JSON-serialisable dict
Function = Callable[[Any, SimpleNamespace, Context], dict]


@dataclass(frozen=True)
class Command:
    name: str
    function: Function
    params: dict[str, Param] = field(default_factory=dict)
    help: str = ""  # one line for `memory-lsp --help`
    cli: str | None = None  # the CLI's name for it (default: the name without `memory.`)
    needs_index: bool = False  # runs on the index (a busy one is an error, or a question to the server)
    reads_memories: bool = False  # reads memories: from the index, else by replaying the log
    writes_memories: bool = False  # appends to the event log (the CLI always does that itself)
    timeout: float | None = 120.0  # how long the CLI waits for a running server's answer (None: no limit)

    @property
    def cli_name(self) -> str:
        return self.cli or self.name.removeprefix("memory.")

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

    def readme_arguments(self) -> str:
        """The README table's argument cell: `name (a, b)`, `[name]`, `[name=default (a, b)]`; the
        choices when there are at most 6 (the memory types and sources are listed in the README)."""
        cells = []
        for key, p in self.params.items():
            text = key if p.required or p.default is None else f"{key}={json.dumps(p.default)}"
            if p.choices and len(p.choices) <= 6:
                text += f" ({', '.join(p.choices)})"
            cells.append(text if p.required else f"[{text}]")
        return ", ".join(cells)


# -- the CLI's parser ---------------------------------------------------------------------------
def add_parser(sub, command: Command, parents: list) -> argparse.ArgumentParser:
    """A subcommand of the CLI whose arguments are the command's Params (see `cli_arguments`)."""
    p = sub.add_parser(command.cli_name, parents=parents, help=command.help)
    for key, param in command.params.items():
        _add_argument(p, key, param)
    p.set_defaults(spec=command)
    return p


def _add_argument(p: argparse.ArgumentParser, key: str, param: Param) -> None:
    if param.cli in ("stdin", "none"):
        return
    options: dict[str, Any] = {"help": param.help}
    if param.metavar:
        options["metavar"] = param.metavar
    if param.choices:
        options["choices"] = list(param.choices)
    if param.type in (int, float):
        options["type"] = param.type
    if param.cli == "positional":
        if param.type is list:
            options["nargs"] = "*"
        elif not param.required:
            options.update(nargs="?", default=param.default)
        p.add_argument(key, **options)
        return
    flags = [f"--{key.replace('_', '-')}"] + ([param.short] if param.short else [])
    options["dest"] = key
    if param.type is bool:
        options.pop("choices", None)
        p.add_argument(*flags, action="store_true", **options)
        return
    if param.type is list:
        options["action"] = "append"
    if param.required:
        options["required"] = True
    else:
        options["default"] = list(param.default) if isinstance(param.default, list) else param.default
    p.add_argument(*flags, **options)


def cli_arguments(command: Command, args: argparse.Namespace, stdin: Callable[[], str]) -> dict:
    """The command's arguments from parsed CLI args (argparse's defaults are the Params' defaults);
    an argument the CLI reads from stdin is read here; one it does not take is left to its default."""
    values = {}
    for key, param in command.params.items():
        if param.cli == "stdin":
            values[key] = stdin()
        elif param.cli != "none":
            values[key] = getattr(args, key)
    return values


def _has_type(value: Any, expected: type) -> bool:
    if expected is list:
        return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
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
