"""The server checks of the conformance report fail a server that breaks the wire contract, and stop on a loop."""

from __future__ import annotations

import copy

import pytest

from agentlane.client import Client, PagingError, _every_page
from agentlane.conformance import Report
from agentlane.conformance_server import _check_audit, _check_checkpoints, _check_sessions, _check_stream
from conftest import corpus_turns
from fake_stream import OPENED, FakeStreamServer, delivered, sse, stream


class _Served:
    """A stand-in for Client with canned listings."""

    def __init__(self, calls=(), checkpoints=()) -> None:
        self.calls, self.checkpoints = list(calls), {c["id"]: c for c in checkpoints}
        self.served_as: dict = {}

    def all_audit(self, sid):
        return self.calls

    def all_checkpoints(self, sid):
        return [{"checkpointId": cid, "sessionId": sid, "stageId": c["stageId"], "createdAt": c["createdAt"],
                 "namespace": "", "storage": "full",
                 "schemaVersion": c["schemaVersion"], "parentCheckpointId": c.get("parentCheckpointId"), "bytes": 1,
                 "pinned": False} for cid, c in self.checkpoints.items()]

    def get_checkpoint(self, sid, cid):
        return {**self.checkpoints[cid], **self.served_as}


def _failures(check, *args) -> list[str]:
    report = Report()
    check(report, *args)
    return [m for messages in report.failed.values() for m in messages]


def test_a_session_view_with_an_unknown_field_or_without_created_at_fails(client) -> None:
    sid = client.create_session("builtin")["id"]
    good = next(s for s in client.list_sessions(limit=50)["sessions"] if s["id"] == sid)
    assert _failures(_check_sessions, [good]) == []
    extra, missing = {**good, "bogus": True}, {k: v for k, v in good.items() if k != "createdAt"}
    assert _failures(_check_sessions, [extra]) and _failures(_check_sessions, [missing])


def test_audit_rows_listed_twice_fail() -> None:
    rows = corpus_turns()[0]["ledgerRows"]
    sid = rows[0]["session_id"]
    assert _failures(_check_audit, _Served(calls=rows), sid) == []
    assert any("listed twice" in m for m in _failures(_check_audit, _Served(calls=rows + rows), sid))


def test_a_checkpoint_served_for_another_session_fails() -> None:
    checkpoint = corpus_turns()[0]["checkpoints"][-1]
    sid = checkpoint["sessionId"]
    served = _Served(checkpoints=[checkpoint])
    failures = _failures(_check_checkpoints, served, sid)
    assert not [m for m in failures if "served as" in m], failures
    served.served_as = {"sessionId": "someone-else"}
    assert any("served as someone-else" in m for m in _failures(_check_checkpoints, served, sid))


@pytest.fixture(scope="module")
def streams():
    rows = [sse(delivered(n), n) for n in (1, 2, 3)]
    opened = {**OPENED, "headDeliverySeq": 3}
    server = FakeStreamServer({
        "good": [stream(sse(opened), *rows)],
        "twice": [stream(sse(opened), rows[0], rows[1], rows[1], rows[2])],
        "back": [stream(sse(opened), rows[1], rows[0], rows[2])],
    })
    yield server
    server.close()


@pytest.mark.parametrize("mode, broken", [("good", False), ("twice", True), ("back", True)])
def test_delivery_seq_must_rise_once_per_row(streams, mode, broken) -> None:
    failures = _failures(_check_stream, Client(streams.url), mode)
    assert bool([m for m in failures if "deliverySeq" in m]) == broken, failures


def test_paging_stops_on_a_repeated_cursor() -> None:
    pages = iter([{"calls": [1], "nextCursor": "a"}, {"calls": [2], "nextCursor": "b"}, {"calls": [3], "nextCursor": "a"}])
    with pytest.raises(PagingError, match="repeated the cursor 'a'"):
        _every_page(lambda cursor: next(pages), "calls")
    assert _every_page(lambda cursor: {"calls": [cursor], "nextCursor": None if cursor == "z" else "z"}, "calls") == [None, "z"]
