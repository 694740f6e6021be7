"""A bare JSON-RPC client over the server's stdio, for what pytest-lsp cannot send or see: raw
bytes, malformed messages, and how many responses each request got."""

from __future__ import annotations

import itertools
import json
import subprocess
import threading
import time
from pathlib import Path

# what the server asks of the editor, answered as an editor would
ANSWERS = {"workspace/configuration": lambda params: [None for _ in params.get("items", [])]}


class RawClient:
    def __init__(self, command: list[str], cwd: Path | None = None):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        self.messages: list[dict] = []  # everything the server sent, in order
        self.stderr: list[str] = []
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    # -- sending ------------------------------------------------------------------------------
    def send_bytes(self, body: bytes, length: int | None = None) -> None:
        header = f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode()
        self.write(header + body)

    def write(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_bytes(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def request(self, method: str, params=None, *, omit_params: bool = False) -> int:
        request_id = next(self._ids)
        message = {"id": request_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.send(message)
        return request_id

    def notify(self, method: str, params=None) -> None:
        self.send({"method": method, "params": params})

    # -- receiving -------------------------------------------------------------------------------
    def responses(self, request_id) -> list[dict]:
        with self._lock:
            return [m for m in self.messages if m.get("id") == request_id and "method" not in m]

    def response(self, request_id, timeout: float = 60.0) -> dict:
        """The response to `request_id` (waits for it)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [m for m in self.messages if m.get("id") == request_id and "method" not in m]
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self._reading:
                    raise AssertionError(f"no response to request {request_id}")
                self._changed.wait(min(left, 0.5))

    def call(self, method: str, params=None, timeout: float = 60.0) -> dict:
        return self.response(self.request(method, params), timeout)

    def notifications(self, method: str) -> list[dict]:
        with self._lock:
            return [m for m in self.messages if m.get("method") == method and "id" not in m]

    def wait_for(self, predicate, timeout: float = 60.0, what: str = "a message"):
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self._changed.wait(min(left, 0.5))

    # -- a session ---------------------------------------------------------------------------------
    def initialize(self, root: Path | None, options: dict | None = None, process_id: int | None = None,
                   capabilities: dict | None = None, folders: list[Path] | None = None) -> dict:
        params = {"processId": process_id, "rootUri": root.as_uri() if root else None,
                  "capabilities": capabilities or {"window": {"workDoneProgress": True}},
                  "initializationOptions": {"embeddings": {"background": False}, **(options or {})}}
        if folders:
            params["workspaceFolders"] = [{"uri": f.as_uri(), "name": f.name} for f in folders]
        result = self.call("initialize", params)["result"]
        self.notify("initialized", {})
        return result

    def wait_indexed(self, folders: int = 1, timeout: float = 90.0) -> None:
        def ended():
            return sum(1 for m in self.notifications("$/progress")
                       if (m["params"].get("value") or {}).get("kind") == "end") >= folders
        self.wait_for(ended, timeout, "indexing to finish")

    def close(self, timeout: float = 10.0) -> int | None:
        """shutdown + exit when it is still running; returns the exit code."""
        if self.proc.poll() is None:
            try:
                self.call("shutdown", None, timeout=timeout)
                self.notify("exit")
            except (AssertionError, BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr_reader.join(2)  # the server's last lines read before the stream closes
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        return self.proc.returncode

    # -- threads -------------------------------------------------------------------------------------
    _reading = True

    def _read(self) -> None:
        out = self.proc.stdout
        try:
            while True:
                headers = {}
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = out.read(int(headers["content-length"]))
                message = json.loads(body)
                if "method" in message and "id" in message:  # a request from the server
                    answer = ANSWERS.get(message["method"], lambda params: None)(message.get("params") or {})
                    try:
                        self.send({"id": message["id"], "result": answer})
                    except (BrokenPipeError, OSError):
                        pass
                with self._changed:
                    self.messages.append(message)
                    self._changed.notify_all()
        finally:
            with self._changed:
                self._reading = False
                self._changed.notify_all()

    def _read_stderr(self) -> None:
        try:
            for line in self.proc.stderr:
                self.stderr.append(line.decode("utf-8", "replace"))
        except (ValueError, OSError):  # `close` closed the stream under the read (a grandchild kept it open)
            pass
