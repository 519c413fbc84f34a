"""The client's errors and how an HTTP answer or a socket failure becomes one (standard library only)."""

from __future__ import annotations

import email.utils
import errno
import http.client
import json
import socket
import ssl
import time
from typing import Any

class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, field: str | None = None, body: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" ({field})" if field else ""))
        self.status, self.code, self.message, self.field, self.body = status, code, message, field, body
        self.retry_after: float | None = None  # seconds, from a Retry-After header (429, 503)


MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER: the largest deliverySeq a server can count to


def delivery_seq_of(text: str | None) -> int | None:
    """An SSE `id:` as a deliverySeq: plain decimal digits (no sign, no leading zero, ASCII only: `'²'.isdigit()`
    is True and int() of 5,000 digits raises) up to MAX_SAFE_INTEGER; None for anything else."""
    if not text or len(text) > 16 or not text.isascii() or not text.isdigit() or (text[0] == "0" and text != "0"):
        return None
    value = int(text)
    return value if value <= MAX_SAFE_INTEGER else None


class TransportError(ConnectionError):
    """The server could not be reached, or the connection failed before the response was whole.

    `url` is the server's origin, `reason` a short human text (`connection refused`, `name not resolved`,
    `TLS handshake failed`, ...), `cause` the underlying exception, and `permanent` True when retrying the
    same URL cannot help (the name does not resolve, TLS against a plain-HTTP port, a port out of range).
    """

    def __init__(self, url: str, reason: str, *, cause: BaseException | None = None, permanent: bool = False,
                 delivery_seq: int | None = None, last_event_id: str | None = None) -> None:
        super().__init__(f"cannot reach {url}: {reason}")
        self.url, self.reason, self.cause, self.permanent = url, reason, cause, permanent
        self.delivery_seq, self.last_event_id = delivery_seq, last_event_id


class StreamInterrupted(TransportError):
    """An SSE stream (execute, a thread's events) ended before the server closed it cleanly.

    `last_event_id` is the `id:` of the last message delivered (None before any), `delivery_seq` the same
    as an int when it is one: a thread follower resumes with `Last-Event-ID` = it."""

    def __init__(self, url: str, reason: str, *, cause: BaseException | None = None,
                 last_event_id: str | None = None) -> None:
        super().__init__(url, reason, cause=cause, delivery_seq=delivery_seq_of(last_event_id),
                         last_event_id=last_event_id)
        self.args = (f"stream from {url} interrupted: {reason}"
                     + (f" (last id {last_event_id})" if last_event_id is not None else ""),)


class NotAStream(TransportError):
    """The server answered an SSE request with something else: a redirect (never followed: it may leave the
    origin the token is for), or a 2xx that is not `text/event-stream` (a proxy's page, a misrouted URL).

    Not permanent: a follower retries it with backoff and gives up after `give_up_after`, like an outage."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(url, reason)
        self.args = (f"{url} did not answer with an event stream: {reason}",)


class RepeatedRows(TransportError):
    """A thread stream sent rows at or below the cursor already delivered, and nothing new: deliverySeq is
    strictly increasing on a correct server, so it ignored the cursor. Not permanent: a follower backs off and
    counts it towards `give_up_after` like an outage."""

    def __init__(self, url: str, cursor: int) -> None:
        super().__init__(url, f"only rows already delivered (deliverySeq <= {cursor})")
        self.args = (f"{url} sent only rows already delivered (deliverySeq <= {cursor}), nothing new",)


class EventTooLarge(TransportError):
    """The stream sent a line, or one event's data, longer than the reader's bound (`limit` bytes).

    Permanent: the row that carries it comes again on every resume from the same cursor, so retrying only
    reads it again (a hostile or broken server; the reader raises this instead of buffering without end)."""

    def __init__(self, url: str, limit: int) -> None:
        super().__init__(url, f"an event longer than {limit} bytes (max_event_bytes)", permanent=True)
        self.limit = limit
        self.args = (f"{url} sent an event-stream line or event longer than {limit} bytes "
                     f"(the reader's limit, max_event_bytes); not read further",)


def _reason(error: BaseException) -> tuple[str, bool]:
    """(a short text, permanent?) for a transport failure."""
    if isinstance(error, socket.gaierror):
        return "name not resolved", error.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None))
    if isinstance(error, ssl.SSLError):
        return f"TLS handshake failed ({error.reason or error})", True
    if isinstance(error, ConnectionRefusedError):
        return "connection refused", False
    if isinstance(error, ConnectionResetError):
        return "connection reset", False
    if isinstance(error, TimeoutError):
        return "timed out", False
    if isinstance(error, http.client.IncompleteRead):
        return "connection closed mid-response", False
    if isinstance(error, http.client.RemoteDisconnected):
        return "connection closed without a response", False
    if isinstance(error, (OverflowError, http.client.InvalidURL)):
        return str(error), True
    if isinstance(error, OSError) and error.errno is not None:
        return (error.strerror or errno.errorcode.get(error.errno, str(error))).lower(), False
    return f"{type(error).__name__}: {error}", False


_TRANSPORT = (OSError, http.client.HTTPException, OverflowError)  # OverflowError: a port > 65535

CUT = "connection closed mid-response"


def _api_error(status: int, data: bytes) -> ApiError:
    try:
        body = json.loads(data)
    except ValueError:
        return ApiError(status, "http_error", data[:200].decode("utf-8", "replace"), body=data)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        return ApiError(status, error["code"], str(error.get("message", "")), error.get("field"), body)
    return ApiError(status, "http_error", json.dumps(body)[:200], body=body)


class PagingError(ValueError):
    """The server's cursors do not advance: following them would never end."""


def _every_page(fetch, key: str) -> list[dict]:
    out, cursor, seen = [], None, set()
    while True:
        page = fetch(cursor)
        out += page[key]
        cursor = page.get("nextCursor")
        if not cursor:
            return out
        # A cursor handed out twice would send us round the same pages forever (a broken or hostile server).
        if cursor in seen:
            raise PagingError(f"the server repeated the cursor {str(cursor)[:60]!r} after {len(out)} {key}")
        seen.add(cursor)


def _not_a_stream(status: int, content_type: str | None, location: str | None) -> str | None:
    """Why a < 400 answer to an SSE request is not a stream, or None when it is one."""
    if 300 <= status < 400:
        return f"{status} redirect to {location or '(no location)'}, not followed"
    media = (content_type or "").split(";")[0].strip().lower()
    if status != 200 or media != "text/event-stream":
        return f"{status} with content-type {content_type or '(none)'}"
    return None


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP-date (RFC 9110 10.2.3); None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # float('²') raises
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())
