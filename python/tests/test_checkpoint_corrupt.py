"""Damaged checkpoint rows are refused as corrupt_row naming the row, never returned or raised as KeyError/TypeError.

The rows are what the chain query returns (lvl 0 = the asked-for checkpoint, the last one full), built here by
hand so each test breaks exactly one thing.
"""

from __future__ import annotations

import json

import pytest

from agentlane.checkpoints import CheckpointError, hydrate_chain

BASE, HEAD = "01M97BJ393JCHRYWY08RM3ZD53", "01M97BJ3J9QSV6XF6Q2HE7J82E"
CONVERSATION = {"kind": "topic", "version": 1, "value": {"accumulate": True, "items": [{"role": "user"}]}}


def _row(lvl: int, checkpoint_id: str, storage: str, channels, **overrides) -> dict:
    row = {
        "lvl": lvl, "checkpoint_id": checkpoint_id, "session_id": "s1", "namespace": "",
        "parent_checkpoint_id": BASE if checkpoint_id == HEAD else None, "stage_id": "post-turn",
        "created_at": "2026-01-01T00:00:00.000Z", "schema_version": 1, "storage": storage,
        "base_distance": 1 if storage == "delta" else 0,
        "channels": channels if isinstance(channels, str) else json.dumps(channels),
    }
    row.update(overrides)
    return row


def _chain(delta, **head) -> list[dict]:
    return [_row(0, HEAD, "delta", delta, **head), _row(1, BASE, "full", {"conversation": CONVERSATION})]


def _refused(rows: list[dict], at: str) -> CheckpointError:
    with pytest.raises(CheckpointError) as caught:
        hydrate_chain(rows)
    assert caught.value.code == "corrupt_row" and caught.value.checkpoint_id == at, caught.value
    return caught.value


def test_a_sound_chain_hydrates() -> None:
    append = {"conversation": {"op": "append", "version": 2, "items": [{"role": "assistant"}]}}
    checkpoint = hydrate_chain(_chain(append)).checkpoint
    assert checkpoint["channels"]["conversation"]["value"]["items"] == [{"role": "user"}, {"role": "assistant"}]
    assert checkpoint["parentCheckpointId"] == BASE


def test_delta_put_without_snapshot() -> None:
    _refused(_chain({"conversation": {"op": "put"}}), HEAD)  # was KeyError: 'snapshot'


def test_delta_put_of_a_non_snapshot() -> None:
    _refused(_chain({"conversation": {"op": "put", "snapshot": {"kind": "nope", "version": 1, "value": 1}}}), HEAD)


@pytest.mark.parametrize("op", [
    {"op": "append", "version": 2, "items": 5},  # was TypeError: 'int' object is not iterable
    {"op": "append", "version": "2", "items": []},
    {"op": "append", "items": []},
])
def test_malformed_delta_append(op) -> None:
    _refused(_chain({"conversation": op}), HEAD)


@pytest.mark.parametrize("channel", [5, {"kind": "nope", "version": 1, "value": 1}, {"kind": "topic", "value": {}},
                                     {"kind": "topic", "version": 1, "value": {}, "extra": 1}])
def test_full_row_channel_that_is_not_a_snapshot(channel) -> None:
    rows = [_row(0, BASE, "full", {"conversation": channel})]
    assert 'channel "conversation"' in str(_refused(rows, BASE))


@pytest.mark.parametrize("column, value", [("stage_id", "bogus-stage"), ("created_at", "yesterday"),
                                           ("schema_version", 0), ("schema_version", "one"),
                                           ("session_id", ""), ("parent_checkpoint_id", "not-a-ulid")])
def test_envelope_columns_break_the_contract(column, value) -> None:
    _refused(_chain({}, **{column: value}), HEAD)


def test_append_on_a_base_whose_value_is_not_an_object() -> None:
    # The full row is the one at fault (a topic's value is an object), so it is the row named.
    rows = [_row(0, HEAD, "delta", {"conversation": {"op": "append", "version": 2, "items": [1]}}),
            _row(1, BASE, "full", {"conversation": {"kind": "topic", "version": 1, "value": [1]}})]
    _refused(rows, BASE)


def test_a_newer_envelope_version_is_returned_as_stored() -> None:
    # The bundle's Checkpoint.schemaVersion has a minimum and no maximum, and the checkpoint docs set no cap
    # (docs/contract.md "reject newer" is the events' schemaVersion): same as the TypeScript saver.
    assert hydrate_chain(_chain({}, schema_version=2)).checkpoint["schemaVersion"] == 2


def test_a_huge_bad_value_gives_a_bounded_message() -> None:
    # jsonschema quotes the instance whole: a 50 MB channel value made a 50 MB error line (probe).
    rows = [_row(0, BASE, "full", {"x": "A" * 5_000_000})]
    error = _refused(rows, BASE)
    assert len(str(error)) < 1000


def test_a_row_nested_past_the_recursion_limit_is_corrupt_not_a_recursion_error() -> None:
    deep = '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    _refused([_row(0, BASE, "full", deep)], BASE)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_a_number_json_cannot_hold_is_corrupt(text) -> None:
    # json.loads takes all five (NaN, inf); JSON.parse refuses the first three, and none can be written again.
    append = '{"conversation": {"op": "append", "version": 2, "items": [%s]}}' % text
    _refused(_chain(append), HEAD)
    full = '{"conversation": {"kind": "last_value", "version": 1, "value": {"value": %s}}}' % text
    _refused([_row(0, BASE, "full", full)], BASE)


@pytest.mark.parametrize("version", [0, 1, 2**53])
def test_an_append_whose_version_goes_down_or_past_2_53_is_corrupt(version) -> None:
    # The base's conversation is at version 1: an append to 0 is a regression a writer refuses, one at 1 with
    # items an unversioned change, and 2^53 a number JavaScript cannot count to.
    _refused(_chain({"conversation": {"op": "append", "version": version, "items": [{"role": "assistant"}]}}), HEAD)


def test_a_delta_put_is_checked_as_deeply_as_put() -> None:
    bad_topic = {"kind": "topic", "version": 2, "value": {"accumulate": True, "items": 5}}
    _refused(_chain({"conversation": {"op": "put", "snapshot": bad_topic}}), HEAD)
    extra = {"kind": "last_value", "version": 2, "value": {"value": 1, "junk": 2}}
    _refused(_chain({"conversation": {"op": "put", "snapshot": extra}}), HEAD)


def test_a_schema_version_past_2_53_is_corrupt() -> None:
    _refused(_chain({}, schema_version=2**53), HEAD)
