"""A follower facing a hostile thread stream: a line without an end, rows sent again, ids that are no
deliverySeq. It holds at most its bound, prints each row once, keeps its cursor, and gives up."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time

import pytest

from agentlane.client import Client, EventTooLarge
from agentlane.errors import RepeatedRows
from agentlane.events import Delivered
from agentlane.follow import FollowStats, follow_thread
from agentlane.sse import MAX_EVENT_BYTES
from conftest import PYTHON_ROOT
from fake_stream import OPENED, FakeStreamServer, delivered, sse, stream

HUGE = "99999999999999999999"
MODES = {
    # Ignores Last-Event-ID: every connection sends 1, 2, 3, 2, 1, 3 and closes (the probe's server).
    "repeats": [stream(sse(OPENED), *(sse(delivered(n), n) for n in (1, 2, 3, 2, 1, 3)))],
    # Goes back to row 2 once, then on to 4: the cursor stays at 3 and 4 still comes.
    "back": [stream(sse(OPENED), *(sse(delivered(n), n) for n in (1, 2, 3, 2, 4)))],
    "badids": [stream(sse(OPENED), sse(delivered(1), 1), sse(delivered(7), HUGE), sse(delivered(8), "9" * 5000),
                      sse(delivered(9), "\u0663"), sse(delivered(10), "+5"), sse(delivered(11), "05"),
                      sse(delivered(2**53), None), sse(delivered(2), 2))],
    # A row whose `id:` (5) is not its deliverySeq (1): taking the id lost rows 2 and 3 as "repeats".
    "idmismatch": [stream(sse(OPENED), sse(delivered(1), 5), sse(delivered(2), 2), sse(delivered(3), 3))],
    # NaN and Infinity (json.dumps writes them; JSON.parse refuses them), then a sound row.
    "nan": [stream(sse(OPENED), sse(json.dumps({**delivered(1), "revision": float("nan")}), 1),
                   sse(json.dumps({**delivered(2), "revision": float("inf")}), 2),
                   sse(json.dumps(delivered(3)).replace('"revision": 1', '"revision": 1e999'), 3),
                   sse(delivered(4), 4))],
}


@pytest.fixture(scope="module")
def hostile():
    server = FakeStreamServer(MODES, resume=False)
    yield server
    server.close()


class EndlessLine:
    """A loopback SSE server whose every connection sends `data: xxxx…` without a newline, up to `cap` bytes,
    then closes; it counts connections and the bytes each one took before the reader hung up."""

    def __init__(self, cap: int) -> None:
        self.cap, self.connections, self.sent = cap, 0, []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        sent, chunk = 0, b"x" * 65536
        deadline = time.monotonic() + 30  # bounded in time whatever the reader does
        try:
            conn.settimeout(5)
            conn.recv(65536)  # the request (small, one read is enough here)
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
                         b": hi\n\ndata: ")
            while sent < self.cap and time.monotonic() < deadline:
                conn.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the reader hung up
        self.sent.append(sent)
        conn.close()

    def close(self) -> None:
        self._listener.close()


def _cli(url: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlane", "follow", url, *args], cwd=PYTHON_ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _rows(stdout: str) -> list[int]:
    return [f["deliverySeq"] for f in map(json.loads, stdout.splitlines()) if "deliverySeq" in f]


def test_an_endless_line_ends_the_follow_with_one_line() -> None:
    server = EndlessLine(cap=MAX_EVENT_BYTES + 64 * 1024 * 1024)
    try:
        started = time.monotonic()
        done = _cli(server.url, "t", "--give-up-after", "5", "--max-seconds", "25")
        took = time.monotonic() - started
    finally:
        server.close()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agentlane: "), done.stderr
    assert f"longer than {MAX_EVENT_BYTES} bytes" in lines[0] and "max_event_bytes" in lines[0]
    assert server.connections == 1 and took < 20  # not read again and again until --max-seconds
    # It hung up at its bound: what the server got out is the bound, the socket buffers and one read.
    assert server.sent[0] < MAX_EVENT_BYTES + 16 * 1024 * 1024, server.sent


def test_the_library_raises_event_too_large_with_the_limit() -> None:
    server = EndlessLine(cap=8 * 1024 * 1024)
    try:
        stats = FollowStats()
        with pytest.raises(EventTooLarge) as caught:
            list(follow_thread(Client(server.url, max_event_bytes=1024 * 1024), "t", stats=stats, give_up_after=5,
                               stop_at=time.monotonic() + 10))
    finally:
        server.close()
    assert caught.value.limit == 1024 * 1024 and caught.value.permanent and stats.connections == 1


def test_repeated_rows_are_printed_once_and_given_up_on(hostile) -> None:
    # Before: 399 lines of the same 6 rows in 3 s, and no end (every connection "made progress").
    done = _cli(hostile.url, "repeats", "--give-up-after", "1", "--max-seconds", "15")
    assert done.returncode == 1, done.stderr
    assert _rows(done.stdout) == [1, 2, 3]
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert all(line.startswith("agentlane: ") for line in lines) and len(lines) == 2, done.stderr
    assert "sent only rows already delivered (deliverySeq <= 3)" in lines[0] and "retrying" in lines[0]
    assert "gave up after 1 s" in lines[-1]
    assert hostile.connections["repeats"] < 15  # backed off


def test_the_library_skips_repeats_and_raises_repeated_rows(hostile) -> None:
    stats, errors = FollowStats(), []
    seen: list[int] = []
    with pytest.raises(RepeatedRows) as caught:
        for event in follow_thread(Client(hostile.url), "repeats", stats=stats, give_up_after=0.5,
                                   on_error=errors.append, stop_at=time.monotonic() + 10):
            if isinstance(event, Delivered):
                seen.append(event.delivery_seq)
    assert seen == [1, 2, 3] and stats.last_event_id == 3 and caught.value.delivery_seq == 3
    assert stats.repeats >= 3 and errors and stats.failures == len(errors)


def test_the_cursor_never_goes_back(hostile) -> None:
    stats = FollowStats()
    events = follow_thread(Client(hostile.url), "back", stats=stats, stop_at=time.monotonic() + 10,
                           until=lambda e: isinstance(e, Delivered) and e.delivery_seq == 4)
    assert [e.delivery_seq for e in events if isinstance(e, Delivered)] == [1, 2, 3, 4]
    assert stats.repeats == 1 and stats.last_event_id == 4


def test_an_id_that_is_no_delivery_seq_is_skipped_with_one_line(hostile) -> None:
    stats, bad = FollowStats(), []
    events = follow_thread(Client(hostile.url), "badids", stats=stats, on_bad_frame=lambda i, why: bad.append((i, why)),
                           until=lambda e: isinstance(e, Delivered) and e.delivery_seq == 2, stop_at=time.monotonic() + 10)
    assert [e.delivery_seq for e in events if isinstance(e, Delivered)] == [1, 2]
    assert stats.last_event_id == 2 and stats.bad_frames == len(bad) == 6
    assert [i for i, _ in bad] == [HUGE, "9" * 40, "\u0663", "+5", "05", "05"]  # ids shown cut to 40
    assert all("not a deliverySeq" in why for _, why in bad[:5]) and "out of range" in bad[5][1]


def test_the_cli_does_not_take_a_huge_id_as_its_cursor(hostile) -> None:
    # The 5,000-digit id was int() and a traceback; the 20-digit one the cursor, so row 2 came as new forever.
    done = _cli(hostile.url, "badids", "--max-seconds", "3")
    assert "Traceback" not in done.stderr
    assert _rows(done.stdout) == [1, 2]
    assert "agentlane: skipped a frame (id 99999999999999999999): its id is not a deliverySeq" in done.stderr


def test_a_frame_nested_past_the_recursion_limit_is_skipped_not_raised() -> None:
    from agentlane.frames import decode_frame

    frame, why = decode_frame("[" * 100_000 + "]" * 100_000)
    assert frame is None and why is not None and "nested too deeply" in why


def test_a_row_whose_id_is_not_its_delivery_seq_is_skipped_and_not_the_cursor(hostile) -> None:
    stats, bad = FollowStats(), []
    events = follow_thread(Client(hostile.url), "idmismatch", stats=stats, on_bad_frame=lambda i, why: bad.append((i, why)),
                           until=lambda e: isinstance(e, Delivered) and e.delivery_seq == 3, stop_at=time.monotonic() + 10)
    assert [e.delivery_seq for e in events if isinstance(e, Delivered)] == [2, 3]
    assert stats.last_event_id == 3 and stats.repeats == 0
    assert len(bad) == 1 and bad[0][0] == "5" and "not its deliverySeq 1" in bad[0][1]


def test_nan_and_infinity_are_bad_frames_never_printed(hostile) -> None:
    from agentlane import strictjson

    done = _cli(hostile.url, "nan", "--max-seconds", "3")
    assert "Traceback" not in done.stderr
    frames = [strictjson.loads(line) for line in done.stdout.splitlines()]  # every line is JSON (was NaN)
    assert [f["deliverySeq"] for f in frames if "deliverySeq" in f] == [4]
    skipped = [line for line in done.stderr.splitlines() if "skipped a frame" in line]
    assert [line.split("(id ")[1][0] for line in skipped] == ["1", "2", "3"], done.stderr
