"""A scripted Chat Completions server for runtime tests: each POST gets the next scripted answer, streamed one
SSE message per piece, so a test decides exactly where the model's text and a tool call's arguments are cut.

An answer is `text(*pieces)`, `call(call_id, name, *argument_pieces)`, or `error(status, body)`, where the
body may hold `{auth}`: the request's Authorization header, as a server that echoes the request would."""

from __future__ import annotations

import http.server
import json
import threading


def text(*pieces: str) -> dict:
    return {"pieces": pieces}


def call(call_id: str, name: str, *argument_pieces: str) -> dict:
    return {"call": (call_id, name, argument_pieces)}


def error(status: int, body: str) -> dict:
    return {"status": status, "body": body}


def _chunks(answer: dict) -> list[dict]:
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    if "pieces" in answer:
        out = [chunk({"content": p}) for p in answer["pieces"]] + [chunk({}, "stop")]
    else:
        call_id, name, pieces = answer["call"]
        out = [chunk({"tool_calls": [{"index": 0, "id": call_id, "function": {"name": name, "arguments": ""}}]})]
        out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces]
        out.append(chunk({}, "tool_calls"))
    return out + [{"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}]


class ScriptedModel:
    def __init__(self, answers: list[dict]) -> None:
        self.answers = list(answers)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                self.rfile.read(int(self.headers.get("content-length") or 0))
                answer = outer.answers.pop(0) if outer.answers else error(500, "no more scripted answers")
                if "status" in answer:
                    data = answer["body"].replace("{auth}", self.headers.get("authorization", "")).encode()
                    self.send_response(answer["status"])
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                data = "".join(f"data: {json.dumps(c)}\n\n" for c in _chunks(answer)) + "data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data.encode())))
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *args) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
