"""Checkpoints across runtimes: the TypeScript saver writes, Python hydrates with plain SQL, and the reverse."""

from __future__ import annotations

import json

import pytest

from agentlane.canonical import canonical_json
from agentlane.checkpoints import CheckpointError, CheckpointTables, fingerprint_checkpoint, session_state_of
from agentlane.sql import open_database
from conftest import corpus_turns, ts_oracle

FULL_EVERY = 3  # small, so the corpus chains hold full rows and deltas on both sides


def ts(*requests: dict) -> list:
    """The TypeScript savers (tests/ts/checkpoints.mjs, in the session's oracle process): one answer per request."""
    answers = ts_oracle([["saver", r] for r in requests])
    errors = [a["error"] for a in answers if isinstance(a, dict) and "error" in a]
    assert not errors, errors
    return answers


def corpus_checkpoints() -> list[dict]:
    return [c for turn in corpus_turns() for c in turn["checkpoints"]]


def test_corpus_session_states_and_fingerprints() -> None:
    for turn in corpus_turns():
        mine = [c for c in turn["checkpoints"] if c["sessionId"] == turn["input"]["threadId"]]
        state = session_state_of(mine[-1])
        assert canonical_json(state) == canonical_json(turn["sessionState"]), turn["name"]
        assert fingerprint_checkpoint(mine[-1]) == turn["fingerprint"]


def _check_both_ways(db_url: str, schema: str | None) -> str:
    checkpoints = corpus_checkpoints()
    refs = [[c["sessionId"], c["id"]] for c in checkpoints]
    # TypeScript writes, Python reads.
    ts_db = db_url if schema else db_url + ".ts.db"
    py_schema = f"{schema}_py" if schema else None
    py_db = db_url if schema else db_url + ".py.db"
    stored, ts_read, _ = ts(
        {"op": "put", "db": ts_db, "schema": schema, "fullEvery": FULL_EVERY, "items": [{"checkpoint": c} for c in checkpoints]},
        {"op": "read", "db": ts_db, "schema": schema, "refs": refs},
        {"op": "read", "db": py_db, "schema": py_schema, "refs": []},  # creates the empty tables Python fills below
    )
    assert {s["storage"] for s in stored} == {"full", "delta"}
    tables = CheckpointTables(open_database(ts_db, schema=schema or "public"), full_snapshot_every=FULL_EVERY)
    for checkpoint, theirs in zip(checkpoints, ts_read):
        mine = tables.get(checkpoint["sessionId"], checkpoint["id"])
        assert canonical_json(mine) == theirs["canonical"] == canonical_json(checkpoint)
        assert fingerprint_checkpoint(mine) == theirs["fingerprint"]
    ts_columns = tables.db.rows(tables.db.sql("SELECT checkpoint_id, storage, channels FROM {t:harness_checkpoints} ORDER BY seq"))
    tables.db.close()

    # Python writes (into tables the TypeScript saver created), TypeScript reads.
    tables = CheckpointTables(open_database(py_db, schema=py_schema or "public"), full_snapshot_every=FULL_EVERY)
    storages = [tables.put(c) for c in checkpoints]
    assert storages == [s["storage"] for s in stored]
    py_columns = tables.db.rows(tables.db.sql("SELECT checkpoint_id, storage, channels FROM {t:harness_checkpoints} ORDER BY seq"))
    tables.db.close()
    # The same rows as the TypeScript saver wrote (the column text may differ in key order only).
    assert [(r["checkpoint_id"], r["storage"], json.loads(r["channels"])) for r in py_columns] == [
        (r["checkpoint_id"], r["storage"], json.loads(r["channels"])) for r in ts_columns
    ]
    (read_back,) = ts({"op": "read", "db": py_db, "schema": py_schema, "refs": refs})
    assert read_back == ts_read
    return py_db


def test_sqlite_both_ways_and_refusals(tmp_path) -> None:
    py_db = _check_both_ways(str(tmp_path / "checkpoints"), None)
    _check_refusals(CheckpointTables(open_database(py_db)))


def test_postgres_both_ways(pg_schema) -> None:
    url, schema = pg_schema
    _check_both_ways(url, schema)


