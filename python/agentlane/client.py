"""HTTP client of every route of the agentlane wire (standard library only).

Errors come back as the contract's `{"error": {"code", "message", "field"?}}` and are raised as ApiError,
so a caller reads `error.code` / `error.field` the way the server README documents them. A server that
cannot be reached, or a connection that fails before its response is whole, raises TransportError (a
ConnectionError); a stream that drops midway raises its subclass StreamInterrupted, carrying the last
`id:` delivered (`delivery_seq`) to resume from.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Iterator

from .errors import (  # noqa: F401  (re-exported: callers import the errors from here)
    ApiError,
    NotAStream,
    PagingError,
    StreamInterrupted,
    TransportError,
    _api_error,
    _every_page,
    _not_a_stream,
    _TRANSPORT,
    CUT,
    EventTooLarge,
    _reason,
    delivery_seq_of,
    retry_after_seconds,
)
from .events import StreamEvent
from .frames import BadFrameHandler, decode_frame, type_frame, warn_on_stderr
from .sse import MAX_EVENT_BYTES, SseMessage, SseParser

PREFIX = "/api/harness"


class _LineWatch:
    """The response's byte stream, noting a line that ended without its LF: the connection closed inside it.

    http.client reads the header block until a blank line *or* the end of the stream, and a chunked body's
    trailer the same way, so a response cut after `HTTP/1.1 200 OK\r\n` (or mid-header) looks like a whole
    one without headers and with an empty body. Every line it reads goes through readline, so this sees it."""

    def __init__(self, fp) -> None:
        self._fp, self.cut = fp, False

    def readline(self, limit: int = -1) -> bytes:
        line = self._fp.readline(limit)
        if not line.endswith(b"\n") and (limit < 0 or len(line) < limit):  # a full-length line is LineTooLong
            self.cut = True
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fp, name)


class _WatchedResponse(http.client.HTTPResponse):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.watch = self.fp = _LineWatch(self.fp)  # kept: http.client drops fp when it closes


def redact_url(url: str) -> str:
    """The URL as it may be printed: whatever stands between `//` and the last `@` (user, password) is `***`
    (over-redacting a path or query that holds an `@` is the safe side)."""
    return re.sub(r"(?<=//).*@", "***@", url, flags=re.S)


_TOKEN = re.compile(r"[\x21-\x7e]+")  # visible ASCII: what a header value carries and the server reads as one token


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    body: Any  # parsed JSON, or bytes for artifacts


@dataclass(frozen=True)
class Artifact:
    status: int  # 200, 206 or 304
    content: bytes
    content_type: str | None
    etag: str | None
    content_range: str | None


def _drop_none(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}


class Client:
    def __init__(self, base_url: str, *, token: str | None = None, timeout: float = 30.0, prefix: str = PREFIX,
                 max_event_bytes: int = MAX_EVENT_BYTES):
        # Messages show the URL redacted (a password in it is never printed) and never the token.
        shown = redact_url(base_url)
        try:
            url = urllib.parse.urlsplit(base_url)
        except ValueError as error:  # e.g. an unclosed [ of an IPv6 host
            raise ValueError(f"base_url {shown!r}: {redact_url(str(error))}") from None
        if url.scheme not in ("http", "https"):
            raise ValueError(f"base_url must be http(s)://host[:port], got {shown!r}")
        if shown != base_url:
            raise ValueError(f"base_url must be http(s)://host[:port] without credentials, got {shown!r}")
        # The origin only (README): a path would be put before /api/harness, a query or fragment dropped.
        if url.path not in ("", "/") or url.query or url.fragment or "?" in base_url or "#" in base_url:
            raise ValueError(f"base_url must be http(s)://host[:port] without a path, query or fragment, got {shown!r}")
        try:
            url.port  # noqa: B018 - raises for a port out of range or not a number
        except ValueError as error:
            raise ValueError(f"base_url {shown!r}: {error}") from None
        if not url.hostname:
            raise ValueError(f"base_url has no host: {shown!r}")
        # A CR/LF would split the header (http.client refuses it only when sending); a space or non-ASCII is no
        # token the server's `Bearer <token>` reads. The token itself is never put into the message.
        if token is not None and token != "" and not _TOKEN.fullmatch(token):
            raise ValueError("token is not a valid bearer token (only visible ASCII, no spaces or control characters)")
        self._scheme, self._netloc = url.scheme, url.netloc
        self.origin = f"{url.scheme}://{url.netloc}"
        self._prefix = prefix
        self._token, self._timeout = token, timeout
        self.max_event_bytes = max_event_bytes  # an SSE line or event past it raises EventTooLarge (sse.py)

    # -- plumbing

    def _connection(self, timeout: float | None = None) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        conn = cls(self._netloc, timeout=self._timeout if timeout is None else timeout)
        conn.response_class = _WatchedResponse
        return conn

    def _path(self, path: str, query: dict | None = None) -> str:
        q = urllib.parse.urlencode(_drop_none(query or {}))
        return self._prefix + path + (f"?{q}" if q else "")

    def _headers(self, extra: dict | None = None) -> dict[str, str]:
        headers = {"accept": "application/json"}
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        headers.update(_drop_none(extra or {}))
        return headers

    def _send(self, method, path, *, body=None, query=None, headers=None, timeout=None):
        """Sends a request and returns (connection, response) with the body unread; the caller closes.
        A failure to connect or to read the whole response head raises TransportError."""
        conn = self._connection(timeout)
        h = self._headers(headers)
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
            h["content-type"] = "application/json"
        try:
            conn.request(method, self._path(path, query), body=payload, headers=h)
            resp = conn.getresponse()
        except _TRANSPORT as error:
            conn.close()
            reason, permanent = _reason(error)
            raise TransportError(self.origin, reason, cause=error, permanent=permanent) from error
        except BaseException:
            conn.close()
            raise
        if resp.watch.cut:  # the head ended without its blank line: not a response without headers
            conn.close()
            raise TransportError(self.origin, CUT + " (in its head)")
        return conn, resp

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: dict | None = None,
        headers: dict | None = None,
        raw: bool = False,
    ) -> Response:
        """One call; 4xx/5xx raise ApiError, an unreachable server or a cut response TransportError.
        raw=True returns the body as bytes."""
        conn, resp = self._send(method, path, body=body, query=query, headers=headers)
        try:
            data = resp.read()  # a Content-Length or chunked body cut short raises IncompleteRead
            resp_headers = {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, http.client.HTTPException) as error:
            reason, _ = _reason(error)
            raise TransportError(self.origin, reason, cause=error) from error
        finally:
            conn.close()
        if resp.watch.cut:  # a chunked body whose trailer was cut after the last chunk
            raise TransportError(self.origin, CUT)
        if resp.status >= 400:
            raise _api_error(resp.status, data)
        if raw or resp.status in (204, 304):
            return Response(resp.status, resp_headers, data)
        # Every other answer of the wire is a JSON document. A body framed by the connection's close has no
        # length to check, so a cut one shows here: empty or not JSON. Never hand a caller None for it.
        try:
            parsed = json.loads(data)
        except ValueError as error:
            why = "an empty body" if not data.strip() else f"a body that is not JSON ({error})"
            raise TransportError(self.origin, f"{why} where JSON was expected ({CUT}?)", cause=error) from error
        return Response(resp.status, resp_headers, parsed)

    # -- routes

    def health(self) -> dict:
        """GET /health. A 503 (store failing, draining) still carries the health body: it is returned."""
        try:
            return self.request("GET", "/health").body
        except ApiError as error:
            if error.status == 503 and isinstance(error.body, dict) and "status" in error.body:
                return error.body
            raise

    def list_sessions(self, *, engine=None, search=None, limit=None, cursor=None) -> dict:
        return self.request("GET", "/sessions", query=dict(engine=engine, search=search, limit=limit, cursor=cursor)).body

    def create_session(self, engine: str, *, work_dir=None, title=None, metadata=None) -> dict:
        body = _drop_none({"engine": engine, "workDir": work_dir, "title": title, "metadata": metadata})
        return self.request("POST", "/sessions", body=body).body["session"]

    def get_session(self, session_id: str) -> dict:
        return self.request("GET", f"/sessions/{_seg(session_id)}").body["session"]

    def update_session(self, session_id: str, *, title: Any = ..., metadata=None, expected_generation=None) -> dict:
        body = _drop_none({"metadata": metadata, "expectedGeneration": expected_generation})
        if title is not ...:
            body["title"] = title  # None clears the title: it is sent as null
        return self.request("PUT", f"/sessions/{_seg(session_id)}", body=body).body["session"]

    def delete_session(self, session_id: str) -> None:
        self.request("DELETE", f"/sessions/{_seg(session_id)}")

    def fork_session(
        self,
        session_id: str,
        checkpoint_id: str | None = None,
        *,
        run_id: str | None = None,
        title: str | None = None,
    ) -> dict:
        """POST /sessions/:id/fork: a new thread continuing from one of the session's checkpoints (the
        built-in engine; returns {session, forkedFrom, checkpointId (the new thread's copy)}) or, with
        run_id, after that run's turn through the engine's own fork (OpenCode, an ACP agent that advertises
        session/fork; returns {session, forkedFrom}). forkedFrom is the contract's ForkedFrom: threadId,
        checkpointId (checkpoint forks), stageId, at, runId, headSeq: the cut of the origin's history. Name one."""
        body = _drop_none({"checkpointId": checkpoint_id, "runId": run_id, "title": title})
        return self.request("POST", f"/sessions/{_seg(session_id)}/fork", body=body).body

    def sync(self, session_id: str, client_id: str, vector: dict, changes: list[dict], *, cursor=None) -> dict:
        """One sync request. Its answer may be one page of what this client has not seen (`more: true`, with a
        `cursor`): sync_all follows the pages."""
        body = _drop_none({"clientId": client_id, "vector": vector, "changes": changes, "cursor": cursor})
        return self.request("POST", f"/sessions/{_seg(session_id)}/sync", body=body).body

    def sync_all(self, session_id: str, client_id: str, vector: dict, changes: list[dict]) -> dict:
        """A sync that follows the pages: sends `changes` once, then syncs again with the answer's vector and
        cursor (no changes) while the answer says `more`. Returns every page's changes and conflicts and the
        last vector, as one answer without `more`."""
        page = self.sync(session_id, client_id, vector, changes)
        got, conflicts = list(page["changes"]), list(page["conflicts"])
        while page.get("more"):
            before = (page["vector"], page.get("cursor"))
            page = self.sync(session_id, client_id, before[0], [], cursor=before[1])
            # Each page moves the vector or the cursor on: one that moves neither would repeat forever.
            if page.get("more") and not page["changes"] and (page["vector"], page.get("cursor")) == before:
                raise ApiError(200, "sync_stalled", "the server answered the same sync page again")
            got += page["changes"]
            conflicts += page["conflicts"]
        return {"vector": page["vector"], "changes": got, "conflicts": conflicts}

    def create_run(
        self, thread_id: str, prompt: str, *, parent_run_id=None, model=None, mode=None, expected_generation=None,
        idempotency_key=None,
    ) -> tuple[dict, bool]:
        """run.create; returns (run, created) — created is False when an Idempotency-Key retry got the first run."""
        body = _run_body(prompt, parent_run_id, model, mode, expected_generation)
        resp = self.request(
            "POST", f"/threads/{_seg(thread_id)}/runs", body=body, headers={"idempotency-key": idempotency_key}
        )
        return resp.body["run"], resp.status == 201

    def add_events(self, run_id: str, *, events: list[dict] | None = None, audit: list[dict] | None = None,
                   end: dict | None = None) -> dict:
        """POST /runs/:id/events (a run of an `external` engine): this runtime's event drafts ({key, kind,
        payload, namespace?}) and AuditableCall rows; `end` ({outcome, error?}) ends the turn. Returns
        {accepted, frames, ended}."""
        body = _drop_none({"events": events, "audit": audit, "end": end})
        return self.request("POST", f"/runs/{_seg(run_id)}/events", body=body).body

    def get_run(self, run_id: str) -> dict:
        return self.request("GET", f"/runs/{_seg(run_id)}").body["run"]

    def cancel_run(self, run_id: str, *, idempotency_key=None) -> dict:
        return self.request("POST", f"/runs/{_seg(run_id)}/cancel", headers={"idempotency-key": idempotency_key}).body[
            "run"
        ]

    def answer_approval(self, run_id: str, approval_id: str, outcome: str, option_id: str | None = None) -> dict:
        body = _drop_none({"outcome": outcome, "optionId": option_id})
        return self.request("POST", f"/runs/{_seg(run_id)}/approvals/{_seg(approval_id)}", body=body).body

    def answer_question(self, run_id: str, question_id: str, outcome: str, *, choice_ids=None, text=None) -> dict:
        body = _drop_none({"outcome": outcome, "choiceIds": choice_ids, "text": text})
        return self.request("POST", f"/runs/{_seg(run_id)}/questions/{_seg(question_id)}", body=body).body

    def get_artifact(self, artifact_id: str, *, byte_range: str | None = None, if_none_match: str | None = None) -> Artifact:
        headers = {"range": byte_range, "if-none-match": if_none_match, "accept": "*/*"}
        resp = self.request("GET", f"/artifacts/{_seg(artifact_id)}", headers=headers, raw=True)
        h = resp.headers
        return Artifact(resp.status, resp.body, h.get("content-type"), h.get("etag"), h.get("content-range"))

    def list_checkpoints(self, session_id: str, *, limit=None, cursor=None, namespace=None, stage_id=None) -> dict:
        query = dict(limit=limit, cursor=cursor, namespace=namespace, stageId=stage_id)
        return self.request("GET", f"/sessions/{_seg(session_id)}/checkpoints", query=query).body

    def get_checkpoint(self, session_id: str, checkpoint_id: str) -> dict:
        return self.request("GET", f"/sessions/{_seg(session_id)}/checkpoints/{_seg(checkpoint_id)}").body

    def audit(self, session_id: str, *, limit=None, cursor=None) -> dict:
        return self.request("GET", f"/sessions/{_seg(session_id)}/audit", query=dict(limit=limit, cursor=cursor)).body

    def all_audit(self, session_id: str, *, limit: int = 1000) -> list[dict]:
        """Every ledger row of the session, oldest first, across pages."""
        return _every_page(lambda cursor: self.audit(session_id, limit=limit, cursor=cursor), "calls")

    def all_checkpoints(self, session_id: str, **filters: Any) -> list[dict]:
        return _every_page(lambda cursor: self.list_checkpoints(session_id, cursor=cursor, **filters), "checkpoints")

    # -- streams

    def execute(self, session_id: str, prompt: str, *, check: bool = True, on_bad_frame: BadFrameHandler | None = None,
                **options: Any) -> Iterator[StreamEvent]:
        """POST /execute: creates a run and yields its typed StreamEvents until the server ends the stream.
        A stream cut before that raises StreamInterrupted (its `delivery_seq`: the last id delivered).
        A frame this reader cannot use (not JSON, newer, unknown field) is skipped and told to `on_bad_frame`
        (default: one line on stderr)."""
        report = on_bad_frame or warn_on_stderr
        body = _run_body(prompt, options.get("parent_run_id"), options.get("model"), options.get("mode"),
                         options.get("expected_generation"))
        headers = {"idempotency-key": options.get("idempotency_key")}
        for message in self._sse("POST", f"/sessions/{_seg(session_id)}/execute", body=body, headers=headers):
            frame, why = decode_frame(message.data)
            typed, why = (None, why) if why else type_frame(frame, check=check)
            if why:
                report(message.id, why)
            elif typed is not None:
                yield typed

    def thread_messages(self, thread_id: str, *, after: int | None = None, last_event_id: str | None = None,
                        timeout: float | None = None, deadline: float | None = None) -> Iterator[SseMessage]:
        """One connection to the thread channel: raw SSE messages (`id` = deliverySeq). `deadline` (a
        time.monotonic() value) ends the connection then, also while only heartbeats arrive. A drop raises
        StreamInterrupted with the last `id:` delivered."""
        headers = {"last-event-id": last_event_id}
        return self._sse("GET", f"/threads/{_seg(thread_id)}/events", query={"after": after}, headers=headers,
                         timeout=timeout, deadline=deadline)

    def _sse(self, method: str, path: str, *, body=None, query=None, headers=None, timeout=None,
             deadline: float | None = None) -> Iterator[SseMessage]:
        sse_headers = {**(headers or {}), "accept": "text/event-stream"}
        conn, resp = self._send(method, path, body=body, query=query, headers=sse_headers, timeout=timeout)
        try:
            if resp.status >= 400:
                try:
                    data = resp.read()
                except (OSError, http.client.HTTPException) as error:
                    reason, _ = _reason(error)
                    raise TransportError(self.origin, reason, cause=error) from error
                if resp.watch.cut:
                    raise TransportError(self.origin, CUT)
                error = _api_error(resp.status, data)
                error.retry_after = retry_after_seconds(resp.getheader("retry-after"))
                raise error
            not_a_stream = _not_a_stream(resp.status, resp.getheader("content-type"), resp.getheader("location"))
            if not_a_stream:
                raise NotAStream(self.origin, not_a_stream)
            parser = SseParser(self.max_event_bytes, source=self.origin)
            last_id: str | None = None
            while True:
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return
                    if conn.sock is not None:
                        conn.sock.settimeout(left if timeout is None else min(timeout, left))
                try:
                    chunk = resp.read1(65536)
                except (OSError, http.client.HTTPException) as error:
                    if isinstance(error, TimeoutError) and deadline is not None and time.monotonic() >= deadline:
                        return  # the caller's deadline, not a failure
                    reason, _ = _reason(error)
                    raise StreamInterrupted(self.origin, reason, cause=error, last_event_id=last_id) from error
                if not chunk:
                    # The chunked stream's end was cut, or fewer bytes came than Content-Length promised:
                    # not the server closing it.
                    if resp.watch.cut or (resp.length or 0) > 0:
                        raise StreamInterrupted(self.origin, CUT, last_event_id=last_id)
                    return
                try:
                    messages = parser.feed(chunk)
                except EventTooLarge as error:
                    error.last_event_id, error.delivery_seq = last_id, delivery_seq_of(last_id)
                    raise
                for message in messages:
                    yield message
                    last_id = message.id
        finally:
            conn.close()


def _run_body(prompt, parent_run_id, model, mode, expected_generation) -> dict:
    return _drop_none(
        {"prompt": prompt, "parentRunId": parent_run_id, "model": model, "mode": mode,
         "expectedGeneration": expected_generation}
    )


def _seg(value: str) -> str:
    return urllib.parse.quote(value, safe="")
