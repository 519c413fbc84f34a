"""A Python turn as a run of the thread: the server's external engine takes its events and ledger rows
through POST /runs/:id/events, and every agentlane client sees the run like any other."""

from __future__ import annotations

import hashlib
import pathlib
import time

import pytest

from agentlane.canonical import canonical_json
from agentlane.client import ApiError
from agentlane.events import Delivered, RunCanonicalized
from agentlane.follow import Timeline, follow_thread
from agentlane.ids import ulid
from agentlane.runtime.publish import run_on_server
from agentlane.runtime.tools import Workspace
from agentlane.runtime.turn import TurnConfig


def event_id(run_id: str, key: str) -> str:
    return "ev_" + hashlib.sha256(f"{run_id}\0{key}".encode("utf-8")).hexdigest()[:32]


def test_a_python_turn_is_a_run_of_the_thread(client, server, model_proxy, tmp_path: pathlib.Path) -> None:
    sid = client.create_session("python")["id"]
    config = TurnConfig(thread_id=sid, turn_id="", prompt="hello from Python", model="fake-model",
                        base_url=model_proxy.url + "/v1", api_key="python-test-key", workspace=Workspace(tmp_path), ids=ulid)
    run_id, result = run_on_server(client, sid, config)

    # Until the completion signal, or the run's last row already final (it settled before the stream opened:
    # the signal is live-only, replayed rows of a settled run come final).
    def done(e) -> bool:
        return (isinstance(e, RunCanonicalized) and e.run_id == run_id) or (
            isinstance(e, Delivered) and e.event.event_id == event_id(run_id, "turn.completed") and not e.provisional)

    timeline = Timeline()
    for event in follow_thread(client, sid, until=done, stop_at=time.monotonic() + 30):
        timeline.fold(event)
    rows = timeline.events()
    # Every draft became one canonical event of the run, in order, its eventId derived from its key.
    assert [r.event.event_id for r in rows] == [event_id(run_id, e["key"]) for e in result.events]
    assert [(r.event.kind, r.event.payload) for r in rows] == [(e["kind"], e["payload"]) for e in result.events]
    assert {r.event.run_id for r in rows} == {run_id} and all(timeline.is_final(r) for r in rows)
    assert rows[0].event.identity == {"provider": "external"}
    assert client.get_run(run_id)["status"] == "completed"
    # The ledger rows are in the server's ledger, unchanged.
    audit = [r for r in client.all_audit(sid) if r["turn_id"] == run_id]
    assert [canonical_json(r) for r in audit] == [canonical_json(r) for r in result.ledger_rows]


def test_the_route_refuses_what_is_not_the_runs(client, server) -> None:
    sid = client.create_session("python")["id"]
    run, _ = client.create_run(sid, "x")
    row = {"record_id": ulid(), "audit_record_version": 1, "session_id": "elsewhere", "turn_id": run["runId"],
           "stage_id": "tool-loop", "seq_within_turn": 1, "created_at": "2026-01-01T00:00:00.000Z", "actor_kind": "runtime",
           "session_auth_method": "none", "call_class": "tool", "provider": "builtin", "model": None,
           "transport": "in-process", "status": "ok", "latency_ms": 1, "finish_reason": None, "http_status": None,
           "payload": {"kind": "tool_call", "toolCallId": "c", "toolName": "list_files", "input": {}, "outputPreview": "[]"}}
    with pytest.raises(ApiError) as refused:
        client.add_events(run["runId"], audit=[row])
    assert (refused.value.status, refused.value.code, refused.value.field) == (400, "invalid_request", "body.audit[0].session_id")
    with pytest.raises(ApiError) as bad:
        client.add_events(run["runId"], events=[{"key": "k", "kind": "message.delta", "payload": {"messageId": "m"}}])
    assert bad.value.status == 400 and bad.value.field.startswith("body.events[0].payload")
    assert client.add_events(run["runId"], end={"outcome": "cancelled"}) == {"accepted": True, "frames": 0, "ended": True}
    with pytest.raises(ApiError) as ended:
        client.add_events(run["runId"], events=[])
    assert (ended.value.status, ended.value.code) == (409, "conflict")
