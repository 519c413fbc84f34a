"""No secret in what a Python turn records: the API key, a workspace secret and a Bearer token planted in the
model's streamed answer (cut at every position), a tool's input and output, a tool error and a model error
are in no event draft, ledger row or published request, `[REDACTED]` is; a turn without secrets records
exactly what it recorded before redaction existed; every draft and row still fits the schema bundle."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from agentlane.canonical import canonical_json
from agentlane.runtime import turn as turn_module
from agentlane.runtime.publish import run_on_server
from agentlane.runtime.redaction import MIN_HELD, REDACTED
from agentlane.runtime.tools import Workspace
from agentlane.runtime.turn import Clock, TurnConfig, TurnFailed, run_turn
from agentlane.schema import validate
from scripted_model import ScriptedModel, call, error, text

API_KEY = "sk-turn-key-0123456789"
WS_SECRET = "ws-secret-value-42"
TOKEN = "tok_live.abcd1234"
SECRETS = (API_KEY, WS_SECRET, TOKEN)
LET_OUT = re.compile("|".join(re.escape(API_KEY[:n]) for n in range(MIN_HELD - 1, 0, -1)) + r"(?=\[REDACTED\])")


class Recorder:
    """A listener: what run_on_server's publisher would be handed."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.rows: list[dict] = []

    def event(self, draft: dict) -> None:
        self.events.append(draft)

    def row(self, row: dict) -> None:
        self.rows.append(row)

    def flush(self) -> None:
        pass


def _config(model: ScriptedModel, root: pathlib.Path, prompt: str = "hi", listener=None) -> TurnConfig:
    workspace = Workspace(root)
    workspace.secrets.add(WS_SECRET)
    return TurnConfig(thread_id="thr_1", turn_id="turn_1", prompt=prompt, model="m", base_url=model.url,
                      workspace=workspace, api_key=API_KEY, listener=listener,
                      frame_clock=Clock("2026-01-01T00:00:00.000Z", 10))


def _run(answers: list[dict], root: pathlib.Path, prompt: str = "hi"):
    model, recorder = ScriptedModel(answers), Recorder()
    try:
        return run_turn(_config(model, root, prompt, recorder)), recorder
    finally:
        model.close()


def _assert_clean(events: list[dict], rows: list[dict], *extra) -> str:
    everything = json.dumps([events, rows, *extra], ensure_ascii=False)
    assert not [s for s in SECRETS if s in everything]
    for e in events:
        assert validate("CanonicalEventDraft", {"kind": e["kind"], "payload": e["payload"]}) == [], e
    for r in rows:
        assert validate("AuditableCall", r) == [], r
    return everything


def _of(events: list[dict], kind: str) -> list[dict]:
    return [e["payload"] for e in events if e["kind"] == kind]


@pytest.mark.parametrize("cut", range(len(API_KEY) + 1))
def test_secrets_split_across_streamed_pieces(tmp_path: pathlib.Path, cut: int) -> None:
    t = cut % (len(TOKEN) + 1)
    pieces = [f"Key {API_KEY[:cut]}", f"{API_KEY[cut:]}, header Bearer {TOKEN[:t]}", f"{TOKEN[t:]} and {WS_SECRET} done."]
    result, recorder = _run([text(*pieces)], tmp_path)
    _assert_clean(result.events, result.ledger_rows)
    assert recorder.events == result.events and recorder.rows == result.ledger_rows
    want = f"Key {REDACTED}, header Bearer {REDACTED} and {REDACTED} done."
    assert _of(result.events, "message.completed")[0]["text"] == want
    assert result.ledger_rows[0]["payload"]["response"]["textPreview"] == want
    deltas = _of(result.events, "message.delta")
    assert LET_OUT.sub("", "".join(d["delta"] for d in deltas)) == want
    # Each delta's key offset is the length of what the deltas before it showed.
    keys = [e["key"] for e in result.events if e["kind"] == "message.delta"]
    assert keys == [f"message.delta:msg-1-txt-0:{len(''.join(d['delta'] for d in deltas[:i]))}" for i in range(len(deltas))]


