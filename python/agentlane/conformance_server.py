"""The live-server part of `python -m agentlane.conformance`: what a running server answers must be the contract.

Each REST answer is validated against the bundle (closed objects: an unknown field fails), ids must be the ones
asked for, listings must not repeat rows, and a thread's stream must deliver each deliverySeq once, rising.
"""

from __future__ import annotations

import time

from .client import Client
from .events import Delivered, StreamOpened
from .follow import FollowStats, follow_thread
from .schema import validate


def _problem(shape: str, value) -> str:
    issues = validate(shape, value)
    return "" if not issues else f": {issues[0].path} {issues[0].message}"


def check_server(report, url: str, token: str | None, max_sessions: int = 20) -> list[str]:
    client = Client(url, token=token)
    health = client.health()
    report.check("wire", health.get("status") in ("ok", "degraded", "draining"), f"health {health}")
    sessions = client.list_sessions(limit=max_sessions)["sessions"]
    report.check("wire", isinstance(sessions, list), "GET /sessions")
    ids = _check_sessions(report, sessions)
    for sid in ids:
        report.guard("events", f"thread {sid}", lambda sid=sid: _check_stream(report, client, sid))
        report.guard("ledger", f"audit of {sid}", lambda sid=sid: _check_audit(report, client, sid))
        report.guard("checkpoints", f"checkpoints of {sid}", lambda sid=sid: _check_checkpoints(report, client, sid))
    return ids


def _check_sessions(report, sessions: list) -> list[str]:
    """Each listed session must be a SessionView; returns the ids to look into."""
    ids = []
    for session in sessions:
        why = _problem("SessionView", session)
        report.check("wire", not why, f"GET /sessions: session {session.get('id')!r}{why}")
        if isinstance(session.get("id"), str):
            ids.append(session["id"])
    return ids


def _check_stream(report, client: Client, sid: str) -> None:
    """Reads the thread up to the head it opened at; deliverySeq must rise strictly (no row twice, none back)."""
    head: dict = {"seq": None}

    def until(event) -> bool:
        if isinstance(event, StreamOpened):
            head["seq"] = event.head_delivery_seq
            return event.head_delivery_seq == 0
        return isinstance(event, Delivered) and head["seq"] is not None and event.delivery_seq >= head["seq"]

    bad: list[str] = []
    stats = FollowStats()
    frames = list(follow_thread(client, sid, until=until, stats=stats, stop_at=time.monotonic() + 30,
                                on_bad_frame=lambda frame_id, why: bad.append(f"frame {frame_id}: {why}")))
    report.check("events", bool(frames), f"{sid}: no frames")
    # The follower skips a row at or below its cursor (never yields it): counted, so a conformance check sees it.
    report.check("events", stats.repeats == 0,
                 f"{sid}: {stats.repeats} row(s) at or below a deliverySeq already delivered (each row once, rising)")
    for why in bad:  # a conformance check may not skip what a tolerant follower skips
        report.check("events", False, f"{sid}: {why}")
    last = 0
    for event in frames:
        if not isinstance(event, Delivered):
            continue
        report.check("events", event.delivery_seq > last,
                     f"{sid}: deliverySeq {event.delivery_seq} after {last} (each row once, rising)")
        last = max(last, event.delivery_seq)


def _check_audit(report, client: Client, sid: str) -> None:
    seen: set = set()
    for row in client.all_audit(sid):
        record = row.get("record_id")
        why = _problem("AuditableCall", row)
        report.check("ledger", not why, f"{sid} audit row {record}{why}")
        report.check("ledger", record not in seen, f"{sid} audit row {record} listed twice")
        seen.add(record)


def _check_checkpoints(report, client: Client, sid: str) -> None:
    seen: set = set()
    for summary in client.all_checkpoints(sid):
        cid = summary.get("checkpointId")
        why = _problem("CheckpointSummary", summary)
        report.check("checkpoints", not why, f"{sid} checkpoint summary {cid}{why}")
        report.check("checkpoints", cid not in seen, f"{sid} checkpoint {cid} listed twice")
        seen.add(cid)
    for cid in list(seen)[:50]:
        envelope = client.get_checkpoint(sid, cid)
        why = _problem("Checkpoint", envelope)
        report.check("checkpoints", not why, f"{sid} checkpoint {cid}{why}")
        report.check("checkpoints", envelope.get("id") == cid and envelope.get("sessionId") == sid,
                     f"{sid} checkpoint {cid}: served as {envelope.get('sessionId')}/{envelope.get('id')}")
