"""What the client can do, resolved once at `initialize` into plain booleans (ruff_server's
`session/capabilities.rs`): the features ask `ls.client.<name>` instead of walking the client's
capabilities on every event.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types as t


@dataclass(frozen=True)
class ClientCapabilities:
    code_lens_refresh: bool = False  # workspace/codeLens/refresh
    diagnostics_refresh: bool = False  # workspace/diagnostic/refresh
    pull_diagnostics: bool = False  # textDocument/diagnostic; else the server publishes them
    work_done_progress: bool = False  # window/workDoneProgress/create
    workspace_configuration: bool = False  # workspace/configuration

    @classmethod
    def resolve(cls, caps: t.ClientCapabilities | None) -> "ClientCapabilities":
        return cls(
            code_lens_refresh=_has(caps, "workspace", "code_lens", "refresh_support"),
            diagnostics_refresh=_has(caps, "workspace", "diagnostics", "refresh_support"),
            pull_diagnostics=_has(caps, "text_document", "diagnostic"),
            work_done_progress=_has(caps, "window", "work_done_progress"),
            workspace_configuration=_has(caps, "workspace", "configuration"),
        )


def _has(node, *path: str) -> bool:
    """The flag at `path`, or whether the object there was sent at all."""
    for name in path:
        node = getattr(node, name, None)
        if node is None:
            return False
    return bool(node)
