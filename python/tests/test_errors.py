"""User errors and transport failures: one line on stderr and a non-zero exit, typed exceptions in the library."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest

from agentlane.client import Client, StreamInterrupted, TransportError
from agentlane.events import RunCanonicalized
from agentlane.follow import FollowStats, follow_thread
from conftest import CORPUS, PYTHON_ROOT


def _refused_url() -> str:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _cli(module: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=PYTHON_ROOT, capture_output=True, text=True,
                          timeout=timeout)


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines and all(line.startswith("agentlane: ") for line in lines), done.stderr
    return done.stderr


class _OneShotServer:
    """Accepts connections and answers each with `reply` bytes, then closes it (optionally without ending)."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.recv(65536)
                    conn.sendall(self.reply)
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # the client hung up first (a TLS client on a plain port does)

    def close(self) -> None:
        self._listener.close()


def _sse_cut_after(*frames: tuple[int, str]) -> bytes:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    body = b""
    for seq, data in frames:
        chunk = f"id: {seq}\ndata: {data}\n\n".encode()
        body += f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    return head + body  # no terminating 0-chunk: the server died mid-stream


# -- the library


def test_a_refused_connection_is_a_transport_error() -> None:
    url = _refused_url()
    with pytest.raises(TransportError) as caught:
        Client(url).health()
    assert isinstance(caught.value, ConnectionError) and caught.value.reason == "connection refused"
    assert not caught.value.permanent and caught.value.url == url


def test_follow_raises_when_max_connections_is_used_up_without_connecting() -> None:
    heard: list[TransportError] = []
    stats = FollowStats()
    with pytest.raises(TransportError) as caught:
        list(follow_thread(Client(_refused_url()), "x", after=4, max_connections=3, stats=stats, on_error=heard.append))
    assert stats.connections == 3 and len(heard) == 3
    assert caught.value.delivery_seq == 4  # where a caller resumes


def test_follow_gives_up_after_give_up_after_and_returns_at_stop_at_while_failing() -> None:
    # Run beside the test so a follower that never gives up fails it instead of hanging it (no timed assertion).
    raised: list[BaseException] = []

    def follow() -> None:
        try:
            list(follow_thread(Client(_refused_url()), "x", give_up_after=0.5))
        except BaseException as err:  # noqa: BLE001 - the test inspects what was raised
            raised.append(err)

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    follower.join(timeout=60)
    assert not follower.is_alive(), "follow_thread never gave up"
    assert len(raised) == 1 and isinstance(raised[0], TransportError)
    stats = FollowStats()
    assert list(follow_thread(Client(_refused_url()), "x", stats=stats, stop_at=time.monotonic() + 0.5)) == []
    assert isinstance(stats.last_error, TransportError)


def test_a_stream_cut_midway_raises_stream_interrupted_with_the_last_id() -> None:
    server = _OneShotServer(_sse_cut_after((1, '{"type":"x.future"}'), (2, '{"type":"x.future"}')))
    try:
        client = Client(server.url)
        with pytest.raises(StreamInterrupted) as caught:
            list(client.thread_messages("t"))
        assert caught.value.delivery_seq == 2 and caught.value.last_event_id == "2"
        with pytest.raises(StreamInterrupted) as caught:
            list(client.execute("s", "hello"))  # unknown types are skipped; the cut is still reported
        assert caught.value.delivery_seq == 2 and isinstance(caught.value, TransportError)
    finally:
        server.close()


def test_bad_base_urls_are_value_errors() -> None:
    for url in ("notaurl", "http://127.0.0.1:99999", "http://h:abc", "http://:80"):
        with pytest.raises(ValueError):
            Client(url)


# -- the follow CLI


def test_cli_says_it_cannot_reach_and_exits_1() -> None:
    url = _refused_url()
    done = _cli("agentlane", "follow", url, "t", "--max-seconds", "1")
    assert done.returncode == 1 and done.stdout == ""
    assert f"agentlane: cannot reach {url}: connection refused; retrying" in _one_line(done)
    done = _cli("agentlane", "follow", url, "t", "--give-up-after", "0.5")  # no --max-seconds: it gives up
    assert done.returncode == 1 and "gave up after 0.5 s" in _one_line(done)
    done = _cli("agentlane", "follow", url, "t", "--until-canonicalized", "r", "--max-seconds", "1")
    assert done.returncode == 1 and "ran out before run r was canonicalized" in _one_line(done)


def test_cli_permanent_errors_exit_1_at_once() -> None:
    plain = _OneShotServer(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
    try:
        done = _cli("agentlane", "follow", plain.url.replace("http://", "https://"), "t", timeout=20)
    finally:
        plain.close()
    assert done.returncode == 1 and "TLS handshake failed" in _one_line(done)


def test_cli_usage_errors_exit_2_without_a_traceback() -> None:
    for args in (["notaurl", "t"], ["http://127.0.0.1:99999", "t"], ["http://127.0.0.1:1", "t", "--max-seconds", "-1"],
                 ["http://127.0.0.1:1", "t", "--after", "-3"]):
        done = _cli("agentlane", "follow", *args)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stderr.strip().splitlines()[-1].startswith("python -m agentlane follow: error: ")


def test_cli_until_canonicalized_of_another_threads_run_is_refused(client, server) -> None:
    mine = client.create_session("replay-opencode")["id"]
    other = client.create_session("replay-opencode")["id"]
    run_id = next(e.run_id for e in client.execute(other, "hello") if isinstance(e, RunCanonicalized))
    done = _cli("agentlane", "follow", server.url, mine, "--until-canonicalized", run_id, "--max-seconds", "5")
    assert done.returncode == 1 and f"run {run_id} is of thread {other}, not {mine}" in _one_line(done)


# -- the conformance CLI


def test_conformance_db_errors_are_one_line_and_create_nothing(tmp_path) -> None:
    (tmp_path / "junk.db").write_text("not a database")
    new = tmp_path / "new.db"
    for db, says in ((tmp_path, "not a file"), (tmp_path / "junk.db", "file is not a database"),
                     (new, "no such file"), (tmp_path / "missing" / "x.db", "no such file")):
        done = _cli("agentlane.conformance", "--corpus", str(CORPUS), "--db", str(db), timeout=120)
        assert done.returncode == 1 and says in _one_line(done), done.stderr
    assert not new.exists()
    done = _cli("agentlane.conformance", "--corpus", str(tmp_path / "nope"))
    assert done.returncode == 1 and "no such directory" in _one_line(done)
