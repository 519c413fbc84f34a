"""Server-sent events parsing (the WHATWG event-stream format), fed with bytes as they arrive."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from .errors import EventTooLarge

# The largest line, and the most `data:` one event may gather, a reader holds. A legitimate thread frame stays
# far below it: the server moves payloads over 64 KiB to artifacts and caps a model call's streamed tool input
# (which one event may repeat whole) at 16 MiB (toolInputBytes, packages/adapters/builtin/README.md); 64 MiB
# leaves room for JSON escaping and the envelope. Without a bound, a server sending a line without an end
# grew the reader by every byte of it.
MAX_EVENT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class SseMessage:
    data: str
    event: str = "message"
    id: str | None = None  # the last `id:` seen so far on this stream (the resume cursor)
    retry: int | None = None


class SseParser:
    """Incremental: feed() any split of the byte stream, get whole messages back.

    Linear in the bytes fed, however they are split: each chunk is scanned once, and the unfinished line is
    kept as a list of pieces joined only when its terminator arrives (one 30 MB frame in 64 KB reads used to
    be re-copied and re-scanned on every read)."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES, *, source: str = "the server") -> None:
        self._max, self._source = max_event_bytes, source  # source: named in the error (the server's origin)
        self._pieces: list[bytes] = []  # the current line so far, not yet terminated
        self._pending = 0  # bytes in _pieces
        self._data_bytes = 0  # bytes of the current event's data lines so far
        self._after_cr = False  # the last chunk ended with CR: a LF starting the next one is its CRLF's half
        self._data: list[str] = []
        self._event = ""
        self._last_id: str | None = None
        self._retry: int | None = None
        self._first = True

    def feed(self, chunk: bytes) -> list[SseMessage]:
        out: list[SseMessage] = []
        if not chunk:
            return out
        if self._after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._after_cr = False
        start, size = 0, len(chunk)
        # The next LF and CR at or after start, found once and reused until passed: each byte is looked at
        # a bounded number of times (a find per line for a terminator that is absent would rescan the rest).
        lf = cr = -2
        while start < size:
            if lf != -1 and lf < start:
                lf = chunk.find(b"\n", start)
            if cr != -1 and cr < start:
                cr = chunk.find(b"\r", start)
            if lf == -1 and cr == -1:
                break
            if cr == -1 or (lf != -1 and lf < cr):
                end, after = lf, lf + 1
            elif cr + 1 < size:
                end, after = cr, cr + 2 if chunk[cr + 1] == 0x0A else cr + 1
            else:
                end, after, self._after_cr = cr, cr + 1, True
            self._hold(end - start)
            self._pieces.append(chunk[start:end])
            line = b"".join(self._pieces)
            self._pieces, self._pending = [], 0
            start = after
            message = self._line(self._decode(line), len(line))
            if message is not None:
                out.append(message)
        if start < size:
            self._hold(size - start)
            self._pieces.append(chunk[start:] if start else chunk)
        return out

    def _hold(self, more: int) -> None:
        """Refuses, before keeping them, bytes that would take the line or the event's data past the bound."""
        self._pending += more
        if self._pending + self._data_bytes > self._max:
            raise EventTooLarge(self._source, self._max)

    def _decode(self, line: bytes) -> str:
        text = line.decode("utf-8", "replace")
        if self._first:
            self._first = False
            text = text.removeprefix("\ufeff")
        return text

    def _line(self, line: str, size: int) -> SseMessage | None:
        if line == "":
            if not self._data:
                self._event = ""
                return None
            message = SseMessage("\n".join(self._data), self._event or "message", self._last_id, self._retry)
            self._data, self._event, self._data_bytes = [], "", 0
            return message
        if line.startswith(":"):
            return None  # a comment (`: heartbeat`)
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_bytes += size  # the line's bytes (at least 4: `data`) bound its value's and the joining LF
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit() and len(value) <= 15:  # int() of 5000 digits raises
            self._retry = int(value)
        return None


def parse_all(chunks: Iterable[bytes], max_event_bytes: int = MAX_EVENT_BYTES) -> Iterator[SseMessage]:
    parser = SseParser(max_event_bytes)
    for chunk in chunks:
        yield from parser.feed(chunk)
