"""Checkpoints: the SessionState a checkpoint hydrates to, delta chains, and the saver tables in SQL.

Follows docs/checkpoints.md (channel kinds, reserved channels) and docs/checkpoint-storage.md (the
three tables, the delta operations, the recursive chain query, the writer's invariants).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping

from . import strictjson
from .canonical import canonical_json, fingerprint
from .errors import MAX_SAFE_INTEGER
from .snapshots import CheckpointError, check_channel, check_checkpoint, check_stored, is_version, utf16_key

__all__ = ["CheckpointError", "CheckpointTables", "apply_delta", "compute_delta", "fingerprint_checkpoint",
           "hydrate_chain", "next_snapshot", "session_state_of"]

STAGES = ("anchor-plan", "tool-loop", "synthesize", "post-turn")
RESERVED = (("conversation", "conversation", list), ("plan", "plan", list), ("versionVector", "versionVector", dict))


_EMPTY = object()


def channel_value(snapshot: Mapping[str, Any] | None) -> Any:
    """What the channel's get() returns; _EMPTY where get() would report empty_channel."""
    if snapshot is None:
        return _EMPTY
    kind, value = snapshot["kind"], snapshot["value"]
    if kind in ("last_value", "ephemeral_value"):
        return value["value"] if "value" in value else _EMPTY
    if kind == "binary_op_aggregate":
        return value["value"]
    if kind == "topic":
        return value["items"] if value["items"] else _EMPTY
    if kind == "named_barrier":
        # Ready once every name has written; the names sorted as JavaScript sorts (UTF-16 code units), which
        # is also how a snapshot stores them (snapshots.py refuses other orders).
        ready = set(value["names"]) <= set(value["seen"])
        return sorted(set(value["names"]), key=utf16_key) if ready else _EMPTY
    if kind == "data_channel":
        return {k: v for k, v in value["entries"]}
    raise CheckpointError("unknown_channel_kind", f"channel kind {kind!r}")


def session_state_of(checkpoint: Mapping[str, Any]) -> dict:
    """{conversation, plan, versionVector, channels}: the typed fields read from the reserved channels."""
    channels = checkpoint["channels"]
    state: dict[str, Any] = {}
    for field, channel, default in RESERVED:
        value = channel_value(channels.get(channel))
        state[field] = default() if value is _EMPTY else value
    state["channels"] = channels
    return state


def fingerprint_checkpoint(checkpoint: Mapping[str, Any]) -> str:
    return fingerprint(session_state_of(checkpoint))


def next_snapshot(parent: Mapping[str, Any] | None, name: str, kind: str, value: Any) -> dict:
    """The channel `name` of a checkpoint after `parent`: its version is the parent's while the kind and
    value are the same, one higher otherwise (1 for a channel the parent does not have)."""
    before = (parent or {}).get("channels", {}).get(name)
    if before is None:
        return {"kind": kind, "version": 1, "value": value}
    same = before["kind"] == kind and canonical_json(before["value"]) == canonical_json(value)
    return {"kind": kind, "version": before["version"] if same else before["version"] + 1, "value": value}


# -- deltas


def _accumulated(snapshot: Mapping[str, Any]) -> list | None:
    """The growing list of an accumulating channel, or None for a channel that does not accumulate."""
    value = snapshot["value"]
    if not isinstance(value, dict):  # a stored row may hold anything: not a list we can grow
        return None
    if snapshot["kind"] == "topic" and value.get("accumulate") is True and isinstance(value.get("items"), list):
        return value["items"]
    if snapshot["kind"] == "binary_op_aggregate" and value.get("reducer") == "append" and isinstance(value.get("value"), list):
        return value["value"]
    return None


def _without_list(snapshot: Mapping[str, Any]) -> dict:
    rest = dict(snapshot["value"])
    rest.pop("items" if snapshot["kind"] == "topic" else "value", None)
    return {"kind": snapshot["kind"], "value": rest}


