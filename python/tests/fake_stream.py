"""A scripted SSE server for follower tests: the thread id (or session id, for execute) picks the behaviour.

Each mode is a list of answers, one per connection (the last one repeats), so a test can script "429 first,
then the stream". Counts connections per mode.
"""

from __future__ import annotations

import http.server
import json
import re
import threading

OPENED = {"type": "stream.opened", "threadId": "t", "after": 0, "headDeliverySeq": 1}


def delivered(seq: int, *, schema: int = 1, extra: dict | None = None) -> dict:
    event = {"schemaVersion": schema, "eventId": f"ev_{seq:032x}", "seq": seq, "runId": "run_1", "threadId": "t",
             "turnId": "run_1", "ts": "2026-01-01T00:00:00.000Z", "identity": {"provider": "builtin"},
             "kind": "message.delta", "payload": {"messageId": "m1", "partId": "p1", "delta": "x"}}
    return {"type": "message.delta", "deliverySeq": seq, "revision": 1, "provisional": False, "event": event,
            **(extra or {})}


def sse(frame, seq: int | None = None) -> str:
    data = frame if isinstance(frame, str) else json.dumps(frame)
    return (f"id: {seq}\n" if seq is not None else "") + f"data: {data}\n\n"


def stream(*parts: str) -> tuple:
    return (200, {"content-type": "text/event-stream"}, "".join(parts))


def answer(status: int, body: str = "", **headers: str) -> tuple:
    return (status, {"content-type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}, body)


def after(body: str, cursor: int) -> str:
    """The events of an SSE body a correct server sends after `cursor` (`id:` = deliverySeq)."""
    return "\n\n".join(e for e in body.split("\n\n") if not (m := re.match(r"id: (\d+)\n", e)) or int(m[1]) > cursor)


def cut_after(body: str) -> tuple:
    """A stream that promises more than it sends, then closes: the follower sees a drop."""
    return (200, {"content-type": "text/event-stream", "content-length": str(len(body.encode()) + 1000)}, body)


class FakeStreamServer:
    def __init__(self, modes: dict[str, list[tuple]], *, resume: bool = True) -> None:
        self.modes, self.connections = modes, {name: 0 for name in modes}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                self._answer()

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self._answer()

            def _answer(self) -> None:
                parts = self.path.split("?")[0].split("/")  # /api/harness/threads/<mode>/events
                mode = parts[4] if len(parts) > 4 else ""
                script = server.modes.get(mode, [answer(404, '{"error":{"code":"not_found","message":"no"}}')])
                n = server.connections[mode] = server.connections.get(mode, 0) + 1
                status, headers, body = script[min(n, len(script)) - 1]
                cursor = self.headers.get("last-event-id") or ""
                if resume and headers.get("content-type") == "text/event-stream" and cursor.isdigit():
                    body = after(body, int(cursor))
                data = body.encode()
                self.send_response(status)
                for name, value in {"content-length": str(len(data)), **headers, "connection": "close"}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args) -> None:
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