def test_live_session_of_the_typescript_engine(client, server) -> None:
    sid = client.create_session("builtin")["id"]
    for prompt in ("first turn", "second turn"):
        list(client.execute(sid, prompt))
    tables = CheckpointTables(open_database(str(server.db_path)))
    try:
        ids = tables.ids(sid)
        assert len(ids) >= 4
        for namespace, checkpoint_id in ids:
            mine = tables.get(sid, checkpoint_id)
            served = client.get_checkpoint(sid, checkpoint_id)
            assert canonical_json(mine) == canonical_json(served)
            assert fingerprint_checkpoint(mine) == fingerprint_checkpoint(served)
        latest = tables.latest(sid)
        texts = [p["parts"][0]["text"] for p in session_state_of(latest)["conversation"] if p["role"] == "user"]
        assert texts == ["first turn", "second turn"]
    finally:
        tables.db.close()


def _check_refusals(tables: CheckpointTables) -> None:
    base = corpus_checkpoints()[0]
    channels = json.loads(json.dumps(base["channels"]))
    name = next(iter(channels))
    child = {**base, "id": "01KDVDNA7Z0000000000000099", "parentCheckpointId": base["id"], "channels": channels}
    channels[name]["version"] -= 1
    with pytest.raises(CheckpointError) as regression:
        tables.put(child)
    assert regression.value.code == "version_regression"
    channels[name]["version"] += 1
    # A valid snapshot of another kind at the same version (a value not of its kind's shape is refused first,
    # as invalid_channel_value: tests/test_checkpoint_validation.py).
    channels[name] = {"kind": "last_value", "version": channels[name]["version"], "value": {"value": "changed without a new version"}}
    with pytest.raises(CheckpointError) as unversioned:
        tables.put(child)
    assert unversioned.value.code == "unversioned_change"
    with pytest.raises(CheckpointError) as orphan:
        tables.put({**base, "id": "01KDVDNA7Z0000000000000098", "parentCheckpointId": "01KDVDNA7Z0000000000000097"})
    assert orphan.value.code == "missing_parent"
    with pytest.raises(CheckpointError) as duplicate:
        tables.put(base)
    assert duplicate.value.code == "duplicate_checkpoint"
    tables.db.execute(tables.db.sql("DELETE FROM {t:harness_checkpoints} WHERE checkpoint_id = {p}"), (base["id"],))
    second = corpus_checkpoints()[1]
    with pytest.raises(CheckpointError) as broken:
        tables.get(second["sessionId"], second["id"])  # its chain ran through the deleted full row
    assert broken.value.code == "corrupt_row"
    # Parent links that loop (a corrupt or hostile table): refused, not walked forever.
    third = corpus_checkpoints()[2]
    assert third.get("parentCheckpointId") == second["id"]
    tables.db.execute(
        tables.db.sql("UPDATE {t:harness_checkpoints} SET storage = 'delta', parent_checkpoint_id = {p} WHERE checkpoint_id = {p}"),
        (third["id"], second["id"]),
    )
    tables.db.execute(tables.db.sql("UPDATE {t:harness_checkpoints} SET storage = 'delta' WHERE checkpoint_id = {p}"), (third["id"],))
    with pytest.raises(CheckpointError) as loop:
        tables.get(third["sessionId"], third["id"])
    assert loop.value.code == "corrupt_row"
    tables.db.close()


def test_next_snapshot_versions_rise_only_on_change() -> None:
    from agentlane.checkpoints import next_snapshot

    items = {"accumulate": True, "items": [{"id": "t:user", "role": "user", "parts": []}]}
    first = next_snapshot(None, "conversation", "topic", items)
    assert first == {"kind": "topic", "version": 1, "value": items}
    parent = {"channels": {"conversation": first}}
    assert next_snapshot(parent, "conversation", "topic", json.loads(json.dumps(items)))["version"] == 1
    grown = {"accumulate": True, "items": [*items["items"], {"id": "t:a1", "role": "assistant", "parts": []}]}
    assert next_snapshot(parent, "conversation", "topic", grown)["version"] == 2
    # A conversation written as a last_value channel (before the topic form) becomes a topic one version up.
    old = {"channels": {"conversation": {"kind": "last_value", "version": 7, "value": {"value": items["items"]}}}}
    assert session_state_of(old)["conversation"] == items["items"]
    assert next_snapshot(old, "conversation", "topic", items)["version"] == 8
