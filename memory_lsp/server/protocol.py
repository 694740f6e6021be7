"""pygls's protocol with fixes so that every request gets exactly one answer, and no answer carries
a traceback.

pygls 2.1 raises while deserialising a request whose params do not fit the method, before it
knows it has a request to answer, and sends nothing: the client then waits forever. Here the
request is answered with InvalidParams (-32602) and dropped. A request that is not JSON-RPC 2.0
(no "jsonrpc" member) or whose id is neither a number nor a string is answered with
InvalidRequest (-32600) instead of silence or a crash, and so is one whose method is not a string
or is a notification's (`initialized` with an id); other messages that are not JSON-RPC objects
are logged and dropped.

`serve_io` replaces pygls's stdio loop with the reader of stream.py, which answers malformed frames
and bodies and resynchronises instead of going deaf; it also ends the session on `exit` (pygls
waits for the end of the stream). Requests after `shutdown` get InvalidRequest (pygls drops them),
an unknown command MethodNotFound (pygls says InvalidParams).
"""

from __future__ import annotations

import asyncio
import logging
import threading

from pygls.exceptions import (JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest,
                              JsonRpcMethodNotFound)
from pygls.io_ import StdoutWriter
from lsprotocol.types import METHOD_TO_TYPES
from pygls.protocol import LanguageServerProtocol

from memory_lsp.server.stream import FrameReader, inspect

log = logging.getLogger(__name__)
# methods the protocol defines as notifications: sent with an id they are requests nobody answers
NOTIFICATIONS = frozenset(m for m, types in METHOD_TO_TYPES.items() if types[1] is None) - {"exit"}


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
            if data["method"] in NOTIFICATIONS and data["id"] is not None:  # pygls would take it as the notification
                log.warning("notification %r sent with an id: answered with invalid request", data["method"])
                self._send_response(data["id"], None, JsonRpcInvalidRequest(
                    f"invalid request: {data['method']} is a notification and takes no id").to_response_error())
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
        method = getattr(message, "method", None)
        request = method is not None and hasattr(message, "id")
        if self._shutdown and method != "exit":
            if request:
                log.warning("%s %r after shutdown: answered with invalid request", method, message.id)
                self._send_response(message.id, None, JsonRpcInvalidRequest(
                    f"invalid request: {method} after shutdown (only exit is accepted)").to_response_error())
            return
        if request and method == "workspace/executeCommand":
            command = getattr(message.params, "command", None)
            if command not in self.fm.commands:
                self._send_response(message.id, None, JsonRpcMethodNotFound(
                    f"unknown command {command!r}: the memory.* commands are listed in the server's "
                    "executeCommandProvider").to_response_error())
                return
        super().handle_message(message)

    def _send_response(self, msg_id, result=None, error=None):
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            error.data = None  # pygls attaches the traceback of a crash; it is in the log already
        super()._send_response(msg_id, result, error)


def _valid_id(value) -> bool:
    return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))


def serve_io(server, rfile, wfile) -> None:
    """Serve one LSP session over binary streams until `exit` or the end of the input."""
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(wfile))
    try:
        asyncio.run(_serve(server, FrameReader(rfile)))
    except BrokenPipeError:
        log.error("the connection to the client is lost: the session ends")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


async def _serve(server, frames: FrameReader) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()

    def read() -> None:  # a daemon thread: a read blocked on the input never holds the process up
        while True:
            try:
                got, item = frames.read(), None
            except (OSError, ValueError):  # the stream broke (or was closed under us): the session ends
                log.warning("reading the client's stream failed", exc_info=True)
                got = item = None
            if got is not None and got.body is None:
                item = (None, [got.error])
            elif got is not None:
                item = inspect(got.body)
                if item[0] is None and frames.resync(got.body):
                    log.warning("a frame's Content-Length was longer than its body: read on from the next header")
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is closed: the session ended
                return
            if item is None:
                return
    threading.Thread(target=read, name="memory-stream", daemon=True).start()
    protocol = server.protocol
    while not server._stop_event.is_set() and (item := await queue.get()) is not None:
        message, errors = item
        for error in errors:
            protocol._send_data(error)
        if message is None:
            continue
        try:
            protocol.handle_message(protocol.structure_message(message))
        except Exception as exc:
            log.exception("a message could not be handled")
            server._report_server_error(exc, JsonRpcException)
        if message.get("method") == "exit":
            return
