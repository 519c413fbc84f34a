"""Following a thread: resume after a drop with Last-Event-ID, and fold the rows into a timeline."""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .client import Client, StreamInterrupted, TransportError
from .events import Delivered, RunCanonicalized, StreamClosing, StreamEvent, parse_stream_event


@dataclass
class FollowStats:
    connections: int = 0
    frames: int = 0
    skipped: int = 0  # frames of a type this reader does not know
    last_event_id: int = 0
    failures: int = 0  # consecutive failed connections (reset by a frame)
    last_error: TransportError | None = None  # set while the latest connection failed, None once frames arrive


def follow_thread(
    client: Client,
    thread_id: str,
    *,
    after: int = 0,
    until: Callable[[StreamEvent], bool] | None = None,
    max_connections: int | None = None,
    check: bool = True,
    read_timeout: float | None = 60.0,
    backoff_s: float = 0.05,
    stats: FollowStats | None = None,
    on_frame: Callable[[dict], None] | None = None,
    stop_at: float | None = None,
    on_error: Callable[[TransportError], None] | None = None,
    give_up_after: float | None = None,
    max_backoff_s: float = 2.0,
) -> Iterator[StreamEvent]:
    """Yields the thread's typed events, reconnecting after drops and `stream.closing` until `until` says stop.

    The first connection asks `?after=`; every reconnect sends `Last-Event-ID` = the last `id:` received,
    so no row is lost or repeated across the drop. Unknown frame types are skipped. `stop_at` is a
    time.monotonic() deadline checked between frames and connections, and bounding each read's timeout (a quiet
    stream returns at the deadline, not after `read_timeout`).

    Failures: a connection that cannot be made or drops is a TransportError (StreamInterrupted for a drop);
    `on_error` hears each one, and the follower retries after `backoff_s`, doubling while they go on (up to
    `max_backoff_s`). It raises the error (its `delivery_seq` = the last id received, to resume from) when
    the error is permanent (a name that does not resolve, TLS against plain HTTP), when the failures have
    gone on for `give_up_after` seconds, or when `max_connections` is used up and the last one failed. At
    `stop_at` it returns, also while failing: `stats.last_error` then says the server was not reachable.
    An ApiError (a 4xx/5xx, e.g. an unknown thread) is raised at once.
    """
    stats = stats or FollowStats()
    stats.last_event_id = after
    first = True
    failing_since: float | None = None
    while max_connections is None or stats.connections < max_connections:
        if stop_at is not None and time.monotonic() >= stop_at:
            return
        stats.connections += 1
        retry_s = backoff_s
        # A quiet stream is read with a timeout: bounded by the deadline too, so stop_at is kept on it as well.
        timeout = read_timeout
        if stop_at is not None:
            left = max(0.05, stop_at - time.monotonic())
            timeout = left if timeout is None else min(timeout, left)
        try:
            messages = (
                client.thread_messages(thread_id, after=after or None, timeout=timeout, deadline=stop_at)
                if first
                else client.thread_messages(thread_id, last_event_id=str(stats.last_event_id), timeout=timeout,
                                            deadline=stop_at)
            )
            first = False
            for message in messages:
                frame = json.loads(message.data)
                stats.frames += 1
                stats.failures, stats.last_error, failing_since = 0, None, None
                if on_frame is not None:
                    on_frame(frame)
                typed = parse_stream_event(frame, check=check)
                if message.id and message.id.isdigit():
                    stats.last_event_id = int(message.id)
                if typed is None:
                    stats.skipped += 1
                    continue
                yield typed
                if until is not None and until(typed):
                    return
                if stop_at is not None and time.monotonic() >= stop_at:
                    return
                if isinstance(typed, StreamClosing):
                    retry_s = max(typed.retry_ms / 1000, backoff_s)
                    break
        except TransportError as error:  # a dropped or refused connection: resume from the last id
            error.delivery_seq = stats.last_event_id
            stats.failures += 1
            stats.last_error = error
            now = time.monotonic()
            failing_since = now if failing_since is None else failing_since
            if on_error is not None:
                on_error(error)
            out_of_connections = max_connections is not None and stats.connections >= max_connections
            if error.permanent or out_of_connections or (
                give_up_after is not None and now - failing_since >= give_up_after
            ):
                raise
            if not isinstance(error, StreamInterrupted) or stats.failures > 1:
                retry_s = min(max_backoff_s, backoff_s * 2 ** (stats.failures - 1))
        except (OSError, http.client.HTTPException):
            pass  # anything else the socket layer raises: resume from the last id
        if stop_at is not None:
            retry_s = max(0.0, min(retry_s, stop_at - time.monotonic()))
        time.sleep(retry_s)


@dataclass
class Timeline:
    """The latest revision of every eventId, in order of first delivery, and which runs are final."""

    rows: dict[str, Delivered] = field(default_factory=dict)
    canonicalized: dict[str, int] = field(default_factory=dict)  # runId -> lastDeliverySeq
    folded: int = 0

    def fold(self, event: StreamEvent) -> None:
        self.folded += 1
        if isinstance(event, Delivered):
            current = self.rows.get(event.event.event_id)
            if current is None or event.revision > current.revision:
                self.rows[event.event.event_id] = event
        elif isinstance(event, RunCanonicalized):
            self.canonicalized[event.run_id] = event.last_delivery_seq

    def events(self) -> list[Delivered]:
        return list(self.rows.values())

    def tool_input(self, tool_call_id: str, namespace: tuple[str, ...] = ()) -> Any:
        """A tool call's input as far as it is known: the last whole `input`, or the text its `inputDelta`s
        (the append form of streamed input, see docs/contract.md) joined after it; None before tool.started."""
        rows = sorted(
            (r for r in self.rows.values()
             if r.namespace == namespace and r.event.kind in ("tool.started", "tool.progress")
             and r.event.payload.get("toolCallId") == tool_call_id),
            key=lambda r: r.delivery_seq,
        )
        value: Any = None
        pieces: list[str] | None = None
        for r in rows:
            payload = r.event.payload
            if isinstance(payload.get("inputDelta"), str):
                if pieces is None:
                    pieces = []
                pieces.append(payload["inputDelta"])
            if "input" in payload:
                value, pieces = payload["input"], None
        return "".join(pieces) if pieces is not None else value

    def is_final(self, row: Delivered) -> bool:
        """A row is final once its run's completion signal covers it, or the server delivered it as such."""
        last = self.canonicalized.get(row.event.run_id)
        return (not row.provisional) or (last is not None and row.delivery_seq <= last)
