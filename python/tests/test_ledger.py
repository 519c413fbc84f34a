"""The audit ledger across runtimes: Python appends rows the TypeScript ledger and the server read unchanged."""

from __future__ import annotations

import copy
import sqlite3
import uuid

import pytest

from agentlane.canonical import canonical_json
from agentlane.ids import SequentialIds, ulid
from agentlane.ledger import AuditLedger, LedgerError
from agentlane.sql import open_database
from conftest import corpus_turns, ts_oracle



def test_ids_follow_the_corpus_scheme() -> None:
    turn = next(t for t in corpus_turns() if t["name"] == "plan-write-approval")
    ids = SequentialIds(turn["input"]["ids"]["startMs"])
    assert ids() == turn["ledgerRows"][0]["record_id"] == "01KDVDNA000000000000000000"
    assert ids() == turn["checkpoints"][0]["id"]
    assert len(ulid()) == 26


def python_rows(session_id: str, template: list[dict]) -> list[dict]:
    """A turn of this session written by Python: the corpus rows of one turn, re-keyed."""
    turn_id = f"run_py_{uuid.uuid4().hex[:12]}"
    rows = []
    for row in template:
        row = copy.deepcopy(row)
        row.update(record_id=ulid(), session_id=session_id, turn_id=turn_id)
        rows.append(row)
    return rows


def ts_ledger(**request) -> dict:
    (answer,) = ts_oracle([["ledger", request]])
    assert "error" not in answer, answer
    return answer


def _check_both_ways(db_url: str, schema: str | None, refuse: type[Exception]) -> None:
    turns = [t for t in corpus_turns() if t["ledgerRows"]]
    first, second = turns[0], turns[1]
    sid = first["input"]["threadId"]
    theirs = [r for r in first["ledgerRows"] if r["session_id"] == sid]
    ts_ledger(db=db_url, schema=schema, record=theirs)
    ledger = AuditLedger(open_database(db_url, schema=schema or "public"))
    assert ledger.list(sid) == theirs  # rows the TypeScript ledger wrote, read with plain SQL
    mine = python_rows(sid, second["ledgerRows"])
    assert ledger.record(mine) == len(mine)
    assert ledger.record(mine) == 0  # a retry is a no-op
    retry_new_ids = [{**r, "record_id": ulid()} for r in mine]
    assert ledger.record(retry_new_ids) == 0  # the idempotency key decides, not the record id
    read = ts_ledger(db=db_url, schema=schema, list=sid)["items"]
    assert [canonical_json(r) for r in read] == [canonical_json(r) for r in theirs + mine]
    table = ledger.db.table("harness_auditable_calls")
    for statement in (f"UPDATE {table} SET status = 'error'", f"DELETE FROM {table}"):
        with pytest.raises(refuse):
            ledger.db.execute(statement)
    assert ledger.list(sid) == theirs + mine
    with pytest.raises(LedgerError):
        ledger.record([{**mine[0], "seq_within_turn": -1}])
    ledger.db.close()


def test_sqlite_both_ways(tmp_path) -> None:
    _check_both_ways(str(tmp_path / "ledger.db"), None, sqlite3.IntegrityError)


def test_postgres_both_ways(pg_schema) -> None:
    url, schema = pg_schema
    import psycopg

    _check_both_ways(url, schema, psycopg.Error)


def test_python_rows_read_back_through_the_server(client, server) -> None:
    sid = client.create_session("builtin")["id"]
    list(client.execute(sid, "a turn of the TypeScript engine"))
    ledger = AuditLedger(open_database(str(server.db_path)))
    try:
        served = client.all_audit(sid)
        assert ledger.list(sid) == served and len(served) == 1
        mine = python_rows(sid, next(t for t in corpus_turns() if t["name"] == "multi-step-loop")["ledgerRows"])
        assert ledger.record(mine) == len(mine)
        after = client.all_audit(sid)
        assert after[: len(served)] == served
        assert [canonical_json(r) for r in after[len(served) :]] == [canonical_json(r) for r in mine]
    finally:
        ledger.db.close()


def test_text_a_database_column_cannot_hold(tmp_path) -> None:
    """U+0000 and lone surrogates from a model: the payload is kept exactly, other text columns hold U+FFFD for
    each (as the TypeScript ledger writes them), and a key holding one is refused."""
    db_url = str(tmp_path / "ledger.db")
    turn = next(t for t in corpus_turns() if t["ledgerRows"])
    template = turn["ledgerRows"][0]
    ts_ledger(db=db_url, schema=None, record=[template])  # the TypeScript ledger creates the tables
    ledger = AuditLedger(open_database(db_url))
    try:
        (row,) = python_rows(template["session_id"], [template])
        row.update(model="m\x00x\ud800", finish_reason="stop\x00")
        row["payload"]["request"]["promptPreview"] = "a\x00b\udc00c"
        assert ledger.record([row]) == 1
        expected = {**row, "model": "m\ufffdx\ufffd", "finish_reason": "stop\ufffd"}
        read = ts_ledger(db=db_url, schema=None, list=template["session_id"])["items"]
        assert read[-1] == expected and ledger.list(template["session_id"])[-1] == expected
        with pytest.raises(LedgerError):
            ledger.record([{**row, "turn_id": "t\x00"}])
    finally:
        ledger.db.close()
