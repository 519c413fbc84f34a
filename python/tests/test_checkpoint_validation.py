"""One check of a checkpoint for the writer and the readers (agentlane.snapshots).

A hostile probe stored checkpoints through `CheckpointTables.put` that the TypeScript reader then called
corrupt (a barrier that saw a writer it does not have, a duplicate data key, a channel version JavaScript
cannot count to, …), and put raised OverflowError / RecursionError / CanonicalJsonError for others. Each case
here is refused by put with the docs' code (docs/checkpoints.md, "Errors") and nothing is stored; the same
snapshot in a stored row is corrupt_row for the Python reader, as it is for the TypeScript one.
"""

from __future__ import annotations

import json

import pytest

from agentlane.checkpoints import CheckpointError, CheckpointTables, channel_value, fingerprint_checkpoint, hydrate_chain
from agentlane.sql import open_database
from conftest import ts_oracle

SESSION = "sess-1"
ID, CHILD = "01M97BJ393JCHRYWY08RM3ZD53", "01M97BJ3J9QSV6XF6Q2HE7J82E"
MAX_SAFE = 2**53 - 1


def cp(channels: dict | None = None, **fields) -> dict:
    return {"id": ID, "sessionId": SESSION, "stageId": "post-turn", "createdAt": "2026-01-01T00:00:00Z",
            "schemaVersion": 1, "channels": channels or {}, **fields}


def ch(kind: str, value, version: int = 1) -> dict:
    return {"kind": kind, "version": version, "value": value}


def deep(n: int):
    value = 0
    for _ in range(n):
        value = [value]
    return value


ASTRAL, HALFWIDTH = "\U0001F600", "\uff61"  # UTF-16: D83D DE00 < FF61, though U+1F600 > U+FF61

# (case, checkpoint, the code put refuses it with)
REFUSED = [
    ("barrier-seen-not-in-names", cp({"x": ch("named_barrier", {"names": ["a"], "seen": ["z"]})}), "invalid_channel_value"),
    ("barrier-names-by-code-point", cp({"x": ch("named_barrier", {"names": [HALFWIDTH, ASTRAL], "seen": []})}), "invalid_channel_value"),
    ("barrier-names-repeated", cp({"x": ch("named_barrier", {"names": ["a", "a"], "seen": []})}), "invalid_channel_value"),
    ("data-duplicate-key", cp({"x": ch("data_channel", {"capacity": 4, "entries": [["k", 1], ["k", 2]]})}), "invalid_channel_value"),
    ("data-non-string-key", cp({"x": ch("data_channel", {"capacity": 4, "entries": [[1, 1]]})}), "invalid_channel_value"),
    ("data-over-capacity", cp({"x": ch("data_channel", {"capacity": 1, "entries": [["a", 1], ["b", 2]]})}), "invalid_channel_value"),
    ("last-value-extra-key", cp({"x": ch("last_value", {"value": 1, "junk": 2})}), "invalid_channel_value"),
    ("ephemeral-not-object", cp({"x": ch("ephemeral_value", [])}), "invalid_channel_value"),
    ("unknown-reducer", cp({"x": ch("binary_op_aggregate", {"reducer": "nope", "value": 1})}), "unknown_reducer"),
    ("topic-without-accumulate", cp({"x": ch("topic", {"items": []})}), "invalid_channel_value"),
    ("unknown-kind", cp({"x": ch("bogus", {})}), "unknown_channel_kind"),
    ("channel-name-empty", cp({"": ch("last_value", {})}), "invalid_checkpoint"),
    ("channel-name-__proto__", cp({"__proto__": ch("last_value", {})}), "invalid_checkpoint"),  # TS cannot keep it
    ("channel-name-257", cp({"c" * 257: ch("last_value", {})}), "invalid_checkpoint"),
    ("channel-name-257-utf16", cp({"c" * 255 + ASTRAL: ch("last_value", {})}), "invalid_checkpoint"),
    ("session-id-space", cp(sessionId="a b"), "invalid_checkpoint"),
    ("session-id-non-ascii", cp(sessionId="\u00e9"), "invalid_checkpoint"),
    ("session-id-129", cp(sessionId="s" * 129), "invalid_checkpoint"),
    ("session-id-newline", cp(sessionId="s\n"), "invalid_checkpoint"),
    ("version-2^53", cp({"x": ch("last_value", {}, MAX_SAFE + 1)}), "invalid_checkpoint"),
    ("depth-513", cp({"x": ch("last_value", {"value": deep(513)})}), "invalid_channel_value"),
    ("topic-depth-513", cp({"x": ch("topic", {"accumulate": True, "items": [deep(512)]})}), "invalid_channel_value"),
    ("depth-950", cp({"x": ch("last_value", {"value": deep(950)})}), "invalid_channel_value"),
    ("depth-3000", cp({"x": ch("last_value", {"value": deep(3000)})}), "invalid_channel_value"),  # was RecursionError
    ("schema-version-2^64", cp(schemaVersion=2**64), "invalid_checkpoint"),  # was OverflowError from SQLite
    ("schema-version-2^53", cp(schemaVersion=MAX_SAFE + 1), "invalid_checkpoint"),
    ("lone-surrogate", cp({"x": ch("last_value", {"value": ["\ud800"]})}), "invalid_channel_value"),  # was CanonicalJsonError
    ("nan", cp({"x": ch("last_value", {"value": float("nan")})}), "invalid_channel_value"),
    ("created-at-newline", cp(createdAt="2026-01-01T00:00:00Z\n"), "invalid_checkpoint"),
    ("id-newline", cp(id=ID + "\n"), "invalid_checkpoint"),
]

