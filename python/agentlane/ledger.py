"""The append-only audit ledger (harness_auditable_calls): append AuditableCall rows, read them back.

Idempotent on (session_id, turn_id, stage_id, seq_within_turn): a retried append is a no-op. There is no
update or delete here, and the database refuses both (its triggers), as the contract requires.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from .schema import validate
from .sql import Database

COLUMNS = (
    "record_id", "audit_record_version", "session_id", "turn_id", "stage_id", "seq_within_turn", "created_at",
    "actor_kind", "session_auth_method", "call_class", "provider", "model", "transport", "status", "latency_ms",
    "finish_reason", "http_status", "payload",
)


# Characters a PostgreSQL text column cannot hold: U+0000, and lone UTF-16 surrogates (no UTF-8 form; a Python
# str holds them when a JSON text escaped half a pair). Both stores write them the same way, so they read the same:
# the payload is JSON text, where they are escapes (stored exactly); every other text column holds U+FFFD for each,
# as the TypeScript ledger does; the idempotency key is never substituted (two keys could become one): refused.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_KEY_COLUMNS = ("session_id", "turn_id", "stage_id")


def _column_text(value: Any) -> Any:
    return _UNSTORABLE.sub("\ufffd", value) if isinstance(value, str) else value


def _payload_json(payload: Any) -> str:
    # json escapes U+0000 itself; a lone surrogate it would write raw (no UTF-8 form): spelled as its escape.
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
            for c in _KEY_COLUMNS:
                if _UNSTORABLE.search(row[c]):
                    raise LedgerError("invalid_row", f"row {i}: {c} holds U+0000 or a lone surrogate", f"/{c}")
        # No cast on payload: the parameter's type is inferred from the column, JSON text since the TypeScript
        # ledger's migration 3 (jsonb before it, which refuses the escape \u0000).
        values = ", ".join(self.db.placeholder for _ in COLUMNS)
        # ON CONFLICT DO NOTHING: the idempotency key (and record_id) are UNIQUE, so a retry inserts nothing.
        sql = f"INSERT INTO {self.db.table('harness_auditable_calls')} ({', '.join(COLUMNS)}) VALUES ({values}) ON CONFLICT DO NOTHING"
        inserted = 0
        with self.db.transaction():
            for row in rows:
                params = [_column_text(row[c]) for c in COLUMNS]
                params[-1] = _payload_json(row["payload"])
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