def compute_delta(parent: Mapping[str, Any], channels: Mapping[str, Any], checkpoint_id: str | None = None) -> dict:
    """The delta operations from the parent's channel map to this one (docs/checkpoint-storage.md, Writing)."""
    delta: dict[str, Any] = {}
    for name, snapshot in channels.items():
        old = parent.get(name)
        if old is None:
            delta[name] = {"op": "put", "snapshot": snapshot}
            continue
        if snapshot["version"] < old["version"]:
            raise CheckpointError("version_regression", f"channel {name} went from {old['version']} to {snapshot['version']}", checkpoint_id)
        if snapshot["version"] == old["version"]:
            if canonical_json(snapshot) != canonical_json(old):
                raise CheckpointError("unversioned_change", f"channel {name} changed at version {snapshot['version']}", checkpoint_id)
            continue
        new_list, old_list = _accumulated(snapshot), _accumulated(old)
        if (
            new_list is not None
            and old_list is not None
            and canonical_json(_without_list(snapshot)) == canonical_json(_without_list(old))
            and len(new_list) >= len(old_list)
            and canonical_json(new_list[: len(old_list)]) == canonical_json(old_list)
        ):
            delta[name] = {"op": "append", "version": snapshot["version"], "items": new_list[len(old_list) :]}
        else:
            delta[name] = {"op": "put", "snapshot": snapshot}
    for name in parent:
        if name not in channels:
            delta[name] = {"op": "drop"}
    return delta


def apply_delta(channels: dict, delta: Mapping[str, Any], checkpoint_id: str | None = None) -> dict:
    """Applies one delta row's operations in place (the loop of checkpoint-storage.md, step 3).

    The row comes from storage, so every operation's shape is checked: a damaged row is corrupt_row naming
    it, never a KeyError or TypeError from deep inside."""
    for name, op in delta.items():
        kind = op.get("op") if isinstance(op, dict) else None
        if kind == "put":
            if "snapshot" not in op:
                raise CheckpointError("corrupt_row", f"delta put of {name} has no snapshot", checkpoint_id)
            _check_snapshot(name, op["snapshot"], checkpoint_id)  # as deeply as put checks it
            channels[name] = copy.deepcopy(op["snapshot"])
        elif kind == "drop":
            channels.pop(name, None)
        elif kind == "append":
            snapshot = channels.get(name)
            items = None if snapshot is None else _accumulated(snapshot)
            if items is None:
                raise CheckpointError("corrupt_row", f"append to {name}, which does not accumulate", checkpoint_id)
            if not isinstance(op.get("items"), list) or not is_version(op.get("version")):
                raise CheckpointError("corrupt_row", f"delta append to {name} is malformed (items, version 0..{MAX_SAFE_INTEGER})", checkpoint_id)
            # A writer refuses version_regression and unversioned_change; a row that has one was not written
            # by a writer keeping the invariants (docs/checkpoint-storage.md, "Writing").
            if op["version"] < snapshot["version"] or (op["version"] == snapshot["version"] and op["items"]):
                raise CheckpointError("corrupt_row", f"delta append to {name} takes its version from {snapshot['version']} to {op['version']}", checkpoint_id)
            items.extend(copy.deepcopy(op["items"]))
            snapshot["version"] = op["version"]
        else:
            raise CheckpointError("corrupt_row", f"unknown delta operation for {name}: {op!r}", checkpoint_id)
    return channels


def _check_snapshot(name: str, snapshot: Any, checkpoint_id: str | None) -> None:
    """A stored channel must be what put accepts (snapshots.check_channel): else corrupt_row naming the row."""
    try:
        check_channel(name, snapshot, checkpoint_id)
    except CheckpointError as error:
        raise CheckpointError("corrupt_row", f"stored channels are invalid ({error})", checkpoint_id) from None


# -- the tables