def test_secrets_in_a_tools_input_and_output(tmp_path: pathlib.Path) -> None:
    (tmp_path / "secret.txt").write_text(f"key={API_KEY}\nAuthorization: Bearer {TOKEN}\n{WS_SECRET}\n")
    answers = [
        call("c1", "run_command", '{"command":"cat secret.txt; echo ' + API_KEY[:9], API_KEY[9:] + '"}'),
        call("c2", "read_file", '{"path":"secret.txt"}'),
        text("done"),
    ]
    result, _ = _run(answers, tmp_path)
    everything = _assert_clean(result.events, result.ledger_rows)
    outputs = _of(result.events, "tool.completed")
    assert outputs[0]["output"]["output"] == f"key={REDACTED}\nAuthorization: {REDACTED}\n{REDACTED}\n{REDACTED}\n"
    assert outputs[1]["output"] == f"key={REDACTED}\nAuthorization: {REDACTED}\n{REDACTED}\n"
    assert _of(result.events, "approval.requested")[0]["title"] == f"Run cat secret.txt; echo {REDACTED}"
    assert "".join(p.get("inputDelta", "") for p in _of(result.events, "tool.progress")[:3]).endswith(f"echo {REDACTED}\"}}")
    assert everything.count(REDACTED) >= 10


def test_secrets_in_a_tool_error_a_model_error_and_the_prompt(tmp_path: pathlib.Path) -> None:
    answers = [call("c1", "read_file", '{"path":"' + API_KEY + '"}'),
               error(401, '{"error":"bad key; you sent authorization: {auth}"}')]
    model, recorder = ScriptedModel(answers), Recorder()
    with pytest.raises(TurnFailed) as failed:
        run_turn(_config(model, tmp_path, f"use {WS_SECRET}", recorder))
    model.close()
    assert str(failed.value) == 'model server answered 401: {"error":"bad key; you sent authorization: [REDACTED]"}'
    assert failed.value.__suppress_context__
    everything = _assert_clean(recorder.events, recorder.rows)
    assert _of(recorder.events, "tool.completed")[0]["error"] == f"{REDACTED} is not a file"
    assert recorder.rows[1]["payload"]["error"] == f"{REDACTED} is not a file"
    assert _of(recorder.events, "turn.started")[0]["prompt"] == f"use {REDACTED}"
    assert f"use {REDACTED}" in everything


class FakeServer:
    """The two routes run_on_server uses, recording what it sends."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.requests: list[dict] = []

    def create_run(self, thread_id: str, prompt: str):
        self.prompts.append(prompt)
        return {"runId": "run_1"}, None

    def add_events(self, run_id: str, *, events=None, audit=None, end=None) -> dict:
        self.requests.append({"events": events or [], "audit": audit or [], "end": end})
        return {"frames": len(events or []) + len(audit or [])}


def test_what_is_published_to_the_server(tmp_path: pathlib.Path) -> None:
    answers = [text(f"k={API_KEY[:3]}", f"{API_KEY[3:]}!"), error(500, "echo: {auth}")]
    server = FakeServer()
    model = ScriptedModel(answers)
    try:
        run_on_server(server, "thr_1", _config(model, tmp_path, f"prompt {API_KEY}"))
        config = _config(model, tmp_path, f"x-api-key: {WS_SECRET}")
        with pytest.raises(TurnFailed):
            run_on_server(server, "thr_1", config)
    finally:
        model.close()
    events = [e for r in server.requests for e in r["events"]]
    rows = [row for r in server.requests for row in r["audit"]]
    ends = [r["end"] for r in server.requests if r["end"]]
    _assert_clean(events, rows, server.prompts, ends)
    assert server.prompts == [f"prompt {REDACTED}", f"x-api-key: {REDACTED}"]
    assert ends == [{"outcome": "completed"}, {"outcome": "failed", "error": f"model server answered 500: echo: Bearer {REDACTED}"}]
    assert _of(events, "message.completed")[0]["text"] == f"k={REDACTED}!"


class _NoRedaction:
    """Redaction switched off: what the turn recorded before it existed."""

    def __init__(self, secrets=()) -> None:
        pass

    def text(self, s):
        return s

    def json(self, v):
        return v

    def stream(self):
        return type("S", (), {"push": lambda self, p: p, "flush": lambda self: ""})()


def test_a_turn_without_secrets_records_what_it_did_before(tmp_path: pathlib.Path, monkeypatch) -> None:
    # Near misses: `bearer` in prose, credential words without a value, a key's first 5 characters at a cut.
    answers = [call("c1", "run_command", '{"command":"echo a bearer of news;', ' echo api keys"}'),
               text("A bearer ", "of news: api keys ", "and an authorization header. sk-tu", "rn done. Ünï 😀")]

    def recorded() -> list[str]:
        result, _ = _run(list(answers), tmp_path)
        events = [{**e, "payload": {k: v for k, v in e["payload"].items() if k != "durationMs"}} for e in result.events]
        rows = [{k: v for k, v in r.items() if k != "latency_ms"} for r in result.ledger_rows]
        return [canonical_json(x) for x in [*events, *rows, *result.checkpoints]]

    redacted = recorded()
    monkeypatch.setattr(turn_module, "Redactor", _NoRedaction)
    assert recorded() == redacted
    assert REDACTED not in "".join(redacted) and len(redacted) > 20
