"""The CLI front door: `main.main(argv)` (the parser generated from the command table),
`render` (text for people), `forward` (run here, or ask the running language server)."""

from memory_lsp.cli.main import main

__all__ = ["main"]
