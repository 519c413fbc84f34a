"""The SSE parser: the same messages for any split of the bytes, and linear time on one large event."""

from __future__ import annotations

import random
import time

from agentlane.sse import SseParser

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
