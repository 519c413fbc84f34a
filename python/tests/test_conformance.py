"""The conformance report: all shapes pass on the corpus, a live server and its database; a broken corpus fails."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import CORPUS, PYTHON_ROOT


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agentlane.conformance", *args], cwd=PYTHON_ROOT,
                          capture_output=True, text=True, timeout=120)


def test_passes_on_corpus_server_and_db(client, server) -> None:
    sid = client.create_session("builtin")["id"]
    list(client.execute(sid, "a turn for the conformance report"))
    done = run("--corpus", str(CORPUS), "--server", server.url, "--db", str(server.db_path))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for shape in ("wire", "events", "canonical JSON", "vectors", "checkpoints", "ledger", "runtime"):
        assert any(line.startswith(f"PASS {shape}:") for line in lines), done.stdout
    assert lines[-1] == "conformance: OK"


def test_fails_on_a_broken_corpus(tmp_path) -> None:
    for path in CORPUS.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    turn = json.loads((tmp_path / "plain-answer.json").read_text("utf-8"))
    turn["fingerprint"] = "0" * 64
    turn["ledgerRows"][0]["status"] = "maybe"
    (tmp_path / "plain-answer.json").write_text(json.dumps(turn), "utf-8")
    done = run("--corpus", str(tmp_path))
    assert done.returncode == 1
    assert "FAIL canonical JSON" in done.stdout and "FAIL ledger" in done.stdout and "FAIL runtime" in done.stdout
    assert done.stdout.splitlines()[-1] == "conformance: FAILED"
