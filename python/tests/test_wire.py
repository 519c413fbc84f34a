"""The wire client against a real `agentlane serve`: every route, its documented error shapes, typed SSE frames."""

from __future__ import annotations

import uuid

import pytest

from agentlane.client import ApiError
from agentlane.events import Delivered, RunCanonicalized, RunStatus, StreamClosing, StreamOpened
from openapi_check import check_error, check_response


def settle(client, session_id: str, prompt: str = "hello"):
    events = list(client.execute(session_id, prompt))
    run_id = next(e.run_id for e in events if isinstance(e, RunStatus))
    return run_id, events


def test_health(client, openapi) -> None:
    body = client.health()
    check_response(openapi, "GET", "/health", 200, body)
    assert body["status"] == "ok" and body["store"] == "sqlite"


def test_session_routes(client, openapi) -> None:
    created = client.create_session("replay-opencode", title="from python", metadata={"team": "py"})
    check_response(openapi, "POST", "/sessions", 201, {"session": created})
    sid = created["id"]
    read = client.get_session(sid)
    check_response(openapi, "GET", "/sessions/{id}", 200, {"session": read})
    assert {k: read[k] for k in created} == created  # a read may carry more (e.g. the thread's activity)
    listed = client.list_sessions(engine="replay-opencode", limit=200)
    check_response(openapi, "GET", "/sessions", 200, listed)
    assert sid in [s["id"] for s in listed["sessions"]]
    updated = client.update_session(sid, title=None, expected_generation=created["generation"])
    assert updated["title"] is None and updated["metadata"] == {"team": "py"}
    with pytest.raises(ApiError) as stale:
        client.update_session(sid, title="x", expected_generation=created["generation"] + 5)
    check_error(openapi, "PUT", "/sessions/{id}", stale.value, 409)
    client.delete_session(sid)
    with pytest.raises(ApiError) as gone:
        client.get_session(sid)
    check_error(openapi, "GET", "/sessions/{id}", gone.value, 404)


def test_bad_input_is_a_documented_400(client, openapi) -> None:
    with pytest.raises(ApiError) as unknown_field:
        client.request("POST", "/sessions", body={"engine": "replay-opencode", "colour": "red"})
    check_error(openapi, "POST", "/sessions", unknown_field.value, 400)
    with pytest.raises(ApiError) as bad_limit:
        client.list_sessions(limit=0)
    check_error(openapi, "GET", "/sessions", bad_limit.value, 400)
    assert bad_limit.value.field == "query.limit"
    sid = client.create_session("replay-opencode")["id"]
    with pytest.raises(ApiError) as empty_prompt:
        list(client.execute(sid, ""))
    check_error(openapi, "POST", "/sessions/{id}/execute", empty_prompt.value, 400)
    assert empty_prompt.value.field == "body.prompt"
    with pytest.raises(ApiError) as bad_cursor:
        list(client.thread_messages(sid, last_event_id="not-a-number"))
    check_error(openapi, "GET", "/threads/{id}/events", bad_cursor.value, 400)
    assert bad_cursor.value.field == "headers.last-event-id"


def test_execute_streams_typed_validated_frames(client) -> None:
    sid = client.create_session("replay-claude-code")["id"]
    run_id, events = settle(client, sid)
    assert isinstance(events[0], StreamOpened)
    assert isinstance(events[-1], StreamClosing) and events[-1].reason == "run_settled"
    done = [e for e in events if isinstance(e, RunCanonicalized)]
    assert len(done) == 1 and done[0].run_id == run_id
    rows = [e for e in events if isinstance(e, Delivered)]
    kinds = {r.event.kind for r in rows}
    assert {"turn.started", "message.delta", "tool.started", "approval.requested", "turn.completed"} <= kinds
    seqs = [r.delivery_seq for r in rows]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert all(r.event.run_id == run_id for r in rows)


