"""One session, three turns: the TypeScript built-in engine, then the Python runtime resuming from the latest
checkpoint in the server's database, then the TypeScript engine again after the Python turn."""

from __future__ import annotations

import pathlib

from agentlane.canonical import canonical_json
from agentlane.checkpoints import CheckpointTables, fingerprint_checkpoint, session_state_of
from agentlane.events import RunStatus
from agentlane.ids import ulid
from agentlane.ledger import AuditLedger
from agentlane.runtime.tools import Workspace
from agentlane.runtime.turn import TurnConfig, history_of, run_turn
from agentlane.sql import open_database
from conftest import ts_oracle


def ts_turn(client, sid: str, prompt: str) -> str:
    events = list(client.execute(sid, prompt))
    return next(e.run_id for e in events if isinstance(e, RunStatus))


def test_ts_python_ts(client, server, model_proxy, tmp_path: pathlib.Path) -> None:
    sid = client.create_session("builtin")["id"]
    first_run = ts_turn(client, sid, "first, on TypeScript")

    db = open_database(str(server.db_path))
    tables, ledger = CheckpointTables(db), AuditLedger(db)
    try:
        previous = tables.latest(sid)
        assert previous is not None
        before = len(model_proxy.requests)
        python_run = f"run_py_{ulid()}"
        result = run_turn(TurnConfig(
            thread_id=sid, turn_id=python_run, prompt="second, on Python", model="fake-model",
            base_url=model_proxy.url + "/v1", api_key="python-test-key", workspace=Workspace(tmp_path),
            previous=previous, ids=ulid, generation=2,
        ))
        assert result.outcome == {"outcome": "completed"}
        # The Python turn told the model the whole first turn, as the TypeScript engine would have.
        sent = model_proxy.requests[before]["body"]["messages"][1:]
        assert sent == history_of(session_state_of(previous)["conversation"]) + [{"role": "user", "content": "second, on Python"}]
        for checkpoint in result.checkpoints:
            tables.put(checkpoint)
        assert ledger.record(result.ledger_rows) == len(result.ledger_rows)

        before = len(model_proxy.requests)
        third_run = ts_turn(client, sid, "third, on TypeScript")
        # The TypeScript engine resumed from the Python turn's checkpoint: it sends the Python turn too.
        third = model_proxy.requests[before]["body"]["messages"][1:]
        python_state = session_state_of(result.checkpoints[-1])
        assert third == history_of(python_state["conversation"]) + [{"role": "user", "content": "third, on TypeScript"}]

        # Every checkpoint of the session fingerprints the same in both runtimes.
        ids = [cid for _, cid in tables.ids(sid)]
        (theirs,) = ts_oracle([["saver", {"op": "read", "db": str(server.db_path), "refs": [[sid, c] for c in ids]}]])
        mine = [tables.get(sid, c) for c in ids]
        assert [fingerprint_checkpoint(c) for c in mine] == [t["fingerprint"] for t in theirs]
        assert [canonical_json(c) for c in mine] == [t["canonical"] for t in theirs]
        latest = session_state_of(mine[-1])
        users = [m["parts"][0]["text"] for m in latest["conversation"] if m["role"] == "user"]
        assert users == ["first, on TypeScript", "second, on Python", "third, on TypeScript"]

        # The ledger holds the three turns' rows in one ordered sequence.
        rows = client.all_audit(sid)
        turns = [r["turn_id"] for r in rows]
        assert turns == sorted(turns, key=[first_run, python_run, third_run].index)
        assert set(turns) == {first_run, python_run, third_run}
        assert [canonical_json(r) for r in rows if r["turn_id"] == python_run] == [canonical_json(r) for r in result.ledger_rows]
    finally:
        db.close()
