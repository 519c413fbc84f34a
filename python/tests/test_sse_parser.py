"""The SSE parser: the same messages for any split of the bytes, and linear time on one large event."""

from __future__ import annotations

import random
import time
import tracemalloc

import pytest

from agentlane.client import EventTooLarge, TransportError
from agentlane.sse import MAX_EVENT_BYTES, SseParser

STREAM = (
    b"\xef\xbb\xbfid: 1\r\ndata: one\r\n\r\n"  # BOM, CRLF
    b": heartbeat\n\n"
    b"event: x\rdata: two\rdata: lines\r\r"  # lone CRs
    b"retry: 50\nid: 2\ndata: three\n\n"
    b"data: caf\xc3\xa9\r\n\r\n"  # a multi-byte character and CRLF, both splittable
)


def _messages(chunks) -> list[tuple]:
    parser = SseParser()
    return [(m.event, m.data, m.id, m.retry) for chunk in chunks for m in parser.feed(chunk)]


def test_every_split_gives_the_same_messages() -> None:
    whole = _messages([STREAM])
    assert whole == [("message", "one", "1", None), ("x", "two\nlines", "1", None), ("message", "three", "2", 50),
                     ("message", "café", "2", 50)]
    for cut in range(len(STREAM) + 1):  # every two-piece split, CRLF halves included
        assert _messages([STREAM[:cut], STREAM[cut:]]) == whole, cut
    rng = random.Random(7)
    for _ in range(200):
        cuts = sorted(rng.sample(range(len(STREAM)), 6))
        pieces = [STREAM[a:b] for a, b in zip([0, *cuts], [*cuts, len(STREAM)])]
        assert _messages(pieces) == whole


def test_one_large_event_in_small_reads() -> None:
    # 8 MB in 1 KB reads (re-copying the pending line on each read made this ~30 GB of work; its speed is
    # not asserted here: this checks the pieces come back as the one event).
    size, read = 8 * 1024 * 1024, 1024
    payload = b"data: " + b"x" * size + b"\n\n"
    parser = SseParser()
    got = [m for i in range(0, len(payload), read) for m in parser.feed(payload[i : i + read])]
    assert len(got) == 1 and len(got[0].data) == size


def test_many_lines_in_one_chunk_without_a_cr() -> None:
    # No CR anywhere: looking for one per line must not rescan the rest of the chunk each time.
    chunk = b"data: a\n\n" * 200_000
    assert len(SseParser().feed(chunk)) == 200_000


def test_the_default_limit_is_far_above_a_legitimate_frame() -> None:
    # The server caps one model call's tool input (which one event may carry whole) at 16 MiB.
    assert MAX_EVENT_BYTES >= 4 * 16 * 1024 * 1024


def test_the_limit_is_inclusive() -> None:
    line = b"data: " + b"x" * 994  # 1000 bytes
    assert [m.data for m in SseParser(1000).feed(line + b"\n\n")] == ["x" * 994]
    with pytest.raises(EventTooLarge):
        SseParser(1000).feed(line + b"x\n\n")


def test_a_line_without_an_end_raises_without_being_held() -> None:
    # A hostile server's 300 MB line: the parser used to keep every byte of it. Now it stops at the bound,
    # having held no more than that (the same 64 KiB chunk is fed again and again: only the parser allocates).
    limit, chunk = 1024 * 1024, b"x" * 65536
    parser = SseParser(limit, source="http://127.0.0.1:9")
    fed = 0
    tracemalloc.start()
    try:
        with pytest.raises(EventTooLarge) as caught:
            parser.feed(b"data: ")
            for _ in range(128):  # 8 MiB: far past the limit
                parser.feed(chunk)
                fed += len(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    error = caught.value
    assert isinstance(error, TransportError) and error.limit == limit and error.permanent
    assert f"longer than {limit} bytes" in str(error) and "http://127.0.0.1:9" in str(error)
    assert fed <= limit  # raised by the chunk that would have passed it
    assert peak < limit + 4 * len(chunk), peak


def test_one_events_data_lines_count_together() -> None:
    # Short lines, but no blank line ending the event: its data would grow without end.
    parser = SseParser(100_000)
    with pytest.raises(EventTooLarge):
        for _ in range(10_000):
            parser.feed(b"data: " + b"y" * 94 + b"\n")
    # Events that end count from zero again: 10 MB of 100-byte events is fine under a 1 KB bound.
    parser = SseParser(1000)
    assert sum(len(parser.feed(b"data: " + b"z" * 94 + b"\n\n")) for _ in range(100_000)) == 100_000


def test_a_hostile_retry_field_is_ignored() -> None:
    # int() of 5,000 digits raises ValueError in CPython 3.11, and so does int("²") ("²".isdigit() is True).
    stream = b"retry: " + b"9" * 5000 + b"\nretry: \xc2\xb2\ndata: a\n\n"
    assert [(m.data, m.retry) for m in SseParser().feed(stream)] == [("a", None)]
