"""The language server: pygls over the workspace service (see app.py for the entry point)."""
