"""The append-only audit ledger (harness_auditable_calls): append AuditableCall rows, read them back.

Idempotent on (session_id, turn_id, stage_id, seq_within_turn): a retried append is a no-op. There is no
update or delete here, and the database refuses both (its triggers), as the contract requires.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from .schema import validate
from .sql import Database

COLUMNS = (
    "record_id", "audit_record_version", "session_id", "turn_id", "stage_id", "seq_within_turn", "created_at",
    "actor_kind", "session_auth_method", "call_class", "provider", "model", "transport", "status", "latency_ms",
    "finish_reason", "http_status", "payload",
)


class LedgerError(ValueError):
    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.field = code, field


class AuditLedger:
    """Over tables the TypeScript ledger created (SQLite file or PostgreSQL schema)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, rows: Iterable[dict]) -> int:
        """Appends rows in one transaction; returns how many were new (an existing key is skipped)."""
        rows = list(rows)
        for i, row in enumerate(rows):
            issues = validate("AuditableCall", row)
            if issues:
                raise LedgerError("invalid_row", f"row {i}: {issues[0].path} {issues[0].message}", issues[0].path)
        is_pg = self.db.placeholder == "%s"
        values = ", ".join(
            f"{self.db.placeholder}::jsonb" if (is_pg and c == "payload") else self.db.placeholder for c in COLUMNS
        )
        # ON CONFLICT DO NOTHING: the idempotency key (and record_id) are UNIQUE, so a retry inserts nothing.
        sql = f"INSERT INTO {self.db.table('harness_auditable_calls')} ({', '.join(COLUMNS)}) VALUES ({values}) ON CONFLICT DO NOTHING"
        inserted = 0
        with self.db.transaction():
            for row in rows:
                params = [row[c] for c in COLUMNS]
                params[-1] = json.dumps(row["payload"], ensure_ascii=False, separators=(",", ":"))
                inserted += max(self.db.execute(sql, params), 0)
        return inserted

    def list(self, session_id: str) -> list[dict]:
        """The session's rows in the order they were written."""
        rows = self.db.rows(
            self.db.sql(
                f"SELECT {', '.join(COLUMNS)} FROM {{t:harness_auditable_calls}} WHERE session_id = {{p}} ORDER BY position"
            ),
            (session_id,),
        )
        return [_contract_row(r) for r in rows]


def _contract_row(row: dict[str, Any]) -> dict:
    out = dict(row)
    if isinstance(out["payload"], str):
        out["payload"] = json.loads(out["payload"])
    # latency_ms is an integer in the contract; ledger tables created before that was fixed have it as
    # REAL / double precision, where a plain-SQL reader sees 880.0 and must give the contract's 880
    # (docs/contract.md, "Wire facts").
    latency = out["latency_ms"]
    if isinstance(latency, float) and latency.is_integer():
        out["latency_ms"] = int(latency)
    return out
