"""Shared test helpers: where the repository's fixtures live, and the TypeScript side run as a black box."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading
from typing import Any

import pytest

PYTHON_ROOT = pathlib.Path(__file__).resolve().parent.parent
REPO = PYTHON_ROOT.parent
CORPUS = REPO / "testing" / "corpus-recorder" / "fixtures" / "corpus"
CONTRACT_FIXTURES = REPO / "packages" / "contract" / "test" / "fixtures"
ORACLE = pathlib.Path(__file__).resolve().parent / "ts" / "oracle.mjs"
IN_CI = os.environ.get("CI") == "true"

# Debian's python3-psycopg installs into the system Python's dist-packages; a pyenv CPython of the same
# minor version can import it from there (psycopg is pure Python over libpq).
try:
    import psycopg  # noqa: F401
except ImportError:
    import sys

    if pathlib.Path("/usr/lib/python3/dist-packages/psycopg").is_dir():
        sys.path.append("/usr/lib/python3/dist-packages")


def corpus_turns() -> list[dict]:
    return [json.loads(p.read_text("utf-8")) for p in sorted(CORPUS.glob("*.json"))]


def need(condition: bool, reason: str) -> None:
    """Skip with a printed reason, except under CI=true where a missing prerequisite is a failure."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI=true: {reason}")
    pytest.skip(reason)


_oracle: subprocess.Popen | None = None


def ts_oracle(calls: list[list[Any]]) -> list[Any]:
    """Evaluates [op, ...args] calls with @agentlane/contract's exported functions (one node process per session)."""
    global _oracle
    need(shutil.which("node") is not None, "node is not on PATH")
    if _oracle is None or _oracle.poll() is not None:
        _oracle = subprocess.Popen(
            ["node", "--conditions=agentlane-source", "--import", "tsx", str(ORACLE)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
    assert _oracle.stdin is not None and _oracle.stdout is not None
    _oracle.stdin.write(json.dumps(calls) + "\n")
    _oracle.stdin.flush()
    line = _oracle.stdout.readline()
    if not line:
        raise AssertionError("the TypeScript oracle exited")
    return json.loads(line)


def pytest_sessionfinish(session, exitstatus) -> None:
    _servers.stop()
    if _oracle is not None and _oracle.poll() is None:
        _oracle.stdin.close()
        _oracle.wait(timeout=10)


class _Servers:
    """The fake model server and one real `agentlane serve` (SQLite: the built-in engine on the fake model,
    and the recorded replays), started in a background thread as soon as collection shows a test needs
    them, so their start-up (≈15 s on a busy machine) overlaps the tests that need no server."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.fake = self.server = self.proxy = None
        self.error: BaseException | None = None
        self.data = pathlib.Path(tempfile.mkdtemp(prefix="agentlane-py-"))

    def start(self) -> None:
        if self.thread is None and shutil.which("node") is not None:
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()

    def _run(self) -> None:
        from servers import RecordingProxy, builtin_config, start_fake_model, start_server

        try:
            self.fake = start_fake_model("--scenario", "answer", "--text", "Hello from the fake model.")
            self.proxy = RecordingProxy(self.fake.url)
            work = self.data / "workspace"
            work.mkdir()
            self.server = start_server(self.data, config=builtin_config(self.proxy.url, work))
            self.server.db_path = self.data / "agentlane.db"
        except BaseException as error:  # reported by the fixture that waits for it
            self.error = error

    def wait(self):
        need(shutil.which("node") is not None, "node is not on PATH")
        self.start()
        assert self.thread is not None
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self

    def stop(self) -> None:
        for process in (self.server, self.proxy, self.fake):
            if process is not None:
                process.stop()
        shutil.rmtree(self.data, ignore_errors=True)


_servers = _Servers()


def pytest_collection_finish(session) -> None:
    if any({"server", "fake_model", "client"} & set(getattr(item, "fixturenames", ())) for item in session.items):
        _servers.start()


@pytest.fixture(scope="session")
def fake_model():
    return _servers.wait().fake


@pytest.fixture(scope="session")
def server():
    return _servers.wait().server


@pytest.fixture(scope="session")
def model_proxy():
    """Every request the built-in engines (both runtimes) sent to the fake model, through a recording proxy."""
    return _servers.wait().proxy


@pytest.fixture(scope="session")
def client(server):
    from agentlane.client import Client

    return Client(server.url)


@pytest.fixture(scope="session")
def openapi(client) -> dict:
    return client.request("GET", "/openapi.json").body


PG_URL = os.environ.get("AGENTLANE_TEST_PG", "postgresql://root@127.0.0.1:5432/test")


@pytest.fixture
def pg_schema():
    """(url, a fresh schema name) on the shared PostgreSQL; every schema starting with that name is dropped after."""
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=3).close()
    except Exception as error:  # noqa: BLE001 - any failure means "no PostgreSQL here"
        need(False, f"PostgreSQL at {PG_URL} is not reachable ({type(error).__name__}: {error})")
    import uuid

    schema = f"py_{uuid.uuid4().hex[:12]}"
    yield PG_URL, schema
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for (name,) in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (schema + "%",)).fetchall():
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
