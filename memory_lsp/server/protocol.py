"""pygls's protocol with fixes so that every request gets exactly one answer, and no answer carries
a traceback.

pygls 2.1 raises while deserialising a request whose params do not fit the method, before it
knows it has a request to answer, and sends nothing: the client then waits forever. Here the
request is answered with InvalidParams (-32602) and dropped. A request that is not JSON-RPC 2.0
(no "jsonrpc" member) or whose id is neither a number nor a string is answered with
InvalidRequest (-32600) instead of silence or a crash, and so is one whose method is not a string; other messages that are not JSON-RPC
objects are logged and dropped.
"""

from __future__ import annotations

import logging

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class _Answered:
    """Stands in for a message that was already answered with an error."""

    jsonrpc = "2.0"


ANSWERED = _Answered()


class MemoryProtocol(LanguageServerProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.command_tasks: dict = {}  # request id -> the task running its workspace command

    def _handle_cancel_notification(self, msg_id):
        # pygls runs a command's handler as a request of its own: cancelling the executeCommand
        # request answers it, but would leave the command queued or running
        task = self.command_tasks.pop(msg_id, None)
        if task is not None:
            task.cancel()
        super()._handle_cancel_notification(msg_id)

    def structure_message(self, data: dict):
        if "jsonrpc" in data and "method" in data and "id" in data:
            if not _valid_id(data["id"]):
                # the id cannot be echoed (JSON-RPC: answer with a null id); pygls would crash on it
                log.warning("request %r with an invalid id %r: answered with invalid request", data["method"],
                            data["id"])
                self._send_response(None, None, JsonRpcInvalidRequest(
                    f"invalid request: the id must be a number or a string, got {data['id']!r}").to_response_error())
                return ANSWERED
            if not isinstance(data["method"], str):  # pygls would answer with an internal error
                log.warning("request %r with a method that is not a string: answered with invalid request", data["id"])
                self._send_response(data["id"], None, JsonRpcInvalidRequest(
                    f"invalid request: the method must be a string, got {data['method']!r}").to_response_error())
                return ANSWERED
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "method" in data and data.get("id") is not None:  # a request: it gets its answer
                error = JsonRpcInvalidParams(f"invalid params for {data['method']}: they do not match "
                                             "the method's parameter types")
                log.warning("answered %s %s with invalid params (%s)", data["method"], data["id"], exc.__cause__)
                self._send_response(data["id"], None, error.to_response_error())
                return ANSWERED
            raise

    def handle_message(self, message):
        if message is ANSWERED:
            return
        if not hasattr(message, "jsonrpc"):  # a JSON value that is not a JSON-RPC 2.0 message
            if isinstance(message, dict) and "method" in message and _valid_id(message.get("id")) \
                    and message.get("id") is not None:
                log.warning("request %r without \"jsonrpc\": \"2.0\": answered with invalid request",
                            message["method"])
                self._send_response(message["id"], None, JsonRpcInvalidRequest(
                    'invalid request: not JSON-RPC 2.0 (missing "jsonrpc": "2.0")').to_response_error())
            else:
                log.warning("ignored a message that is not JSON-RPC 2.0: %.200r", message)
            return
        super().handle_message(message)

    def _send_response(self, msg_id, result=None, error=None):
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            error.data = None  # pygls attaches the traceback of a crash; it is in the log already
        super()._send_response(msg_id, result, error)


def _valid_id(value) -> bool:
    return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))
