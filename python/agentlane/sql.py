"""The two SQL backends behind one small interface: SQLite (stdlib sqlite3) and PostgreSQL (psycopg 3).

Only what the checkpoint and ledger tables need: a placeholder style, a qualified table name, rows as
dicts, and one write transaction at a time.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from typing import Any, Iterator, Sequence


class Database:
    placeholder = "?"

    def table(self, name: str) -> str:
        return name

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        raise NotImplementedError

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Runs a statement inside the current transaction; returns the affected row count."""
        raise NotImplementedError

    def transaction(self) -> contextlib.AbstractContextManager:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def sql(self, template: str) -> str:
        """`{p}` → the placeholder; `{t:name}` → the qualified table name."""
        text = re.sub(r"\{t:(\w+)\}", lambda m: self.table(m.group(1)), template)
        return text.replace("{p}", self.placeholder)


class SqliteDatabase(Database):
    def __init__(self, path: str) -> None:
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE), as a writer next to the
        # TypeScript process on the same WAL file needs.
        self.conn = sqlite3.connect(path, isolation_level=None, timeout=10)
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA busy_timeout = 10000")
        self._depth = 0

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        return [dict(r) for r in self.conn.execute(sql, tuple(params))]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.conn.execute(sql, tuple(params)).rowcount

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


class PgDatabase(Database):
    placeholder = "%s"

    def __init__(self, url: str, schema: str = "public") -> None:
        import psycopg  # optional: only PostgreSQL users need it

        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", schema):
            raise ValueError(f"schema name {schema!r}")
        self.schema = schema
        self.conn = psycopg.connect(url, autocommit=True, options="-c synchronous_commit=on")

    def table(self, name: str) -> str:
        return f'"{self.schema}".{name}'

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict]:
        with self.conn.cursor() as cur:
            cur.execute(sql, tuple(params))
            if cur.description is None:
                return []
            names = [d.name for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self.conn.cursor() as cur:
            cur.execute(sql, tuple(params))
            return cur.rowcount

    def transaction(self) -> contextlib.AbstractContextManager:
        return self.conn.transaction()

    def close(self) -> None:
        self.conn.close()


def open_database(url: str, *, schema: str = "public") -> Database:
    """A postgres:// URL, or a SQLite file path (also sqlite:///path)."""
    if url.startswith(("postgres://", "postgresql://")):
        return PgDatabase(url, schema)
    return SqliteDatabase(url.removeprefix("sqlite://"))