def test_run_routes(client, openapi) -> None:
    sid = client.create_session("replay-opencode")["id"]
    key = f"py-{uuid.uuid4()}"
    run, created = client.create_run(sid, "hello", idempotency_key=key)
    check_response(openapi, "POST", "/threads/{id}/runs", 201, {"run": run})
    again, created_again = client.create_run(sid, "hello", idempotency_key=key)
    assert created and not created_again and again["runId"] == run["runId"]
    with pytest.raises(ApiError) as other_body:
        client.create_run(sid, "something else", idempotency_key=key)
    check_error(openapi, "POST", "/threads/{id}/runs", other_body.value, 409)
    from agentlane.follow import follow_thread

    for _ in follow_thread(client, sid, until=lambda e: isinstance(e, RunCanonicalized) and e.run_id == run["runId"]):
        pass
    settled = client.get_run(run["runId"])
    check_response(openapi, "GET", "/runs/{id}", 200, {"run": settled})
    assert settled["status"] == "completed" and settled["outcome"] == "completed"
    cancelled = client.cancel_run(run["runId"])
    check_response(openapi, "POST", "/runs/{id}/cancel", 202, {"run": cancelled})
    with pytest.raises(ApiError) as ended:
        client.answer_approval(run["runId"], "approval-1", "selected", "allow")
    check_error(openapi, "POST", "/runs/{id}/approvals/{approvalId}", ended.value, 409, "conflict")
    assert ended.value.field == "params.id"
    with pytest.raises(ApiError) as ended_q:
        client.answer_question(run["runId"], "question-1", "answered", text="yes")
    check_error(openapi, "POST", "/runs/{id}/questions/{questionId}", ended_q.value, 409, "conflict")
    with pytest.raises(ApiError) as missing:
        client.get_run("run_does_not_exist")
    check_error(openapi, "GET", "/runs/{id}", missing.value, 404)
    with pytest.raises(ApiError) as missing_cancel:
        client.cancel_run("run_does_not_exist")
    check_error(openapi, "POST", "/runs/{id}/cancel", missing_cancel.value, 404)


def test_audit_checkpoints_and_artifact_routes(client, openapi) -> None:
    sid = client.create_session("builtin")["id"]
    run_id, _ = settle(client, sid, "hi")
    audit = client.audit(sid)
    check_response(openapi, "GET", "/sessions/{id}/audit", 200, audit)
    assert [r["call_class"] for r in audit["calls"]] == ["model"]
    listing = client.list_checkpoints(sid, limit=1)
    check_response(openapi, "GET", "/sessions/{id}/checkpoints", 200, listing)
    every = client.all_checkpoints(sid)
    assert len(every) >= 2 and every[0]["checkpointId"] == listing["checkpoints"][0]["checkpointId"]
    envelope = client.get_checkpoint(sid, every[0]["checkpointId"])
    check_response(openapi, "GET", "/sessions/{id}/checkpoints/{checkpointId}", 200, envelope)
    with pytest.raises(ApiError) as no_checkpoint:
        client.get_checkpoint(sid, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    check_error(openapi, "GET", "/sessions/{id}/checkpoints/{checkpointId}", no_checkpoint.value, 404)
    forked = client.fork_session(sid, every[-1]["checkpointId"], title="forked from python")
    check_response(openapi, "POST", "/sessions/{id}/fork", 201, forked)
    cut = forked["forkedFrom"]
    assert (cut["threadId"], cut["checkpointId"]) == (sid, every[-1]["checkpointId"])
    assert {"stageId", "at", "runId", "headSeq"} <= cut.keys()
    new_id = forked["session"]["id"]
    assert new_id != sid and client.get_checkpoint(new_id, forked["checkpointId"])["sessionId"] == new_id
    with pytest.raises(ApiError) as no_fork:
        client.fork_session(sid, "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    check_error(openapi, "POST", "/sessions/{id}/fork", no_fork.value, 404)
    # After a run, the built-in engine forks from that run's last checkpoint (the one closing its turn).
    after_run = client.fork_session(sid, run_id=run_id)
    check_response(openapi, "POST", "/sessions/{id}/fork", 201, after_run)
    assert after_run["forkedFrom"]["runId"] == run_id and after_run["forkedFrom"]["stageId"] == "post-turn"
    with pytest.raises(ApiError) as no_run:
        client.fork_session(sid, run_id="run_does_not_exist")
    check_error(openapi, "POST", "/sessions/{id}/fork", no_run.value, 404)
    assert no_run.value.field == "body.runId"
    with pytest.raises(ApiError) as no_artifact:
        client.get_artifact("art_does_not_exist")
    check_error(openapi, "GET", "/artifacts/{id}", no_artifact.value, 404)


def test_sync_route(client, openapi) -> None:
    from agentlane.vectors import increment_vector

    sid = client.create_session("replay-opencode")["id"]
    va = increment_vector({}, "py-a")
    first = client.sync(sid, "py-a", va, [{"key": "title", "value": "A", "version": va["py-a"], "vector": va}])
    check_response(openapi, "POST", "/sessions/{id}/sync", 200, first)
    vb = increment_vector({}, "py-b")
    second = client.sync(sid, "py-b", vb, [{"key": "title", "value": "B", "version": 1, "vector": vb}])
    assert [c["key"] for c in second["conflicts"]] == ["title"]
    assert second["vector"] == {"py-a": 1, "py-b": 1}
    with pytest.raises(ApiError) as bad:
        client.sync(sid, "py-a", va, [{"key": "title", "value": "C", "version": 3, "vector": va}])
    check_error(openapi, "POST", "/sessions/{id}/sync", bad.value, 400)
