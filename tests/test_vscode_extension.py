"""The VS Code extension (editors/vscode) against the server it drives: one palette entry per
command of the command table, settings that the server knows with the server's defaults, the
memory types and the Teach action's command name. The extension's own tests run with `npm test`."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

from memory_lsp import settings
from memory_lsp.commands import COMMANDS
from memory_lsp.memory.model import TYPES
from memory_lsp.server.features import drafts

EXTENSION = Path(__file__).resolve().parents[1] / "editors" / "vscode"
PACKAGE = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
EXTENSION_ONLY = {"server", "trace"}  # memoryLsp.server.*, memoryLsp.trace.server: not the server's


def test_every_command_of_the_table_is_in_the_palette():
    contributed = {c["command"] for c in PACKAGE["contributes"]["commands"]}
    missing = [name for name in COMMANDS if "memoryLsp." + name.removeprefix("memory.") not in contributed]
    assert missing == []
    palette = (EXTENSION / "src" / "palette.ts").read_text(encoding="utf-8")
    handled = set(re.findall(r"^  (\w+)[:,]", palette[palette.index("export const PALETTE"):], re.M))
    assert {name.removeprefix("memory.") for name in COMMANDS} <= handled


def test_the_extensions_settings_are_the_servers_with_its_defaults():
    defaults = settings.Config()
    checked = 0
    for key, spec in PACKAGE["contributes"]["configuration"]["properties"].items():
        section, _, name = key.removeprefix("memoryLsp.").partition(".")
        if section in EXTENSION_ONLY:
            continue
        known_sections = {settings.camel(f.name): f.name for f in fields(settings.Config)}
        assert section in known_sections, key
        values = getattr(defaults, known_sections[section])
        known = {settings.camel(f.name): f.name for f in fields(values)}
        assert name in known, key
        default = getattr(values, known[name])
        assert spec["default"] == (list(default) if isinstance(default, tuple) else default), key
        config, problems = settings.parse({section: {name: spec["default"]}})  # the server takes it as sent
        assert problems == [], key
        checked += 1
    assert checked >= 10


def test_the_memory_types_and_the_teach_actions_command_are_the_servers():
    teach = (EXTENSION / "src" / "teach.ts").read_text(encoding="utf-8")
    block = teach[teach.index("export const TYPES"):teach.index("];", teach.index("export const TYPES"))]
    assert re.findall(r'"(\w+)"', block) == list(TYPES)
    assert f'"{drafts.COMMAND}"' in teach  # the middleware answers the server's Teach action
