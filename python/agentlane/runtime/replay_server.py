"""A local model server that answers the corpus's recorded exchanges in order (corpus README, "Replaying")."""

from __future__ import annotations

import http.server
import json
import threading

from ..canonical import canonical_json


class ReplayServer:
    def __init__(self, exchanges: list[dict]) -> None:
        self.exchanges = exchanges
        self.served = 0
        self.mismatches: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                outer.answer(self, "POST", body)

            def log_message(self, *args) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def answer(self, handler, method: str, body) -> None:
        i = self.served
        self.served += 1
        if i >= len(self.exchanges):
            self.mismatches.append(f"request {i}: more requests than recorded exchanges")
            handler.send_response(500)
            handler.end_headers()
            return
        recorded = self.exchanges[i]
        want = recorded["request"]
        if method != want["method"] or handler.path != want["path"]:
            self.mismatches.append(f"request {i}: {method} {handler.path}, recorded {want['method']} {want['path']}")
        if canonical_json(body) != canonical_json(want["body"]):
            self.mismatches.append(f"request {i}: body differs from the recorded one")
        response = recorded["response"]
        handler.send_response(response["status"])
        handler.send_header("content-type", response["contentType"])
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        for chunk in response["chunks"]:
            data = chunk.encode("utf-8")
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
