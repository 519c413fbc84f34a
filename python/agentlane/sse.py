"""Server-sent events parsing (the WHATWG event-stream format), fed with bytes as they arrive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator


@dataclass(frozen=True)
class SseMessage:
    data: str
    event: str = "message"
    id: str | None = None  # the last `id:` seen so far on this stream (the resume cursor)
    retry: int | None = None


class SseParser:
    """Incremental: feed() any split of the byte stream, get whole messages back."""

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []
        self._event = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._first = True

    def feed(self, chunk: bytes) -> list[SseMessage]:
        # One pass over the buffer per chunk: slicing the rest off after every line would copy the
        # buffer once per line (quadratic in the chunk size).
        buffer = self._buffer + chunk
        out: list[SseMessage] = []
        start = 0
        while True:
            cut = _line_end(buffer, start)
            if cut is None:
                break
            end, width = cut
            line = buffer[start:end].decode("utf-8", "replace")
            start = end + width
            if self._first:
                self._first = False
                line = line.removeprefix("\ufeff")
            message = self._line(line)
            if message is not None:
                out.append(message)
        self._buffer = buffer[start:]
        return out

    def _line(self, line: str) -> SseMessage | None:
        if line == "":
            if not self._data:
                self._event = ""
                return None
            message = SseMessage("\n".join(self._data), self._event or "message", self._last_id, self._retry)
            self._data, self._event = [], ""
            return message
        if line.startswith(":"):
            return None  # a comment (`: heartbeat`)
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None


def _line_end(buffer: bytes, start: int = 0) -> tuple[int, int] | None:
    """Position and width of the first line terminator at or after start (CRLF, LF or CR); None when the
    line is incomplete."""
    lf, cr = buffer.find(b"\n", start), buffer.find(b"\r", start)
    if cr == -1 and lf == -1:
        return None
    if cr == -1 or (lf != -1 and lf < cr):
        return lf, 1
    if cr + 1 == len(buffer):
        return None  # a CR at the end may be the first half of a CRLF
    return cr, 2 if buffer[cr + 1 : cr + 2] == b"\n" else 1


def parse_all(chunks: Iterable[bytes]) -> Iterator[SseMessage]:
    parser = SseParser()
    for chunk in chunks:
        yield from parser.feed(chunk)
