"""What the client can do, resolved once at `initialize` into plain booleans (ruff_server's
`session/capabilities.rs`): the features ask `ls.client.<name>` instead of walking the client's
capabilities on every event.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types as t


@dataclass(frozen=True)
class ClientCapabilities:
    apply_edit: bool = False  # workspace/applyEdit
    code_lens_refresh: bool = False  # workspace/codeLens/refresh
    create_files: bool = False  # a workspace edit may create a file (resourceOperations)
    diagnostics_refresh: bool = False  # workspace/diagnostic/refresh
    pull_diagnostics: bool = False  # textDocument/diagnostic; else the server publishes them
    show_document: bool = False  # window/showDocument
    work_done_progress: bool = False  # window/workDoneProgress/create
    workspace_configuration: bool = False  # workspace/configuration

    @classmethod
    def resolve(cls, caps: t.ClientCapabilities | None) -> "ClientCapabilities":
        operations = _get(caps, "workspace", "workspace_edit", "resource_operations") or []
        return cls(
            apply_edit=_has(caps, "workspace", "apply_edit"),
            code_lens_refresh=_has(caps, "workspace", "code_lens", "refresh_support"),
            create_files=t.ResourceOperationKind.Create in operations
            and bool(_get(caps, "workspace", "workspace_edit", "document_changes")),
            diagnostics_refresh=_has(caps, "workspace", "diagnostics", "refresh_support"),
            pull_diagnostics=_has(caps, "text_document", "diagnostic"),
            show_document=_has(caps, "window", "show_document", "support"),
            work_done_progress=_has(caps, "window", "work_done_progress"),
            workspace_configuration=_has(caps, "workspace", "configuration"),
        )


def _get(node, *path: str):
    for name in path:
        node = getattr(node, name, None)
        if node is None:
            return None
    return node


def _has(node, *path: str) -> bool:
    """The flag at `path`, or whether the object there was sent at all."""
    return bool(_get(node, *path))
