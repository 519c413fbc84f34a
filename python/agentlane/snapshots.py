"""What a checkpoint must be to be stored or read: one check that `put` and the readers share.

The bundle's `Checkpoint` leaves a channel's `value` open ("its shape depends on kind"); docs/checkpoints.md
gives each kind's snapshot value, and a TypeScript reader calls anything else corrupt. So a Python writer
must refuse what a reader would refuse, with the docs' codes (docs/checkpoints.md, "Errors"):

- `invalid_checkpoint`: the envelope breaks the bundle; a `sessionId` that is not an id string
  (`[A-Za-z0-9._:-]`, 1 to 128 characters); a channel name of 0 or more than 256 UTF-16 code units; a
  channel `version` or `schemaVersion` past 2^53 − 1 (JavaScript reads it as another number, and SQLite's
  INTEGER ends at 2^63 − 1).
- `unknown_channel_kind`: a kind outside the six.
- `invalid_channel_value`: a value not of its kind's shape (below), or not JSON: NaN or ±Infinity, a lone
  surrogate (no canonical JSON, so no fingerprint), a key that is not a string, or nested more than
  `MAX_VALUE_DEPTH` arrays/objects deep (the TypeScript saver's limit, found by running it).
- `unknown_reducer`: a `binary_op_aggregate` reducer this runtime does not have (`REDUCERS`).

A reader reports the same faults as `corrupt_row` naming the row (agentlane.checkpoints).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping

from .errors import MAX_SAFE_INTEGER

KINDS = ("last_value", "binary_op_aggregate", "topic", "ephemeral_value", "named_barrier", "data_channel")
REDUCERS = {"append", "merge", "sum", "max", "min", "vector_merge"}  # docs/checkpoints.md, "Reducers"
MAX_VALUE_DEPTH = 512  # arrays/objects around a channel's payload; 513 is refused by the TypeScript saver
MAX_CHANNEL_NAME = 256  # UTF-16 code units
SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


class CheckpointError(ValueError):
    """A refusal with the docs' codes: corrupt_row, missing_parent, version_regression, unversioned_change, …"""

    def __init__(self, code: str, message: str, checkpoint_id: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.checkpoint_id = code, checkpoint_id


def utf16_key(text: str) -> bytes:
    """Sort key of JavaScript's default string order (UTF-16 code units): "😀" < "｡", unlike code points."""
    return text.encode("utf-16-be", "surrogatepass")


def utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def is_version(value: Any) -> bool:
    """An integer 0..2^53−1 (1.0 is 1: JSON does not tell them apart)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return False
    return 0 <= value <= MAX_SAFE_INTEGER


def json_fault(value: Any, max_depth: int) -> str | None:
    """Why value is not JSON a reader can take, or None. Iterative: a hostile depth is no RecursionError."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth + 1 > max_depth:
                return f"is nested more than {max_depth} deep"
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return f"has a key that is not a string ({key!r:.40})"
                    if _lone_surrogate(key):
                        return "has a lone surrogate in a key"
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            if _lone_surrogate(item):
                return "has a lone surrogate in a string"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"has the number {item}, which JSON cannot hold"
        elif item is not None and not isinstance(item, (bool, int)):
            return f"holds a {type(item).__name__}, which is not JSON"
    return None


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _only(value: dict, kind: str, allowed: tuple[str, ...]) -> None:
    extra = sorted(set(value) - set(allowed))
    if extra:
        raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value may only have {' and '.join(map(repr, allowed))}")


class _ChannelFault(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _payload(kind: str, what: str, value: Any) -> None:
    fault = json_fault(value, MAX_VALUE_DEPTH)
    if fault is not None:
        raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value: {what} {fault}")


def _check_value(kind: str, value: Any) -> None:
    """The kind's snapshot value (docs/checkpoints.md, "Channels"), or _ChannelFault."""
    if not isinstance(value, dict):
        raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value must be an object")
    if kind in ("last_value", "ephemeral_value"):
        _only(value, kind, ("value",))
        if "value" in value:
            _payload(kind, "value", value["value"])
    elif kind == "binary_op_aggregate":
        _only(value, kind, ("reducer", "value"))
        if not isinstance(value.get("reducer"), str):
            raise _ChannelFault("invalid_channel_value", f'{kind} snapshot value needs a string "reducer"')
        if "value" not in value:
            raise _ChannelFault("invalid_channel_value", f'{kind} snapshot value needs a JSON "value"')
        _payload(kind, "value", value["value"])
        if value["reducer"] not in REDUCERS:
            raise _ChannelFault("unknown_reducer", f"no reducer named {value['reducer'][:40]!r} is registered")
    elif kind == "topic":
        _only(value, kind, ("accumulate", "items"))
        if not isinstance(value.get("accumulate"), bool):
            raise _ChannelFault("invalid_channel_value", f'{kind} snapshot value needs a boolean "accumulate"')
        if not isinstance(value.get("items"), list):
            raise _ChannelFault("invalid_channel_value", f'{kind} snapshot value needs a JSON array "items"')
        _payload(kind, "items", value["items"])
    elif kind == "named_barrier":
        _only(value, kind, ("names", "seen"))
        names, seen = value.get("names"), value.get("seen")
        if not all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in (names, seen)):
            raise _ChannelFault("invalid_channel_value", f'{kind} snapshot value needs string arrays "names" and "seen"')
        for field, items in (("names", names), ("seen", seen)):
            if json_fault(items, 1) is not None:
                raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value: {field} {json_fault(items, 1)}")
            keys = [utf16_key(s) for s in items]
            if any(a >= b for a, b in zip(keys, keys[1:])):
                raise _ChannelFault("invalid_channel_value",
                                    f"{kind} snapshot value: {field} must be sorted (UTF-16 code units) without repeats")
        missing = sorted(set(seen) - set(names))
        if missing:
            raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value has {missing[0][:40]!r} in seen but not in names")
    elif kind == "data_channel":
        _only(value, kind, ("capacity", "entries"))
        capacity = value.get("capacity")
        if not is_version(capacity) or capacity < 1:
            raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value needs an integer capacity >= 1")
        entries = value.get("entries")
        if not isinstance(entries, list):
            raise _ChannelFault("invalid_channel_value", f'{kind} snapshot value needs an "entries" array')
        keys = set()
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
                raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value entries must be [string, JSON] pairs")
            if entry[0] in keys:
                raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value has a duplicate key")
            keys.add(entry[0])
            if _lone_surrogate(entry[0]):
                raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value has a lone surrogate in a key")
            _payload(kind, "an entry's value", entry[1])
        if len(entries) > capacity:
            raise _ChannelFault("invalid_channel_value", f"{kind} snapshot value holds more entries than its capacity")


def check_channel(name: Any, snapshot: Any, checkpoint_id: str | None = None) -> None:
    """One channel of a checkpoint: its name, and a ChannelSnapshot whose value is of its kind's shape."""
    shown = json.dumps(name[:40]) if isinstance(name, str) else repr(name)  # "name", as the TypeScript saver shows it
    if not isinstance(name, str) or not 1 <= utf16_length(name) <= MAX_CHANNEL_NAME or _lone_surrogate(name):
        raise CheckpointError("invalid_checkpoint", f"channel name {shown}: a name is 1-{MAX_CHANNEL_NAME} characters", checkpoint_id)
    if name == "__proto__":
        # JavaScript objects reserve it: a runtime written in JavaScript could not keep such a channel.
        raise CheckpointError("invalid_checkpoint", f"channel name {shown} is reserved (not a channel name)", checkpoint_id)
    if not isinstance(snapshot, dict) or set(snapshot) != {"kind", "version", "value"}:
        raise CheckpointError("invalid_checkpoint", f"channel {shown} is not a ChannelSnapshot {{kind, version, value}}", checkpoint_id)
    kind = snapshot["kind"]
    if kind not in KINDS:
        raise CheckpointError("unknown_channel_kind", f"channel {shown} has unknown kind {str(kind)[:40]!r}", checkpoint_id)
    if not is_version(snapshot["version"]):
        raise CheckpointError("invalid_checkpoint", f"channel {shown} version must be an integer 0..{MAX_SAFE_INTEGER}", checkpoint_id)
    try:
        _check_value(kind, snapshot["value"])
    except _ChannelFault as fault:
        raise CheckpointError(fault.code, f"channel {shown}: {fault}", checkpoint_id) from None


def check_checkpoint(checkpoint: Any) -> None:
    """The whole envelope: the bundle's Checkpoint, then the rules above. Raises CheckpointError."""
    from .schema import validate

    checkpoint_id = checkpoint.get("id") if isinstance(checkpoint, dict) else None
    checkpoint_id = checkpoint_id if isinstance(checkpoint_id, str) else None
    if not isinstance(checkpoint, dict):
        raise CheckpointError("invalid_checkpoint", "a checkpoint is an object")
    channels = checkpoint.get("channels")
    if isinstance(channels, dict):
        # Channels first: their values are what can be deep or not JSON, and the schema walk must not meet that.
        for name, snapshot in channels.items():
            check_channel(name, snapshot, checkpoint_id)
    rest = {k: v for k, v in checkpoint.items() if k != "channels"}
    fault = json_fault(rest, 3)
    if fault is not None:
        raise CheckpointError("invalid_checkpoint", f"the envelope {fault}", checkpoint_id)
    issues = validate("Checkpoint", checkpoint)
    if issues:
        raise CheckpointError("invalid_checkpoint", f"{issues[0].path} {issues[0].message}", checkpoint_id)
    if not SESSION_ID.fullmatch(checkpoint["sessionId"]):
        raise CheckpointError("invalid_checkpoint", "sessionId must be an id string ([A-Za-z0-9._:-], at most 128 characters)", checkpoint_id)
    if checkpoint["schemaVersion"] > MAX_SAFE_INTEGER:
        raise CheckpointError("invalid_checkpoint", f"schemaVersion must be at most {MAX_SAFE_INTEGER}", checkpoint_id)


def check_stored(checkpoint: Mapping[str, Any], row_id: str | None) -> None:
    """check_checkpoint for what a reader hydrated: any fault is corrupt_row naming the row."""
    try:
        check_checkpoint(checkpoint)
    except CheckpointError as error:
        raise CheckpointError("corrupt_row", f"stored checkpoint is invalid ({error})", row_id) from None
