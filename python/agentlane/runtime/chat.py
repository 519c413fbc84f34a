"""A streaming Chat Completions client over http.client, with this package's own SSE parser."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from dataclasses import dataclass, field
from typing import Iterator

from ..sse import SseParser


@dataclass
class ChatResponse:
    status: int
    chunks: Iterator[dict] = field(default_factory=lambda: iter(()))


def stream_chat(base_url: str, api_key: str, body: dict, *, timeout: float = 60.0) -> ChatResponse:
    """POSTs body to {base_url}/chat/completions; yields each `data:` chunk as parsed JSON until [DONE]."""
    url = urllib.parse.urlsplit(base_url.rstrip("/") + "/chat/completions")
    conn_cls = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(url.netloc, timeout=timeout)
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = {"content-type": "application/json", "authorization": f"Bearer {api_key}", "accept": "text/event-stream"}
    conn.request("POST", url.path, body=payload, headers=headers)
    resp = conn.getresponse()
    if resp.status >= 400:
        text = resp.read().decode("utf-8", "replace")
        conn.close()
        raise ModelError(resp.status, text[:500])

    def chunks() -> Iterator[dict]:
        parser = SseParser()
        try:
            while True:
                data = resp.read1(65536)
                if not data:
                    return
                for message in parser.feed(data):
                    if message.data.strip() == "[DONE]":
                        return
                    yield json.loads(message.data)
        finally:
            conn.close()

    return ChatResponse(resp.status, chunks())


class ModelError(RuntimeError):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"model server answered {status}: {text}")
        self.status = status
