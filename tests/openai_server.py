"""A scripted OpenAI-compatible chat server on 127.0.0.1 — for pytest and browser tests.

Real HTTP (``http.server`` in a thread), ``POST /v1/chat/completions`` with tool
calls and usage, ``GET /v1/models``.  The server is given *exchanges*: the exact
messages a request must carry and the reply to give.  It matches every request
against them and **asserts** what it receives: a request whose messages match no
expected exchange is answered with HTTP 400 and recorded in ``mismatches`` with
a diff against the closest expectation (so a test fails with a readable message
through ``check()``).  Exchanges without ``messages`` are served in order.

Before its reply an exchange can serve *faults*, one per request: ``"429"``
(with ``Retry-After: 0``), ``"500"``, ``"401-echo"`` (HTTP 401 whose body quotes the
request's ``Authorization`` header and key, as some endpoints do), ``"malformed"`` (HTTP 200 with broken
JSON), ``"drop"`` (the connection closes without a reply) and ``"hang"`` /
``"hang:SECONDS"`` (no answer for that long, default 5 s; ``hanging`` is set
while one waits, and ``stop()`` ends it).

    server = ScriptedServer([{"messages": [...], "reply": "Thought: ...", "faults": ["429"]}])
    server.start()            # server.base_url == "http://127.0.0.1:PORT/v1"
    ...
    server.stop(); server.check()

Standalone (for a browser test)::

    python tests/openai_server.py --exchanges FILE.json [--port 0] [--key KEY]
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def exchanges_from_golden(golden: dict[str, Any]) -> list[dict[str, Any]]:
    """The exchanges a golden transcript file expects (``{"requests": [{messages, reply}]}``)."""
    return [
        {"messages": r["messages"], "tools": r.get("tools", []), "reply": r["reply"]}
        for r in golden["requests"]
    ]


def _canon(messages: Any) -> str:
    return json.dumps(messages, sort_keys=True, ensure_ascii=False)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class ScriptedServer:
    def __init__(
        self,
        exchanges: list[dict[str, Any]],
        *,
        model: str | None = None,
        key: str | None = None,
        max_tokens: int | None = 512,
        temperature: float | None = 0.0,
    ):
        self.exchanges = [dict(e, served=0, done=False) for e in exchanges]
        self.expect = {"model": model, "max_tokens": max_tokens, "temperature": temperature}
        self.key = key
        self.requests: list[dict[str, Any]] = []  # everything received, in order
        self.mismatches: list[str] = []
        self.hanging = threading.Event()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # ---- lifecycle ---------------------------------------------------------------
    def start(self, port: int = 0) -> ScriptedServer:
        server = self

        class Handler(_Handler):
            scripted = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def unused(self) -> list[int]:
        return [i for i, e in enumerate(self.exchanges) if not e["done"]]

    def check(self, all_used: bool = True) -> None:
        """Assert every request matched an expectation (and every exchange was used)."""
        problems = list(self.mismatches)
        if all_used and self.unused():
            problems.append(f"exchanges never requested: {self.unused()}")
        assert not problems, "\n\n".join(problems)

    # ---- matching ------------------------------------------------------------------
    def answer(self, body: dict[str, Any], auth: str | None) -> tuple[str, Any]:
        """(kind, payload) for one request: ("reply", exchange) | (fault, exchange) | ("reject", text)."""
        with self._lock:
            self.requests.append({"body": body, "authorization_ok": self._auth_ok(auth)})
            problem = self._check_params(body, auth)
            index = None if problem else self._match(body)
            if index is None:
                text = problem or self._diff(body.get("messages"))
                self.mismatches.append(text)
                return "reject", text
            ex = self.exchanges[index]
            self.requests[-1]["exchange"] = index
            faults = ex.get("faults") or []
            if ex["served"] < len(faults):
                ex["served"] += 1
                return faults[ex["served"] - 1], ex
            ex["done"] = True
            return "reply", ex

    def _auth_ok(self, auth: str | None) -> bool:
        return self.key is None or auth == f"Bearer {self.key}"

    def _check_params(self, body: dict[str, Any], auth: str | None) -> str | None:
        if not self._auth_ok(auth):
            return "request without the expected API key"
        for name, want in self.expect.items():
            if want is not None and body.get(name) != want:
                return f"request {name}={body.get(name)!r}, expected {want!r}"
        return None

    def _match(self, body: dict[str, Any]) -> int | None:
        got = _canon(body.get("messages"))
        tools = [t.get("function", {}).get("name") for t in body.get("tools") or []]
        for i, ex in enumerate(self.exchanges):
            if ex["done"]:
                continue
            if "messages" not in ex:
                return i
            if _canon(ex["messages"]) == got and (ex.get("tools") or []) == tools:
                return i
        return None

    def _diff(self, messages: Any) -> str:
        """Where the request departs from the expectation it shares the longest prefix with."""
        messages = messages if isinstance(messages, list) else []
        best, best_n = None, -1
        for ex in self.exchanges:
            want = ex.get("messages") or []
            n = next(
                (k for k, (a, b) in enumerate(zip(want, messages, strict=False)) if _canon(a) != _canon(b)),
                None,
            )
            n = min(len(want), len(messages)) if n is None else n
            if n > best_n:
                best, best_n = want, n
        if best is None:
            return f"unexpected request (no exchange left): {len(messages)} messages"
        got = messages[best_n] if best_n < len(messages) else "<missing>"
        want = best[best_n] if best_n < len(best) else "<missing>"
        return (
            f"unexpected request: message {best_n} of {len(messages)} differs from the closest expectation\n"
            f"  got:      {json.dumps(got, ensure_ascii=False)[:2000]}\n"
            f"  expected: {json.dumps(want, ensure_ascii=False)[:2000]}"
        )

    def completion(self, ex: dict[str, Any], model: str) -> dict[str, Any]:
        reply = ex["reply"]
        message = (
            {"role": "assistant", "content": reply}
            if isinstance(reply, str)
            else {"role": "assistant", **reply}
        )
        prompt = sum(_tokens(str(m.get("content") or "")) for m in ex.get("messages") or [])
        out = _tokens(json.dumps(message))
        usage = ex.get("usage") or {
            "prompt_tokens": prompt,
            "completion_tokens": out,
            "total_tokens": prompt + out,
        }
        return {
            "id": f"chatcmpl-{id(ex)}-{ex['served']}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": usage,
        }


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            name = self.scripted.expect["model"] or "scripted"
            self._send(
                200, {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "tests"}]}
            )
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, {"error": {"message": "request body is not JSON"}})
            return
        kind, payload = self.scripted.answer(body, self.headers.get("Authorization"))
        self._serve(kind, payload, body)

    def _serve(self, kind: str, payload: Any, body: dict[str, Any]) -> None:
        if kind == "reply":
            self._send(200, self.scripted.completion(payload, body.get("model", "")))
        elif kind == "reject":
            self._send(
                400, {"error": {"message": payload, "type": "invalid_request_error", "code": "mismatch"}}
            )
        elif kind == "429":
            err = {"error": {"message": "rate limited", "type": "rate_limit", "code": "rate_limit_exceeded"}}
            self._send(429, err, {"Retry-After": "0"})
        elif kind == "401-echo":
            auth = self.headers.get("Authorization") or ""
            message = f"Incorrect API key provided: {auth.removeprefix('Bearer ')} (header: {auth})"
            self._send(401, {"error": {"message": message, "type": "invalid_request_error"}})
        elif kind == "500":
            self._send(500, {"error": {"message": "scripted server error", "type": "server_error"}})
        elif kind == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
        elif kind == "drop":
            self.close_connection = True
        elif kind.startswith("hang"):
            self._hang(float(kind.partition(":")[2] or 5))
        else:
            raise ValueError(f"unknown scripted fault {kind!r}")

    def _hang(self, seconds: float) -> None:
        self.scripted.hanging.set()
        try:
            self.scripted._stopping.wait(seconds)
        finally:
            self.scripted.hanging.clear()
        self.close_connection = True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exchanges", required=True, help="JSON: a list of exchanges, or a golden transcript")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--key", help="API key the requests must carry")
    ap.add_argument("--model", help="model name the requests must carry")
    args = ap.parse_args()
    with open(args.exchanges, encoding="utf-8") as f:
        data = json.load(f)
    exchanges = exchanges_from_golden(data) if isinstance(data, dict) else data
    server = ScriptedServer(exchanges, key=args.key, model=args.model).start(args.port)
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
