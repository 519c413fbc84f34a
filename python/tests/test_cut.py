"""A response cut by the connection at any byte is a TransportError, never a result (README, "Errors").

Each real-looking response is served cut after every byte offset by a loopback server that then closes the
connection; only the whole response may give a result, and it must be the right one."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentlane.client import ApiError, Client, StreamInterrupted, TransportError
from conftest import PYTHON_ROOT
from tcp_cut import ScriptedServer

SESSION = {"session": {"id": "s-1", "engine": "replay-codex", "title": "déjà vu", "generation": 3,
                       "metadata": {"tags": ["a", "b"]}, "createdAt": "2026-01-01T00:00:00.000Z"}}
RUN = {"run": {"runId": "run_1", "threadId": "other-thread", "status": "completed", "canonicalizedAt": None}}


def _json_body(value: dict) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _with_length(body: bytes, status: str = "200 OK", content_type: str = "application/json; charset=utf-8") -> bytes:
    return (f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {len(body)}\r\n"
            'etag: W/"8c-1f2e3d"\r\ndate: Thu, 01 Jan 2026 00:00:00 GMT\r\nconnection: keep-alive\r\n'
            "keep-alive: timeout=5\r\n\r\n").encode() + body


def _chunked(body: bytes, content_type: str = "application/json; charset=utf-8") -> bytes:
    head = (f"HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n"
            "date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n").encode()
    half = len(body) // 2
    chunks = b"".join(f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:half], body[half:]))
    return head + chunks + b"0\r\n\r\n"


def _until_close(body: bytes) -> bytes:
    """No Content-Length, not chunked: the body ends when the connection does (HTTP/1.1 `connection: close`)."""
    return b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n" + body


def _every_cut(response: bytes, call, whole) -> None:
    """Serves response[:n] for every n; asserts TransportError for n < len and `whole(result)` at len."""
    server = ScriptedServer([response[:n] for n in range(len(response) + 1)])
    try:
        client = Client(server.url, timeout=10)
        for n in range(len(response)):
            try:
                got = call(client)
            except TransportError:
                continue
            except Exception as error:  # noqa: BLE001 - the failure names the offset
                pytest.fail(f"cut after {n} of {len(response)} bytes ({response[:n][-20:]!r}): "
                            f"{type(error).__name__}: {error}")
            pytest.fail(f"cut after {n} of {len(response)} bytes ({response[:n][-20:]!r}) returned {got!r}")
        whole(call(client))
        assert server.connections == len(response) + 1
    finally:
        server.close()


@pytest.mark.parametrize("frame", [_with_length, _chunked, _until_close], ids=["content-length", "chunked", "until-close"])
def test_a_json_response_cut_anywhere_is_a_transport_error(frame) -> None:
    _every_cut(frame(_json_body(SESSION)), lambda c: c.get_session("s-1"), lambda got: got == SESSION["session"])


def test_an_empty_body_where_json_is_expected_is_a_transport_error() -> None:
    # What the probe saw: a 200 whose head and body were both cut away used to come back as body=None.
    server = ScriptedServer([b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"])
    try:
        with pytest.raises(TransportError) as caught:
            Client(server.url).get_run("run_1")
        assert "empty body" in caught.value.reason
    finally:
        server.close()


def test_an_artifact_cut_anywhere_is_a_transport_error() -> None:
    content = bytes(range(256)) * 2
    response = _with_length(content, content_type="application/octet-stream")

    def whole(artifact) -> None:
        assert artifact.status == 200 and artifact.content == content and artifact.etag == 'W/"8c-1f2e3d"'

    _every_cut(response, lambda c: c.get_artifact("sha256-x"), whole)


def test_an_error_response_cut_anywhere_is_a_transport_error_not_an_api_error() -> None:
    body = _json_body({"error": {"code": "not_found", "message": "no session s-1", "field": "id"}})

    def call(client):
        try:
            return client.get_session("s-1")
        except ApiError as error:  # returned, so that only the whole response may produce it
            return ("api", error.status, error.code, error.field)

    def whole(got) -> None:
        assert got == ("api", 404, "not_found", "id")

    _every_cut(_with_length(body, status="404 Not Found"), call, whole)


def test_an_event_stream_cut_anywhere_is_a_transport_error() -> None:
    events = b"".join(f'id: {i}\ndata: {{"type":"x.future","n":{i}}}\n\n'.encode() for i in (1, 2))
    response = _chunked(events, content_type="text/event-stream")

    def call(client):
        return [(m.id, m.data) for m in client.thread_messages("t")]

    def whole(got) -> None:
        assert got == [("1", '{"type":"x.future","n":1}'), ("2", '{"type":"x.future","n":2}')]

    _every_cut(response, call, whole)


def test_a_cut_after_the_status_line_raises_not_a_result_with_no_body() -> None:
    for cut in (b"HTTP/1.1 200 OK\r\n", b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-le",
                b"HTTP/1.1 200 OK"):
        server = ScriptedServer([cut])
        try:
            with pytest.raises(TransportError) as caught:
                Client(server.url).request("GET", "/runs/run_1")
            assert not caught.value.permanent  # a cut is retried
        finally:
            server.close()


def test_follow_cli_retries_a_cut_get_run() -> None:
    # --until-canonicalized reads the run first: a cut answer is retried like any transport failure, and the
    # answer after it is used (here: the run is of another thread, so the CLI refuses it with exit 1).
    whole = _with_length(_json_body(RUN))
    server = ScriptedServer([b"HTTP/1.1 200 OK\r\n", whole[:120], whole])
    try:
        done = subprocess.run([sys.executable, "-m", "agentlane", "follow", server.url, "my-thread",
                               "--until-canonicalized", "run_1", "--give-up-after", "20"],
                              cwd=PYTHON_ROOT, capture_output=True, text=True, timeout=60)
    finally:
        server.close()
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0] == f"agentlane: cannot reach {server.url}: connection closed mid-response (in its head); retrying"
    assert lines[-1] == "agentlane: run run_1 is of thread other-thread, not my-thread: it can never be canonicalized on this stream"
    assert server.connections == 3
