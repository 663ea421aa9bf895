"""A local fake OpenAI-compatible endpoint for the LLM path (no network, no real model).

`FakeOpenAI` serves ``POST /v1/chat/completions`` from a thread. Modes:

* ``ok``: a canned reply (`reply`, or `reply_fn(request_json)`) with a usage block; or, with
  `message_fn(request_json)`, the whole assistant message it returns (tool calls included);
* ``flaky``: 429 for the first `failures` requests, then ``ok``;
* ``error500``: 500 on every request;
* ``error400``: 400 on every request.

Every request body and its headers are recorded in `requests`, so tests can assert what was
sent (the serialized conversation, the prompt) and how many calls were made.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_REPLY = """## Goal
- Fix the failing login test in src/auth/login.py

## Key Decisions
- **Use bcrypt**: the old hash was insecure

## Next Steps
1. Run pytest again"""


class FakeOpenAI:
    """A fake chat-completions server on 127.0.0.1 (use as a context manager)."""

    def __init__(self, mode: str = "ok", reply: str = DEFAULT_REPLY, failures: int = 2,
                 reply_fn: Callable[[dict[str, Any]], str] | None = None,
                 usage: tuple[int, int] = (1200, 150),
                 message_fn: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.mode, self.reply, self.failures, self.reply_fn, self.usage = mode, reply, failures, reply_fn, usage
        self.message_fn = message_fn
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def prompts(self) -> list[str]:
        """The text of every message of every request, joined per request."""
        return ["\n".join(str(m.get("content")) for m in r.get("messages", [])) for r in self.requests]

    def _status(self, body: dict[str, Any]) -> int:
        with self._lock:
            self.requests.append(body)
            n = len(self.requests)
        if self.mode == "flaky" and n <= self.failures:
            return 429
        return {"error500": 500, "error400": 400}.get(self.mode, 200)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.headers.append(dict(self.headers))
                status = fake._status(body)
                if status != 200:
                    payload = {"error": {"message": f"fake error {status}", "type": "fake", "code": status}}
                else:
                    message = fake.message_fn(body) if fake.message_fn else {
                        "role": "assistant", "content": fake.reply_fn(body) if fake.reply_fn else fake.reply}
                    prompt, completion = fake.usage
                    payload = {
                        "id": f"chatcmpl-fake{len(fake.requests)}", "object": "chat.completion",
                        "created": 1700000000, "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "message": message,
                                     "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                  "total_tokens": prompt + completion},
                    }
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

        return Handler
