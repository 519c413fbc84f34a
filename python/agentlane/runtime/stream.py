"""A streaming model call over http.client: POST a JSON body, read the answer as server-sent events with this
package's own parser."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from dataclasses import dataclass, field
from typing import Iterator

from ..sse import SseMessage, SseParser


@dataclass
class StreamResponse:
    status: int
    messages: Iterator[SseMessage] = field(default_factory=lambda: iter(()))


def stream_sse(url: str, headers: dict[str, str], body: dict, *, timeout: float = 60.0) -> StreamResponse:
    """POSTs body to url; yields each SSE message as it arrives (the provider decides what ends its stream)."""
    parts = urllib.parse.urlsplit(url)
    conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(parts.netloc, timeout=timeout)
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    conn.request("POST", target, body=payload,
                 headers={"content-type": "application/json", "accept": "text/event-stream", **headers})
    resp = conn.getresponse()
    if resp.status >= 400:
        text = resp.read().decode("utf-8", "replace")
        conn.close()
        raise ModelError(resp.status, text[:500])

    def messages() -> Iterator[SseMessage]:
        parser = SseParser(source=f"{parts.scheme}://{parts.netloc}")
        try:
            while True:
                data = resp.read1(65536)
                if not data:
                    return
                yield from parser.feed(data)
        finally:
            conn.close()

    return StreamResponse(resp.status, messages())


class ModelError(RuntimeError):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"model server answered {status}: {text}")
        self.status = status
