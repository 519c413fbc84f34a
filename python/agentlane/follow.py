"""Following a thread: resume after a drop with Last-Event-ID, and fold the rows into a timeline."""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .client import ApiError, Client, StreamInterrupted, TransportError
from .errors import MAX_SAFE_INTEGER, RepeatedRows, delivery_seq_of
from .events import WIRE_ONLY_SHAPES, Delivered, RunCanonicalized, StreamClosing, StreamEvent
from .frames import BadFrameHandler, decode_frame, type_frame, warn_on_stderr
from .unavailable import MAX_RETRY_AFTER_S, ServerUnavailable, retryable


@dataclass
class FollowStats:
    connections: int = 0
    frames: int = 0
    skipped: int = 0  # frames of a type this reader does not know, and frames it could not use
    bad_frames: int = 0  # of those: not JSON, no type, or breaking this reader's schema (newer, unknown field)
    last_event_id: int = 0  # the cursor: the highest deliverySeq received; never goes back
    repeats: int = 0  # rows at or below the cursor a server sent again: skipped, not yielded, not progress
    failures: int = 0  # consecutive failed connections (reset by progress: a delivered row)
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
    on_bad_frame: BadFrameHandler | None = None,
    healthy_after_s: float = 10.0,
) -> Iterator[StreamEvent]:
    """Yields the thread's typed events, reconnecting after drops and `stream.closing` until `until` says stop.

    The first connection asks `?after=`; every reconnect sends `Last-Event-ID` = the last `id:` received,
    so no row is lost or repeated across the drop. Unknown frame types are skipped. A frame this reader
    cannot use (not JSON, no type, a newer schemaVersion or unknown field) is skipped too and told to
    `on_bad_frame` (default: one line on stderr). `stop_at` is a time.monotonic() deadline checked between
    frames and connections, and bounding each read's timeout (a quiet stream returns at the deadline, not
    after `read_timeout`).

    Failures: a connection that cannot be made or drops is a TransportError (StreamInterrupted for a drop;
    NotAStream for a redirect or a non-SSE answer; ServerUnavailable for a 429 or 5xx, retried after its
    Retry-After, at most `MAX_RETRY_AFTER_S`). `on_error` hears each one, and the follower retries after
    `backoff_s`, doubling while they go on (up to `max_backoff_s`). The failure count and backoff reset
    only on progress: a delivered row, or a connection that stayed up `healthy_after_s` (a quiet thread
    behind a proxy that cuts idle connections is not failing). It raises the error (its `delivery_seq` = the
    last id received, to resume from) when the error is permanent (a name that does not resolve, TLS against
    plain HTTP), when the failures have gone on for `give_up_after` seconds, or when `max_connections` is
    used up and the last one failed. At `stop_at` it returns, also while failing: `stats.last_error` then
    says the server was not reachable. Any other ApiError (a 4xx, e.g. an unknown thread) is raised at once.

    A row at or below the cursor (its deliverySeq or own `id:`) is skipped: not yielded, not progress; a
    connection with repeats and no new row is a failure (RepeatedRows). An `id:` that is no deliverySeq, or
    that is not the row's deliverySeq, is skipped as a bad frame, never the cursor. An SSE line or event past the client's `max_event_bytes` raises
    EventTooLarge at once (permanent: the same row would come again on every resume).
    """
    stats = stats or FollowStats()
    stats.last_event_id = after
    report_bad = on_bad_frame or warn_on_stderr
    first = True
    failing_since: float | None = None

    idle_ends = 0  # connections in a row that ended cleanly without a delivered row

    def skip_bad(frame_id: str | None, why: str) -> None:
        stats.skipped += 1
        stats.bad_frames += 1
        report_bad(frame_id, why)

    def progress() -> None:
        nonlocal failing_since, idle_ends
        stats.failures, failing_since, idle_ends = 0, None, 0

    while max_connections is None or stats.connections < max_connections:
        if stop_at is not None and time.monotonic() >= stop_at:
            return
        stats.connections += 1
        retry_s = backoff_s
        opened_at = time.monotonic()
        # A quiet stream is read with a timeout: bounded by the deadline too, so stop_at is kept on it as well.
        timeout = read_timeout
        if stop_at is not None:
            left = max(0.05, stop_at - time.monotonic())
            timeout = left if timeout is None else min(timeout, left)
        try:
            try:
                messages = (
                    client.thread_messages(thread_id, after=after or None, timeout=timeout, deadline=stop_at)
                    if first
                    else client.thread_messages(thread_id, last_event_id=str(stats.last_event_id), timeout=timeout,
                                                deadline=stop_at)
                )
                first = False
                seen_id: str | None = None  # the previous message's id: the parser repeats it on those without one
                fresh = repeats = 0  # rows past the cursor / at or below it, on this connection
                for message in messages:
                    stats.frames += 1
                    shown_id = None if message.id is None else message.id[:40]  # a hostile id may be megabytes
                    own_id = message.id if message.id and message.id != seen_id else None
                    seen_id = message.id
                    frame, why = decode_frame(message.data)
                    seqs, bad = _cursor_of(own_id, frame)
                    if bad is not None:
                        skip_bad(shown_id, bad)
                        continue
                    if seqs and min(seqs) <= stats.last_event_id:  # delivered already: not again, no progress
                        stats.repeats += 1
                        repeats += 1
                        if not fresh:  # only repeats on this connection: their time counts towards give-up
                            now = time.monotonic()
                            failing_since = now if failing_since is None else failing_since
                            if give_up_after is not None and now - failing_since >= give_up_after:
                                raise RepeatedRows(client.origin, stats.last_event_id)
                        continue
                    if seqs:
                        fresh += 1
                        stats.last_event_id = max(seqs)  # a skipped row is still delivered: don't ask again
                    stats.last_error = None  # this connection works; backoff waits for real progress
                    if why is None and on_frame is not None:
                        on_frame(frame)
                    typed, why = (None, why) if why else type_frame(frame, check=check)
                    if why is not None:
                        skip_bad(shown_id, why)
                        continue
                    if typed is None:
                        stats.skipped += 1
                        continue
                    if isinstance(typed, Delivered):
                        progress()
                    yield typed
                    if until is not None and until(typed):
                        return
                    if stop_at is not None and time.monotonic() >= stop_at:
                        return
                    if isinstance(typed, StreamClosing):
                        retry_s = max(typed.retry_ms / 1000, backoff_s)
                        break
                else:
                    # Ended by the server without stream.closing: not a failure, but a server that does it
                    # at once every time must not be asked again 20 times a second.
                    idle_ends += 1  # reset by progress(): after a delivered row this is 1, the base backoff
                    retry_s = min(max_backoff_s, backoff_s * 2 ** (idle_ends - 1))
                if repeats and not fresh:  # a failure: counts towards give_up_after, backed off
                    raise RepeatedRows(client.origin, stats.last_event_id)
            except ApiError as error:
                if not retryable(error):
                    raise
                raise ServerUnavailable(client.origin, error) from error
        except TransportError as error:  # a dropped or refused connection: resume from the last id
            now = time.monotonic()
            if now - opened_at >= healthy_after_s and not isinstance(error, RepeatedRows):
                progress()  # it was a working stream for a while before it dropped
            error.delivery_seq = stats.last_event_id
            stats.failures += 1
            stats.last_error = error
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
            if isinstance(error, ServerUnavailable) and error.retry_after is not None:
                retry_s = max(retry_s, min(error.retry_after, MAX_RETRY_AFTER_S))
            if give_up_after is not None:  # wake up in time to give up when the allowance runs out
                retry_s = min(retry_s, max(0.0, failing_since + give_up_after - now))
        except (OSError, http.client.HTTPException):
            pass  # anything else the socket layer raises: resume from the last id
        if stop_at is not None:
            retry_s = max(0.0, min(retry_s, stop_at - time.monotonic()))
        time.sleep(retry_s)


