"""Runs a Python turn as a run of an agentlane server's `external` engine, so every agentlane client sees it.

The run is created like any run (`POST /threads/:id/runs`); the turn's event drafts and ledger rows go to
the server through `POST /runs/:id/events` as they happen (a batch after each model call, tool call and
stage), and the last request ends the turn. The server stores them as the run's source frames: eventIds
come from the drafts' keys (ev_ + sha256(runId, NUL, key)), the run gets `run.status`, its rows become final
with `run.canonicalized`, and the rows are in the server's ledger (`GET /sessions/:id/audit`).
"""

from __future__ import annotations

import dataclasses

from ..client import Client
from .redaction import Redactor
from .turn import TurnConfig, TurnResult, run_turn


class ServerPublisher:
    """Buffers a turn's drafts and rows and sends them in order; `batch` bounds one request's items."""

    def __init__(self, client: Client, run_id: str, *, batch: int = 200) -> None:
        self.client, self.run_id, self.batch = client, run_id, batch
        self.events: list[dict] = []
        self.rows: list[dict] = []
        self.sent = 0

    def event(self, draft: dict) -> None:
        self.events.append(draft)
        if len(self.events) >= self.batch:
            self.flush()

    def row(self, row: dict) -> None:
        self.rows.append(row)

    def flush(self, end: dict | None = None) -> None:
        if not (self.events or self.rows or end):
            return
        events, rows = self.events[: self.batch], self.rows[: self.batch]
        self.events, self.rows = self.events[len(events):], self.rows[len(rows):]
        last = end if not (self.events or self.rows) else None
        answer = self.client.add_events(self.run_id, events=events or None, audit=rows or None, end=last)
        self.sent += answer["frames"]
        if self.events or self.rows or (end and last is None):
            self.flush(end)


def run_on_server(client: Client, thread_id: str, config: TurnConfig) -> tuple[str, TurnResult]:
    """Creates a run on the thread (whose engine must be of type external), runs the turn as that run (its
    turn id is the run id) and publishes it; a turn that raises ends the run failed. Returns (run id, result)."""
    # The drafts and rows come redacted from the turn; the run's prompt and error are sent from here.
    redactor = Redactor([config.api_key, *config.workspace.secrets])
    run, _ = client.create_run(thread_id, redactor.text(config.prompt))
    run_id = run["runId"]
    publisher = ServerPublisher(client, run_id)
    turn = dataclasses.replace(config, thread_id=thread_id, turn_id=run_id, listener=publisher)
    try:
        result = run_turn(turn)
    except Exception as error:
        message = redactor.text(str(error))  # cut after redacting: a cut cannot hide a secret from the rules
        publisher.flush({"outcome": "failed", "error": message[:10_000]})
        raise
    publisher.flush({"outcome": "completed"})
    return run_id, result
