"""A follower facing a hostile or unwell server: it counts non-streams and 429/5xx towards give-up, skips
frames it cannot use with one line on stderr, and only resets its backoff on real progress."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from agentlane.client import ApiError, Client, NotAStream, StreamInterrupted
from agentlane.events import Delivered
from agentlane.follow import FollowStats, follow_thread
from agentlane.unavailable import ServerUnavailable
from conftest import PYTHON_ROOT
from fake_stream import OPENED, FakeStreamServer, answer, cut_after, delivered, sse, stream

ROW = sse(delivered(1), 1)
MODES = {
    "html200": [(200, {"content-type": "text/html"}, "hello")],
    "redirect": [(302, {"location": "http://127.0.0.1:9/elsewhere"}, "")],
    "badjson": [stream(sse(OPENED), sse("{not json", 1), sse(delivered(2), 2))],
    "v2": [stream(sse(OPENED), sse(delivered(1, schema=2), 1), sse(delivered(2), 2))],
    "unknownfield": [stream(sse(OPENED), sse(delivered(1, extra={"futureField": 1}), 1), sse(delivered(2), 2))],
    "typeless": [stream(sse(OPENED), sse({"hello": 1}, 1), sse([1, 2], None), sse(delivered(2), 2))],
    "r429": [answer(429, '{"error":{"code":"rate_limited","message":"slow down"}}', retry_after="1"), stream(ROW)],
    "r502": [answer(502, "<html>\nBad gateway\n</html>"), stream(ROW)],
    "r500": [answer(500, '{"error":{"code":"internal","message":"boom"}}')],
    "r404": [answer(404, '{"error":{"code":"not_found","message":"no thread"}}')],
    "opencut": [cut_after(sse(OPENED))],
    "openonly": [stream(sse(OPENED))],
}


@pytest.fixture(scope="module")
def fake():
    server = FakeStreamServer(MODES)
    yield server
    server.close()


def _cli(url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlane", "follow", url, *args], cwd=PYTHON_ROOT,
                          capture_output=True, text=True, timeout=60)


def _one_line_errors(done: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines and all(line.startswith("agentlane: ") for line in lines), done.stderr
    return lines


@pytest.mark.parametrize("mode, says", [("html200", "200 with content-type text/html"),
                                        ("redirect", "302 redirect to http://127.0.0.1:9/elsewhere, not followed")])
def test_a_non_stream_answer_counts_towards_give_up(fake, mode, says) -> None:
    before = fake.connections[mode]
    started = time.monotonic()
    done = _cli(fake.url, mode, "--give-up-after", "1", "--max-seconds", "20")
    assert done.returncode == 1, done.stderr
    lines = _one_line_errors(done)
    assert f"did not answer with an event stream: {says}" in lines[0]
    assert "gave up after 1 s" in lines[-1] and len(lines) == 2
    assert fake.connections[mode] - before < 15  # backed off, not ~20 reconnects a second


def test_a_non_stream_answer_is_not_a_successful_follow(fake) -> None:
    done = _cli(fake.url, "html200", "--max-seconds", "1")  # give-up (60 s) never comes: the deadline does
    assert done.returncode == 1
    assert "ran out" in _one_line_errors(done)[-1]


def test_the_library_raises_not_a_stream(fake) -> None:
    with pytest.raises(NotAStream):
        list(follow_thread(Client(fake.url), "redirect", give_up_after=0.3))


@pytest.mark.parametrize("mode", ["badjson", "v2", "unknownfield", "typeless"])
def test_a_bad_frame_is_skipped_with_one_line(fake, mode) -> None:
    # Long enough for the second row on a loaded machine; the follow ends (exit 0) at the deadline.
    done = _cli(fake.url, mode, "--max-seconds", "4")
    assert done.returncode == 0, done.stderr
    lines = _one_line_errors(done)
    assert lines[0].startswith("agentlane: skipped a frame")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows[0]["type"] == "stream.opened"
    # The stream went on after it (what follows row 2 depends on timing: a reconnect's stream.opened, …).
    assert [r.get("deliverySeq") for r in rows if "deliverySeq" in r][-1] == 2


def test_a_skipped_row_is_not_asked_for_again(fake) -> None:
    stats, seen = FollowStats(), []
    events = list(follow_thread(Client(fake.url), "v2", stats=stats, on_bad_frame=lambda i, why: seen.append((i, why)),
                                until=lambda e: isinstance(e, Delivered)))
    assert [e.delivery_seq for e in events if isinstance(e, Delivered)] == [2]
    assert stats.bad_frames == 1 and stats.last_event_id == 2 and seen[0][0] == "1"
    assert "schemaVersion" in seen[0][1]


@pytest.mark.parametrize("mode", ["badjson", "v2", "typeless"])
def test_execute_skips_a_bad_frame(fake, mode) -> None:
    seen = []
    events = list(Client(fake.url).execute(mode, "hi", on_bad_frame=lambda i, why: seen.append(why)))
    assert [e.delivery_seq for e in events if isinstance(e, Delivered)] == [2] and seen


@pytest.mark.parametrize("mode, waits", [("r429", 0.9), ("r502", 0.0)])
def test_429_and_5xx_are_retried(fake, mode, waits) -> None:
    errors, started = [], time.monotonic()
    events = list(follow_thread(Client(fake.url), mode, on_error=errors.append, give_up_after=10,
                                until=lambda e: isinstance(e, Delivered)))
    assert [e.delivery_seq for e in events] == [1]
    assert len(errors) == 1 and isinstance(errors[0], ServerUnavailable) and "\n" not in str(errors[0])
    assert time.monotonic() - started >= waits  # Retry-After: 1 was honoured


def test_a_lasting_5xx_gives_up_with_one_line(fake) -> None:
    done = _cli(fake.url, "r500", "--give-up-after", "1")
    assert done.returncode == 1
    lines = _one_line_errors(done)
    assert "answered 500 internal: boom" in lines[0] and "gave up after 1 s" in lines[-1]


def test_a_4xx_still_ends_the_follow_at_once(fake) -> None:
    with pytest.raises(ApiError) as caught:
        list(follow_thread(Client(fake.url), "r404"))
    assert caught.value.status == 404


def test_stream_opened_is_not_progress(fake) -> None:
    # Every connection opens, then drops before a row: the backoff must grow and give-up must fire.
    stats = FollowStats()
    with pytest.raises(StreamInterrupted):
        list(follow_thread(Client(fake.url), "opencut", stats=stats, give_up_after=1.0))
    assert stats.connections < 15, stats.connections
    assert stats.failures == stats.connections


def test_a_stream_that_ends_at_once_each_time_is_backed_off(fake) -> None:
    # Opens, then ends cleanly without a row or stream.closing: reconnects must slow down.
    stats = FollowStats()
    list(follow_thread(Client(fake.url), "openonly", stats=stats, stop_at=time.monotonic() + 1.5))
    assert stats.connections < 12, stats.connections  # was ~30 at a flat 50 ms