# Stored and read back the same by both runtimes: the edges of the rules above.
ACCEPTED = [
    ("depth-512", cp({"x": ch("last_value", {"value": deep(512)})})),
    ("topic-depth-512", cp({"x": ch("topic", {"accumulate": True, "items": [deep(511)]})})),
    ("channel-name-256", cp({"c" * 255 + "d": ch("last_value", {})})),
    ("channel-name-256-utf16", cp({"c" * 254 + ASTRAL: ch("last_value", {})})),
    ("session-id-128", cp(sessionId="a.b:c-d_e" + "s" * 119)),
    ("version-max-safe", cp({"x": ch("last_value", {}, MAX_SAFE)})),
    ("barrier-utf16-order", cp({"plan": ch("named_barrier", {"names": [ASTRAL, HALFWIDTH], "seen": [ASTRAL, HALFWIDTH]})})),
    ("year-0000", cp(createdAt="0000-02-29T00:00:00Z")),
    ("leap-second", cp(createdAt="2016-12-31T23:59:60Z")),
]


@pytest.fixture()
def tables(tmp_path):
    path = str(tmp_path / "checkpoints.db")
    ts_oracle([["saver", {"op": "read", "db": path, "refs": []}]])  # the TypeScript saver creates the tables
    tables = CheckpointTables(open_database(path))
    yield tables
    tables.db.close()


@pytest.mark.parametrize("case, checkpoint, code", REFUSED, ids=[c[0] for c in REFUSED])
def test_put_refuses_what_a_reader_calls_corrupt(tables, case, checkpoint, code) -> None:
    with pytest.raises(CheckpointError) as caught:
        tables.put(checkpoint)
    assert caught.value.code == code, caught.value
    assert len(str(caught.value)) < 400
    assert tables.db.rows(tables.db.sql("SELECT checkpoint_id FROM {t:harness_checkpoints}")) == []


def _text(value) -> str:
    """json.dumps (NaN written as NaN, as a damaged row may hold it), without recursing into a deep value."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        depth, inner = 0, value
        while isinstance(inner, list) and len(inner) == 1:
            depth, inner = depth + 1, inner[0]
        return "[" * depth + _text(inner) + "]" * depth
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_text(v) for v in value) + "]"
    return json.dumps(value, allow_nan=True)


@pytest.mark.parametrize("case, checkpoint, code", REFUSED, ids=[c[0] for c in REFUSED])
def test_the_same_snapshot_in_a_stored_row_is_corrupt(case, checkpoint, code) -> None:
    channels = checkpoint["channels"]
    if not channels:
        pytest.skip("an envelope field, not a channel (tests/test_checkpoint_corrupt.py has the columns)")
    text = _text(channels)
    row = {"lvl": 0, "checkpoint_id": ID, "session_id": SESSION, "namespace": "", "parent_checkpoint_id": None,
           "stage_id": "post-turn", "created_at": "2026-01-01T00:00:00Z", "schema_version": 1, "storage": "full",
           "base_distance": 0, "channels": text}
    with pytest.raises(CheckpointError) as caught:
        hydrate_chain([row])
    assert caught.value.code == "corrupt_row" and caught.value.checkpoint_id == ID, caught.value


@pytest.mark.parametrize("case, checkpoint", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_the_edges_are_stored_and_read_alike(tables, tmp_path, case, checkpoint) -> None:
    assert tables.put(checkpoint) == "full"
    mine = tables.get(checkpoint["sessionId"], checkpoint["id"])
    assert mine == checkpoint
    (theirs,) = ts_oracle([["saver", {"op": "read", "db": str(tmp_path / "checkpoints.db"),
                                      "refs": [[checkpoint["sessionId"], checkpoint["id"]]]}]])
    assert theirs[0]["fingerprint"] == fingerprint_checkpoint(mine)


def test_a_ready_barrier_gives_its_names_in_utf16_order() -> None:
    # Python's sorted() puts U+FF61 before U+1F600 (code points); JavaScript's sort the other way round.
    ready = ch("named_barrier", {"names": [ASTRAL, HALFWIDTH], "seen": [ASTRAL, HALFWIDTH]})
    assert channel_value(ready) == [ASTRAL, HALFWIDTH]
    assert channel_value(ch("named_barrier", {"names": [HALFWIDTH, ASTRAL], "seen": [ASTRAL, HALFWIDTH]})) == [ASTRAL, HALFWIDTH]


def test_a_delta_put_is_checked_as_deeply_as_put(tables) -> None:
    base = cp({"conversation": ch("topic", {"accumulate": True, "items": [1]})})
    tables.put(base)
    child = cp({"conversation": ch("last_value", {"value": 1, "junk": 2}, 2)}, id=CHILD, parentCheckpointId=ID)
    with pytest.raises(CheckpointError) as caught:
        tables.put(child)
    assert caught.value.code == "invalid_channel_value"
