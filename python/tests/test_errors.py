"""User errors and transport failures: one line on stderr and a non-zero exit, typed exceptions in the library."""

from __future__ import annotations

import json
import shutil
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


def test_a_base_url_is_an_origin_only() -> None:
    # README: anything but http(s)://host[:port] is refused; with a path the client asked
    # /api/harness/api/harness/..., a query or fragment was dropped without a word.
    for url in ("http://127.0.0.1:7622/api/harness", "http://127.0.0.1:7622/x/", "http://127.0.0.1:7622?a=1",
                "http://127.0.0.1:7622/?", "http://127.0.0.1:7622#top", "https://h/p?q#f"):
        with pytest.raises(ValueError, match="without a path, query or fragment"):
            Client(url)
    assert Client("http://127.0.0.1:7622/").origin == "http://127.0.0.1:7622"  # a trailing / alone is the origin


def test_credentials_in_a_base_url_are_refused_and_never_shown() -> None:
    for url in ("http://user:pw-s3cret@127.0.0.1:7622", "https://pw-s3cret@h", "http://u:pw-s3cret@h:99999",
                "ftp://u:pw-s3cret@h", "http://u:pw-s3cret/x@h", "http://u:pw-s3cret@h/path"):
        with pytest.raises(ValueError) as caught:
            Client(url)
        assert "s3cret" not in str(caught.value), str(caught.value)
    with pytest.raises(ValueError) as caught:
        Client("http://user:pw-s3cret@127.0.0.1:7622")
    assert "'http://***@127.0.0.1:7622'" in str(caught.value) and "credentials" in str(caught.value)


def test_a_token_that_cannot_be_a_header_is_refused_and_never_shown() -> None:
    for token in ("a\r\nX-Evil: 1", "tok en", "tök", "tab\there", "nul\0"):
        with pytest.raises(ValueError) as caught:
            Client("http://127.0.0.1:1", token=token)
        assert token not in str(caught.value) and "token" in str(caught.value)
    Client("http://127.0.0.1:1", token="admin-token-0123456789abcdef+/=~._")  # b64token characters pass


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
                 ["http://127.0.0.1:1", "t", "--after", "-3"], ["http://127.0.0.1:1/api/harness", "t"],
                 ["http://127.0.0.1:1?x=1", "t"], ["http://127.0.0.1:1#f", "t"]):
        done = _cli("agentlane", "follow", *args)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stderr.strip().splitlines()[-1].startswith("python -m agentlane follow: error: ")


def test_cli_refuses_a_password_or_a_bad_token_without_printing_it() -> None:
    url = _refused_url().replace("http://", "http://user:pw-s3cret@")
    done = _cli("agentlane", "follow", url, "t", "--max-seconds", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "s3cret" not in done.stderr + done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("python -m agentlane follow: error: ") and "http://***@127.0.0.1:" in last, last
    done = _cli("agentlane", "follow", _refused_url(), "t", "--token", "tok-s3cret\r\nX-Evil: 1", "--max-seconds", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "s3cret" not in done.stderr + done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("python -m agentlane follow: error: ") and "not a valid bearer token" in last, last


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


def test_conformance_names_a_file_that_is_not_a_corpus_turn(tmp_path) -> None:
    # JSON files that are not turns (an OpenAPI document, an API answer) used to end in `KeyError: 'name'`.
    (tmp_path / "openapi.json").write_text(json.dumps({"openapi": "3.1.0", "paths": {}}), "utf-8")
    done = _cli("agentlane.conformance", "--corpus", str(tmp_path))
    assert done.returncode == 1 and done.stdout == ""
    line = _one_line(done).strip()
    assert line.startswith(f"agentlane: --corpus {tmp_path / 'openapi.json'}: not a corpus turn: missing ")
    assert "name" in line and "input" in line and "ledgerRows" in line and "fingerprint" in line
    (tmp_path / "openapi.json").unlink()
    for path in CORPUS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    turn = json.loads((tmp_path / "step-limit.json").read_text("utf-8"))
    del turn["input"]["engine"]["api"]
    turn["events"][0] = "not an event"
    (tmp_path / "step-limit.json").write_text(json.dumps(turn), "utf-8")
    done = _cli("agentlane.conformance", "--corpus", str(tmp_path), timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert _one_line(done).strip() == (f"agentlane: --corpus {tmp_path / 'step-limit.json'}: not a corpus turn: "
                                       "missing input.engine.api; events[0] is not an object")
    (tmp_path / "step-limit.json").write_text("[1, 2]", "utf-8")
    done = _cli("agentlane.conformance", "--corpus", str(tmp_path), timeout=120)
    assert done.returncode == 1 and "step-limit.json: not a corpus turn: the file holds list" in _one_line(done)


def test_conformance_never_prints_a_database_password(tmp_path) -> None:
    done = _cli("agentlane.conformance", "--corpus", str(CORPUS), "--db",
                "postgres://user:pw-s3cret@127.0.0.1:1/agentlane", timeout=120)
    assert done.returncode == 1 and "s3cret" not in done.stderr + done.stdout
    assert "--db postgres://***@127.0.0.1:1/agentlane: " in _one_line(done)
    done = _cli("agentlane.conformance", "--corpus", str(CORPUS), "--server", "http://127.0.0.1:1",
                "--token", "tok-s3cret\nX: 1")
    assert done.returncode == 2 and "s3cret" not in done.stderr and "--token: " in done.stderr
