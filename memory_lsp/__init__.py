"""memory-lsp: a language server that gives a code workspace a memory."""

__version__ = "0.1.0"