CHAIN_SQL = """
WITH RECURSIVE chain(lvl, checkpoint_id, parent_checkpoint_id, storage) AS (
  SELECT 0, checkpoint_id, parent_checkpoint_id, storage FROM {t}
   WHERE session_id = {p} AND checkpoint_id = {p}
  UNION ALL
  SELECT chain.lvl + 1, p.checkpoint_id, p.parent_checkpoint_id, p.storage FROM {t} p
    JOIN chain ON p.session_id = {p} AND p.checkpoint_id = chain.parent_checkpoint_id
   WHERE chain.storage = 'delta'
     AND chain.lvl < (SELECT COUNT(*) FROM {t} WHERE session_id = {p})
)
SELECT chain.lvl, t.checkpoint_id, t.session_id, t.namespace, t.parent_checkpoint_id, t.stage_id, t.created_at,
       t.schema_version, t.storage, t.base_distance, t.channels FROM chain
  JOIN {t} t ON t.session_id = {p} AND t.checkpoint_id = chain.checkpoint_id
 ORDER BY chain.lvl
"""
ROW_FIELDS = ("lvl", "checkpoint_id", "session_id", "namespace", "parent_checkpoint_id", "stage_id", "created_at",
              "schema_version", "storage", "base_distance", "channels")


@dataclass(frozen=True)
class Hydrated:
    checkpoint: dict  # the contract envelope
    namespace: str
    storage: str
    base_distance: int


def hydrate_chain(rows: list[Mapping[str, Any]]) -> Hydrated:
    """rows: the chain query's rows, lvl 0 first. The last one must be a full row."""
    if not rows:
        raise CheckpointError("not_found", "no such checkpoint")
    head = rows[0]
    base = rows[-1]
    if base["storage"] != "full":
        raise CheckpointError("corrupt_row", "the delta chain does not reach a full row", base["checkpoint_id"])
    channels = _parse_channels(base)
    for name, snapshot in channels.items():
        _check_snapshot(name, snapshot, base["checkpoint_id"])
    for row in reversed(rows[:-1]):
        apply_delta(channels, _parse_channels(row), row["checkpoint_id"])
    envelope: dict[str, Any] = {
        "id": head["checkpoint_id"],
        "sessionId": head["session_id"],
        "stageId": head["stage_id"],
        "createdAt": head["created_at"],
        "schemaVersion": head["schema_version"],
        "channels": channels,
    }
    if head["parent_checkpoint_id"] is not None:
        envelope["parentCheckpointId"] = head["parent_checkpoint_id"]
    check_stored(envelope, envelope["id"])
    return Hydrated(envelope, head["namespace"], head["storage"], int(head["base_distance"]))


def _parse_channels(row: Mapping[str, Any]) -> dict:
    """The row's channels column; NaN, Infinity and 1e999 are not JSON (agentlane.strictjson): corrupt_row."""
    try:
        value = strictjson.loads(row["channels"])
    except (TypeError, ValueError) as error:
        raise CheckpointError("corrupt_row", f"channels is not JSON: {error}", row["checkpoint_id"]) from None
    except RecursionError:  # json.loads of a value nested past the recursion limit
        raise CheckpointError("corrupt_row", "channels is nested too deeply", row["checkpoint_id"]) from None
    if not isinstance(value, dict):
        raise CheckpointError("corrupt_row", "channels is not an object", row["checkpoint_id"])
    return value