def _cursor_of(own_id: str | None, frame: Any) -> tuple[list[int], str | None]:
    """The deliverySeqs a message claims (its own `id:`, a row's deliverySeq), or why it cannot be used.

    deliverySeq is per thread, strictly increasing and gap-free, and a row's `id:` is it: a row at or below the
    cursor was delivered already (a server ignoring Last-Event-ID), and an id that is no deliverySeq must not
    become the cursor (an absurdly large one would skip every later row)."""
    seqs = []
    if own_id is not None:
        seq = delivery_seq_of(own_id)
        if seq is None:
            return [], f"its id is not a deliverySeq (decimal up to {MAX_SAFE_INTEGER}): not taken as the cursor"
        seqs.append(seq)
    if isinstance(frame, dict) and frame.get("type") in WIRE_ONLY_SHAPES:
        return [], None  # stream.opened, run.status, ...: not rows, neither repeated nor a cursor
    value = frame.get("deliverySeq") if isinstance(frame, dict) else None
    if type(value) is int:
        if not 1 <= value <= MAX_SAFE_INTEGER:
            return [], f"deliverySeq {str(value)[:24]} is out of range (1 to {MAX_SAFE_INTEGER})"
        if seqs and seqs[0] != value:
            # The id IS the deliverySeq: trusting either one of two that disagree could move the cursor past
            # rows never delivered (id 5 on row 1 lost rows 2 and 3), so the frame is neither a row nor a cursor.
            return [], f"its id {seqs[0]} is not its deliverySeq {value}: not taken as a row or the cursor"
        seqs.append(value)
    return seqs, None


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
