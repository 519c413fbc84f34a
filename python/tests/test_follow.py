"""Following a thread across a real connection drop: Last-Event-ID resume loses and repeats nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.parse

from agentlane.client import Client
from agentlane.events import Delivered, RunCanonicalized, StreamOpened
from agentlane.follow import FollowStats, Timeline, follow_thread
from agentlane.sse import SseParser
from agentlane.events import parse_stream_event
from conftest import PYTHON_ROOT
from tcp_cut import CuttingProxy


def _port(url: str) -> int:
    return urllib.parse.urlsplit(url).port or 80


def _replay_until(client, thread_id, last_seq):
    rows = []
    for event in follow_thread(client, thread_id, until=lambda e: isinstance(e, Delivered) and e.delivery_seq >= last_seq):
        if isinstance(event, Delivered):
            rows.append(event)
    return rows


def test_live_run_followed_through_a_drop(client, server) -> None:
    sid = client.create_session("replay-claude-code")["id"]
    proxy = CuttingProxy(_port(server.url), cut_after=6000)
    try:
        proxied = Client(f"http://127.0.0.1:{proxy.port}")
        run, _ = proxied.create_run(sid, "hello")
        proxy.connections = 0  # the run.create call went through the proxy uncut; the stream is next
        stats = FollowStats()
        timeline = Timeline()
        seen = []
        for event in follow_thread(
            proxied, sid, stats=stats,
            until=lambda e: isinstance(e, RunCanonicalized) and e.run_id == run["runId"],
        ):
            timeline.fold(event)
            if isinstance(event, Delivered):
                seen.append(event.delivery_seq)
    finally:
        proxy.close()
    assert stats.connections >= 2  # the cut happened, and the follower came back
    assert seen == sorted(set(seen))  # nothing repeated, in order
    direct = _replay_until(client, sid, seen[-1])
    assert [r.delivery_seq for r in direct] == seen  # nothing lost
    latest = {r.event.event_id: r.revision for r in direct}
    assert {k: r.revision for k, r in timeline.rows.items()} == latest
    assert all(timeline.is_final(r) for r in timeline.events())


def test_unknown_types_are_skipped_and_bad_known_ones_refused() -> None:
    stream = (
        b': heartbeat\n\n'
        b'id: 7\r\ndata: {"type":"thing.from.the.future","x":1}\r\n\r\n'
        b'data: {"type":"stream.closing",\ndata: "reason":"shutdown","retryMs":5}\n\n'
        b'data: {"type":"stream.opened","threadId":"t"}\n\n'
    )
    parser = SseParser()
    messages = []
    for i in range(0, len(stream), 3):  # any split of the bytes gives the same messages
        messages += parser.feed(stream[i : i + 3])
    assert [m.id for m in messages] == ["7", "7", "7"]
    assert parse_stream_event(json.loads(messages[0].data)) is None
    closing = parse_stream_event(json.loads(messages[1].data))
    assert closing.reason == "shutdown" and closing.retry_ms == 5
    try:
        parse_stream_event(json.loads(messages[2].data))
        raise AssertionError("a stream.opened without after/headDeliverySeq must be refused")
    except ValueError as error:
        assert error.issues[0].rule == "required"


def test_cli_prints_jsonl(client, server) -> None:
    sid = client.create_session("replay-opencode")["id"]
    list(client.execute(sid, "hello"))
    done = subprocess.run(
        [sys.executable, "-m", "agentlane", "follow", server.url, sid, "--max-seconds", "1.5"],
        cwd=PYTHON_ROOT, capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 0, done.stderr
    frames = [json.loads(line) for line in done.stdout.splitlines()]
    assert frames[0]["type"] == "stream.opened"
    opened = parse_stream_event(frames[0])
    assert isinstance(opened, StreamOpened)
    rows = [f for f in frames if "deliverySeq" in f and "event" in f]
    assert len(rows) == opened.head_delivery_seq and rows[-1]["deliverySeq"] == opened.head_delivery_seq


def test_cli_until_canonicalized_ends_for_a_run_that_already_ended(client, server) -> None:
    sid = client.create_session("replay-opencode")["id"]
    events = list(client.execute(sid, "hello"))
    run_id = next(e.run_id for e in events if isinstance(e, RunCanonicalized))
    # It ends by itself: a follower that waits for a signal that never comes is killed by the timeout (an error).
    done = subprocess.run(
        [sys.executable, "-m", "agentlane", "follow", server.url, sid, "--until-canonicalized", run_id],
        cwd=PYTHON_ROOT, capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 0, done.stderr
    frames = [json.loads(line) for line in done.stdout.splitlines()]
    opened = parse_stream_event(frames[0])
    assert isinstance(opened, StreamOpened)
    rows = [f for f in frames if "deliverySeq" in f and "event" in f]
    assert rows[-1]["deliverySeq"] == opened.head_delivery_seq
    assert any(r["event"]["runId"] == run_id for r in rows)


def test_stop_at_holds_on_a_quiet_stream(client) -> None:
    sid = client.create_session("replay-opencode")["id"]
    events: list = []
    follower = threading.Thread(
        target=lambda: events.extend(follow_thread(client, sid, read_timeout=600.0, stop_at=time.monotonic() + 1.0)),
        daemon=True,
    )
    follower.start()
    # A hang guard, not a speed figure: without the deadline on each read the follower never returns.
    follower.join(timeout=60)
    assert not follower.is_alive(), "follow_thread kept reading past stop_at"
    assert isinstance(events[0], StreamOpened)


def test_tool_input_in_the_append_form_is_joined_until_the_whole_input_replaces_it() -> None:
    def frame(seq: int, kind: str, payload: dict) -> dict:
        event = {"schemaVersion": 1, "eventId": f"e{seq}", "seq": seq, "runId": "r", "threadId": "t", "turnId": "r",
                 "ts": "2026-01-01T00:00:00Z", "identity": {"provider": "x"}, "kind": kind, "payload": payload}
        return {"type": kind, "deliverySeq": seq, "revision": 1, "provisional": True, "event": event}

    timeline = Timeline()
    frames = [
        frame(1, "tool.started", {"toolCallId": "c1", "name": "write", "kind": "edit", "input": {}, "status": "pending"}),
        frame(2, "tool.progress", {"toolCallId": "c1", "status": "pending", "inputDelta": '{"path":'}),
        frame(3, "tool.progress", {"toolCallId": "c1", "status": "pending", "inputDelta": '"a.txt"}'}),
    ]
    for f in frames:
        timeline.fold(parse_stream_event(f))  # the bundle accepts the append form
    assert timeline.tool_input("c1") == '{"path":"a.txt"}'
    timeline.fold(parse_stream_event(frame(4, "tool.progress", {"toolCallId": "c1", "status": "pending", "input": {"path": "a.txt"}})))
    assert timeline.tool_input("c1") == {"path": "a.txt"}
    assert timeline.tool_input("other") is None
