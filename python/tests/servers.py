"""Real processes for the tests: `agentlane serve` and the fake model server, started and killed by pid."""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from conftest import REPO

# The tests run the TypeScript sources (tsx, with the workspace packages' `agentlane-source` export), not dist/.
NODE_SOURCE = ["node", "--conditions=agentlane-source", "--import", "tsx"]
CLI = REPO / "packages" / "cli" / "src" / "main.ts"
FAKE_CLI = REPO / "testing" / "fake-model-server" / "src" / "cli.ts"


@dataclass
class Process:
    proc: subprocess.Popen
    url: str
    output: list[str] = field(default_factory=list)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _start(args: list[str], pattern: str, timeout: float = 90) -> Process:
    proc = subprocess.Popen(
        args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "NO_COLOR": "1"}
    )
    lines: list[str] = []
    found: dict[str, str] = {}
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            match = re.search(pattern, line)
            if match and not ready.is_set():
                found["url"] = match.group(1)
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not ready.wait(0.1):
        if time.monotonic() > deadline:
            break
    if "url" not in found:
        proc.kill()
        proc.wait()
        raise RuntimeError(f"{args[4:6]} did not start:\n{''.join(lines)}")
    return Process(proc, found["url"], lines)


def start_fake_model(*extra: str) -> Process:
    return _start([*NODE_SOURCE, str(FAKE_CLI), "--port", "0", *extra], r"listening on (http://\S+)")


def start_server(data_dir: pathlib.Path, *, config: dict | None = None, db: str | None = None) -> Process:
    args = [*NODE_SOURCE, str(CLI), "serve", "--port", "0", "--data-dir", str(data_dir)]
    if db:
        args += ["--db", db]
    if config is not None:
        path = data_dir / "agentlane.json"
        data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config))
        args += ["--config", str(path)]
    return _start(args, r"listening on (http://127\.0\.0\.1:\d+)")


def builtin_config(fake_url: str, work_dir: pathlib.Path, *, plan: bool = False) -> dict:
    """One built-in engine on the fake model server's Chat Completions API and one external engine (the
    Python runtime's turns), next to the recorded replays."""
    return {
        "workDir": str(work_dir),
        "engines": [
            {
                "name": "builtin",
                "type": "builtin",
                "api": "openai-chat",
                "model": "fake-model",
                "baseURL": f"{fake_url}/v1",
                "apiKey": "python-test-key",
                "plan": plan,
            },
            # Turns run by this package's runtime, added through POST /runs/:id/events.
            {"name": "python", "type": "external", "label": "The Python runtime"},
        ],
    }


class RecordingProxy:
    """Forwards HTTP requests to the fake model server and keeps every request body, so a test sees the
    whole history each runtime sent to the model."""

    def __init__(self, upstream: str) -> None:
        import http.client
        import http.server
        import urllib.parse

        self.requests: list[dict] = []
        target = urllib.parse.urlsplit(upstream)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                outer.requests.append({"path": self.path, "body": json.loads(body or b"null")})
                conn = http.client.HTTPConnection(target.netloc, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                conn.request("POST", self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                        self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            def log_message(self, *args) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
