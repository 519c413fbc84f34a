"""Typed StreamEvents: check `type` first, skip unknown types, validate known ones against the bundle."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from .schema import SchemaIssue, canonical_kinds, validate

WIRE_ONLY_SHAPES = {
    "stream.opened": "StreamOpenedEvent",
    "run.status": "RunStatusEvent",
    "run.canonicalized": "RunCanonicalizedEvent",
    "sync.conflict": "SyncConflictEvent",
    "stream.closing": "StreamClosingEvent",
}


class FrameError(ValueError):
    """A frame of a known type that breaks the schema (the issues say where)."""

    def __init__(self, frame_type: str, issues: list[SchemaIssue]) -> None:
        first = issues[0]
        super().__init__(f"{frame_type} frame: {first.path} {first.message}")
        self.type = frame_type
        self.issues = issues


@dataclass(frozen=True)
class CanonicalEvent:
    schema_version: int
    event_id: str
    seq: int
    run_id: str
    thread_id: str
    turn_id: str
    ts: str
    kind: str
    payload: dict
    identity: dict | None = None


@dataclass(frozen=True)
class Delivered:
    """A canonical event as delivered: one revision of one eventId at one deliverySeq."""

    type: str
    delivery_seq: int
    revision: int
    provisional: bool
    event: CanonicalEvent
    namespace: tuple[str, ...] = ()
    raw: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class StreamOpened:
    thread_id: str
    after: int
    head_delivery_seq: int


@dataclass(frozen=True)
class RunStatus:
    thread_id: str
    run_id: str
    status: str
    delivery_seq: int | None = None


@dataclass(frozen=True)
class RunCanonicalized:
    thread_id: str
    run_id: str
    status: str
    last_delivery_seq: int
    completed_at: str


@dataclass(frozen=True)
class SyncConflict:
    session_id: str
    key: str
    changes: tuple[dict, ...]


@dataclass(frozen=True)
class StreamClosing:
    reason: str
    retry_ms: int


StreamEvent = Union[Delivered, StreamOpened, RunStatus, RunCanonicalized, SyncConflict, StreamClosing]


def shape_of(frame_type: str) -> str | None:
    """The bundle shape for a frame type, or None for a type this reader does not know."""
    if frame_type in WIRE_ONLY_SHAPES:
        return WIRE_ONLY_SHAPES[frame_type]
    if frame_type in canonical_kinds():
        return "CanonicalStreamEvent"
    return None


def parse_stream_event(frame: Any, *, check: bool = True) -> StreamEvent | None:
    """The typed event; None for an unknown type (skipped, not an error); FrameError for a bad known one, and
    for a frame without a type (not an object, no `type`, a `type` that is not a string or is empty)."""
    # An empty type is no type (the TypeScript parser refuses it too): only a real, unknown name is skipped.
    if not isinstance(frame, dict) or not isinstance(frame.get("type"), str) or not frame["type"]:
        raise FrameError("?", [SchemaIssue("$.type", "a frame is an object with a non-empty string type", "type")])
    frame_type = frame["type"]
    shape = shape_of(frame_type)
    if shape is None:
        return None
    if check:
        issues = validate(shape, frame)
        if issues:
            raise FrameError(frame_type, issues)
    return _typed(frame)


def _typed(f: dict) -> StreamEvent:
    t = f["type"]
    if t == "stream.opened":
        return StreamOpened(f["threadId"], f["after"], f["headDeliverySeq"])
    if t == "run.status":
        return RunStatus(f["threadId"], f["runId"], f["status"], f.get("deliverySeq"))
    if t == "run.canonicalized":
        return RunCanonicalized(f["threadId"], f["runId"], f["status"], f["lastDeliverySeq"], f["completedAt"])
    if t == "sync.conflict":
        return SyncConflict(f["sessionId"], f["key"], tuple(f["changes"]))
    if t == "stream.closing":
        return StreamClosing(f["reason"], f["retryMs"])
    e = f["event"]
    event = CanonicalEvent(
        e["schemaVersion"], e["eventId"], e["seq"], e["runId"], e["threadId"], e["turnId"], e["ts"], e["kind"],
        e["payload"], e.get("identity"),
    )
    return Delivered(t, f["deliverySeq"], f["revision"], f["provisional"], event, tuple(f.get("namespace", ())), f)