class CheckpointTables:
    """Reads and writes harness_checkpoints with plain SQL, as docs/checkpoint-storage.md lays them out."""

    def __init__(self, db, *, full_snapshot_every: float = 50) -> None:
        self.db = db
        self.full_snapshot_every = full_snapshot_every

    def latest_id(self, session_id: str, namespace: str = "") -> str | None:
        rows = self.db.rows(
            self.db.sql(
                "SELECT checkpoint_id FROM {t:harness_checkpoints} WHERE session_id = {p} AND namespace = {p} "
                "ORDER BY seq DESC LIMIT 1"
            ),
            (session_id, namespace),
        )
        return rows[0]["checkpoint_id"] if rows else None

    def ids(self, session_id: str) -> list[tuple[str, str]]:
        """(namespace, checkpoint_id) of every checkpoint of the session, oldest first."""
        rows = self.db.rows(
            self.db.sql("SELECT namespace, checkpoint_id FROM {t:harness_checkpoints} WHERE session_id = {p} ORDER BY seq"),
            (session_id,),
        )
        return [(r["namespace"], r["checkpoint_id"]) for r in rows]

    def hydrate(self, session_id: str, checkpoint_id: str) -> Hydrated | None:
        sql = CHAIN_SQL.format(t=self.db.table("harness_checkpoints"), p=self.db.placeholder)
        rows = self.db.rows(sql, (session_id, checkpoint_id, session_id, session_id, session_id))
        return hydrate_chain(rows) if rows else None

    def get(self, session_id: str, checkpoint_id: str) -> dict | None:
        hydrated = self.hydrate(session_id, checkpoint_id)
        return None if hydrated is None else hydrated.checkpoint

    def latest(self, session_id: str, namespace: str = "") -> dict | None:
        latest = self.latest_id(session_id, namespace)
        return None if latest is None else self.get(session_id, latest)

    def pending_writes(self, session_id: str, checkpoint_id: str) -> list[dict]:
        return self.db.rows(
            self.db.sql(
                "SELECT task_id, idx, channel, value FROM {t:harness_checkpoint_writes} "
                "WHERE session_id = {p} AND checkpoint_id = {p} ORDER BY seq"
            ),
            (session_id, checkpoint_id),
        )

    def put(self, checkpoint: Mapping[str, Any], *, namespace: str = "") -> str:
        """Stores a checkpoint after its parent, full or as a delta; returns the storage chosen."""
        check_checkpoint(checkpoint)  # what a reader would call corrupt is refused here, with the docs' codes
        session_id, checkpoint_id = checkpoint["sessionId"], checkpoint["id"]
        parent_id = checkpoint.get("parentCheckpointId")
        table = self.db.table("harness_checkpoints")
        with self.db.transaction():
            if self.db.rows(
                self.db.sql("SELECT 1 AS x FROM {t:harness_checkpoints} WHERE session_id = {p} AND checkpoint_id = {p}"),
                (session_id, checkpoint_id),
            ):
                raise CheckpointError("duplicate_checkpoint", f"{checkpoint_id} exists", checkpoint_id)
            storage, distance, text = "full", 0, canonical_json(checkpoint["channels"])
            if parent_id is not None:
                lock = " FOR KEY SHARE" if self.db.placeholder == "%s" else ""
                found = self.db.rows(
                    self.db.sql(
                        "SELECT base_distance FROM {t:harness_checkpoints} WHERE session_id = {p} AND checkpoint_id = {p} "
                        "AND namespace = {p}"
                    )
                    + lock,
                    (session_id, parent_id, namespace),
                )
                if not found:
                    raise CheckpointError("missing_parent", f"parent {parent_id} is not in namespace {namespace!r}", checkpoint_id)
                parent = self.hydrate(session_id, parent_id)
                assert parent is not None
                delta = compute_delta(parent.checkpoint["channels"], checkpoint["channels"], checkpoint_id)
                distance = int(found[0]["base_distance"]) + 1
                if distance < self.full_snapshot_every:
                    storage, text = "delta", canonical_json(delta)
                else:
                    distance = 0
            self.db.execute(
                f"INSERT INTO {table} (session_id, checkpoint_id, namespace, parent_checkpoint_id, stage_id, created_at, "
                "schema_version, storage, base_distance, channels) VALUES "
                f"({', '.join([self.db.placeholder] * 10)})",
                (session_id, checkpoint_id, namespace, parent_id, checkpoint["stageId"], checkpoint["createdAt"],
                 checkpoint["schemaVersion"], storage, distance, text),
            )
        return storage
