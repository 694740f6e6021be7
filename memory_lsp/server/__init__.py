"""The language server, the only package that imports pygls and lsprotocol: server.py (the
session and the entry point), features/ (one module per LSP feature), folders.py (each folder's
workspace host and writer), convert.py, capabilities.py, guard.py, protocol.py."""
