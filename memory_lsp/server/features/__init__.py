"""The server's features, one module each: its handlers (named after the LSP method), a
`register(server, settings)` that binds them, and its body as a pure function of a workspace
`Snapshot` that unit tests call without a server. A new feature is a module here and a line below.
"""

from memory_lsp.server.features import (code_actions, code_lens, diagnostics, documents, drafts, execute_command, hover,
                                        lifecycle, timings, workspace_symbols)

FEATURES = (
    lifecycle,  # initialize, initialized, shutdown, configuration and folder changes, progress
    documents,  # didOpen/didChange/didSave/didClose, didChangeWatchedFiles
    hover,  # textDocument/hover
    diagnostics,  # textDocument/diagnostic (pull) and publishDiagnostics
    code_lens,  # textDocument/codeLens, codeLens/resolve
    code_actions,  # textDocument/codeAction
    workspace_symbols,  # workspace/symbol
    execute_command,  # workspace/executeCommand: the memory.* commands
    drafts,  # memory.teachDraft, and saving a teach draft stores its memory
    timings,  # memory/timings
)
