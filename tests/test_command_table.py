"""The command table is the one declaration: the README's command table, the CLI's parser and the
LSP argument checks all follow it (no subprocess here)."""

import re
from pathlib import Path

import pytest

from memory_lsp.cli.main import build_parser
from memory_lsp.commands import COMMANDS
from memory_lsp.commands.spec import REQUIRED, Command, Param, cli_arguments

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_rows() -> dict[str, str]:
    """`memory.*` rows of the README's workspace/executeCommand table: name -> arguments cell."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("### Commands (workspace/executeCommand)"):]
    rows = {}
    for line in table.splitlines():
        found = re.match(r"^\| `(memory\.\w+)` \|(.*?)\|", line)
        if found:
            rows[found.group(1)] = found.group(2).strip()
    return rows


def test_the_readme_table_lists_every_command_in_order():
    assert list(readme_rows()) == list(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_readme_arguments_are_the_commands_params(name):
    expected = COMMANDS[name].readme_arguments()
    assert readme_rows().get(name) == expected, f"README row should read: | `{name}` | {expected} | ... |"


def test_the_readme_cli_tables_name_every_cli_command():
    text = README.read_text(encoding="utf-8")
    missing = [c.cli_name for c in COMMANDS.values() if f"`memory-lsp {c.cli_name}" not in text]
    assert not missing


def minimal_argv(command: Command) -> tuple[list[str], dict]:
    """The shortest command line for `command`, and the arguments it stands for."""
    argv, given = [command.cli_name], {}
    for key, p in command.params.items():
        if not p.required or p.cli == "none":
            continue
        value = p.choices[0] if p.choices else "x"
        given[key] = value
        if p.cli == "positional":
            argv.append(value)
        elif p.cli == "option":
            argv += [f"--{key.replace('_', '-')}", value]
    return argv, given


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_cli_defaults_are_the_commands_defaults(name):
    command = COMMANDS[name]
    argv, given = minimal_argv(command)
    args = build_parser().parse_args(argv)
    assert args.spec is command and args.command == command.cli_name
    from_cli = cli_arguments(command, args, stdin=lambda: given["text"])
    hidden = {k for k, p in command.params.items() if p.cli == "none"}
    expected = {k: v for k, v in command.arguments(given).items() if k not in hidden}
    assert from_cli == expected


def test_the_cli_spells_each_kind_of_param():
    parse = build_parser().parse_args
    args = parse(["search", "q", "--kind", "code", "--k", "3", "--file", "a.py", "--file", "b.py", "--orphaned"])
    assert cli_arguments(COMMANDS["memory.search"], args, stdin=str) == {
        "query": "q", "kind": "code", "k": 3, "file": ["a.py", "b.py"], "mode": "hybrid", "orphaned": True}
    args = parse(["teach", "t", "-t", "policy", "-c", "a.py::f", "-c", "b.py"])
    assert cli_arguments(COMMANDS["memory.teach"], args, stdin=str)["cite"] == ["a.py::f", "b.py"]
    assert parse(["edit", "ID"]).tag is None  # not given: the tags stay as they are
    assert parse(["import", "A.md", "B.md"]).files == ["A.md", "B.md"]
    assert parse(["capture", "--dry-run"]).dry_run is True
    args = parse(["index", "some/folder", "--workers", "0"])
    assert (args.path, args.workers) == ("some/folder", 0)
    assert cli_arguments(COMMANDS["memory.reindex"], args, stdin=str) == {"workers": 0}  # files: LSP only


@pytest.mark.parametrize("argv", [["search", "q", "--kind", "files"], ["search", "q", "--mode", "fuzzy"],
                                  ["feedback", "ID", "great"], ["teach", "t", "--type", "nosuch"]])
def test_choices_come_from_the_params(argv, capsys):
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(argv)
    assert caught.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_a_param_says_how_the_cli_takes_it():
    with pytest.raises(ValueError, match="cli must be one of"):
        Param(str, cli="flag")
    assert Param(str).default is REQUIRED and Param(str).required


def test_the_table_imports_no_front_door_and_no_database():
    """commands/ sits under cli/ and server/, and a memory write from the CLI never loads DuckDB
    or the language server (only the small client half of the owner's socket, server/link.py)."""
    import subprocess
    import sys

    code = ("import sys; import memory_lsp.commands, memory_lsp.cli.main; "
            "print(sorted(m for m in sys.modules if m.startswith(('memory_lsp.server', 'duckdb', 'pygls', "
            "'lsprotocol'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['memory_lsp.server', 'memory_lsp.server.link']"
