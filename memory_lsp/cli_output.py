"""How every `memory-lsp` command prints: JSON with --json, else lines for people; warnings on stderr."""

from __future__ import annotations

import json
import sys


def emit(args, data: dict, text: str) -> None:
    print(json.dumps(data, indent=2, default=str) if args.json else text)


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"warning: {line}", file=sys.stderr)
