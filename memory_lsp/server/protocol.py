"""pygls's protocol with one fix: a request whose params do not fit the method gets an answer.

pygls 2.1 raises while deserialising such a request, before it knows it has a request to answer,
and sends nothing: the client then waits forever. Here the request is answered with
InvalidParams (-32602) and dropped.
"""

from __future__ import annotations

import logging

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class _Answered:
    """Stands in for a message that was already answered with an error."""

    jsonrpc = "2.0"


ANSWERED = _Answered()


class MemoryProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict):
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
        super().handle_message(message)
