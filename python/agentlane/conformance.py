"""python -m agentlane.conformance --corpus DIR [--server URL] [--db URL] [--token T]

Checks this runtime against the contract, shape by shape (wire, events, canonical JSON, vectors,
checkpoints, ledger, runtime), on the recorded corpus and, when given, a live server and its database.
Prints what passed and what failed per shape; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import random
import struct
import sys
from dataclasses import dataclass, field
from typing import Callable

from .canonical import canonical_json, ecmascript_number, fingerprint
from .checkpoints import CheckpointError, CheckpointTables, apply_delta, compute_delta, fingerprint_checkpoint, session_state_of
from .schema import validate
from .vectors import compare_vectors, has_seen, increment_vector, merge_vectors

SHAPES = ("wire", "events", "canonical JSON", "vectors", "checkpoints", "ledger", "runtime")
# RFC 8785 Appendix B samples (IEEE-754 bits → ECMAScript form).
NUMBER_SAMPLES = [("0000000000000001", "5e-324"), ("7fefffffffffffff", "1.7976931348623157e+308"),
                  ("4340000000000000", "9007199254740992"), ("44b52d02c7e14af6", "1e+23"),
                  ("444b1ae4d6e2ef50", "1e+21"), ("3eb0c6f7a0b5ed8d", "0.000001"),
                  ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"), ("41b3de4355555555", "333333333.3333333"),
                  ("becbf647612f3696", "-0.0000033333333333333333"), ("8000000000000000", "0")]


@dataclass
class Report:
    passed: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SHAPES})
    failed: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SHAPES})
    skipped: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SHAPES})

    def check(self, shape: str, ok: bool, what: str) -> bool:
        if ok:
            self.passed[shape] += 1
        else:
            self.failed[shape].append(what)
        return ok

    def guard(self, shape: str, what: str, fn: Callable[[], object]) -> None:
        """Runs fn; an exception is a failure of the shape, not a crash of the report."""
        try:
            fn()
        except Exception as error:  # noqa: BLE001 - reported, then the next check runs
            self.failed[shape].append(f"{what}: {type(error).__name__}: {error}")

    @property
    def ok(self) -> bool:
        return not any(self.failed.values())

    def render(self) -> str:
        lines = []
        for shape in SHAPES:
            status = "FAIL" if self.failed[shape] else ("PASS" if self.passed[shape] else "SKIP")
            lines.append(f"{status} {shape}: {self.passed[shape]} passed, {len(self.failed[shape])} failed")
            lines += [f"  - failed: {m}" for m in self.failed[shape][:20]]
            lines += [f"  - skipped: {m}" for m in self.skipped[shape]]
        lines.append("conformance: " + ("OK" if self.ok else "FAILED"))
        return "\n".join(lines)


def event_id(run_id: str, key: str) -> str:
    """The lane's eventId of a drafted event (corpus README): ev_ + 32 hex digits of sha256(runId NUL key)."""
    return "ev_" + hashlib.sha256(f"{run_id}\0{key}".encode("utf-8")).hexdigest()[:32]


def check_corpus(report: Report, turns: list[dict]) -> None:
    for bits, want in NUMBER_SAMPLES:
        value = struct.unpack(">d", bytes.fromhex(bits))[0]
        report.check("canonical JSON", ecmascript_number(value) == want, f"number {bits} → {ecmascript_number(value)}, want {want}")
    for turn in turns:
        name = turn["name"]
        report.check("canonical JSON", fingerprint(turn["sessionState"]) == turn["fingerprint"], f"{name}: sessionState fingerprint")
        for i, event in enumerate(turn["events"]):
            draft = {"kind": event.get("kind"), "payload": event.get("payload")}
            issues = validate("CanonicalEventDraft", draft)
            report.check("events", not issues, f"{name}.events[{i}] {event.get('kind')}: {issues[:1]}")
        rows = turn["ledgerRows"]
        for i, row in enumerate(rows):
            issues = validate("AuditableCall", row)
            report.check("ledger", not issues, f"{name}.ledgerRows[{i}]: {issues[:1]}")
        keys = [(r.get("session_id"), r.get("turn_id"), r.get("stage_id"), r.get("seq_within_turn")) for r in rows]
        report.check("ledger", len(keys) == len(set(keys)), f"{name}: duplicate idempotency keys")
        by_session: dict[str, list[dict]] = {}
        for checkpoint in turn["checkpoints"]:
            issues = validate("Checkpoint", checkpoint)
            report.check("checkpoints", not issues, f"{name} checkpoint {checkpoint.get('id')}: {issues[:1]}")
            by_session.setdefault(checkpoint.get("sessionId"), []).append(checkpoint)
        for session, chain in by_session.items():
            channels: dict = {}
            for checkpoint in chain:
                def step(c=checkpoint):
                    nonlocal channels
                    delta = compute_delta(channels, c["channels"], c["id"])
                    channels = apply_delta(json.loads(json.dumps(channels)), delta, c["id"])
                    report.check("checkpoints", canonical_json(channels) == canonical_json(c["channels"]), f"{name} {c['id']}: delta round trip")

                report.guard("checkpoints", f"{name} {checkpoint.get('id')}", step)
        mine = by_session.get(turn["input"]["threadId"], [])
        if mine:
            report.check("checkpoints", fingerprint_checkpoint(mine[-1]) == turn["fingerprint"], f"{name}: latest checkpoint fingerprint")


def check_vectors(report: Report, cases: int = 500) -> None:
    rng = random.Random(18)
    clients = ["a", "b", "c", "d"]

    def vector() -> dict:
        return {c: rng.randint(0, 3) for c in rng.sample(clients, rng.randint(0, 4))}

    mirror = {"equal": "equal", "ancestor": "descendant", "descendant": "ancestor", "concurrent": "concurrent"}
    for _ in range(cases):
        a, b, c = vector(), vector(), vector()
        client = rng.choice(clients)
        bumped = increment_vector(a, client)
        ok = (
            compare_vectors(merge_vectors(a, b), merge_vectors(b, a)) == "equal"
            and compare_vectors(merge_vectors(merge_vectors(a, b), c), merge_vectors(a, merge_vectors(b, c))) == "equal"
            and compare_vectors(b, a) == mirror[compare_vectors(a, b)]
            and compare_vectors(a, bumped) == "ancestor"
            and has_seen(bumped, {"clientId": client, "version": bumped[client]})
            and not has_seen(a, {"clientId": client, "version": bumped[client]})
        )
        report.check("vectors", ok, f"laws fail for {a}, {b}, {c}, {client}")


def check_runtime(report: Report, turns: list[dict]) -> None:
    from .runtime.corpus import compare, replayable

    for turn in turns:
        why = replayable(turn)
        if why is not None:
            report.skipped["runtime"].append(f"{turn['name']}: {why}")
            continue

        def run(t=turn):
            result = compare(t)
            for shape, messages in result.failures.items():
                for message in messages:
                    report.failed["runtime"].append(f"{t['name']} {shape}: {message}")
            if result.ok:
                report.check("runtime", True, t["name"])

        report.guard("runtime", turn["name"], run)


def check_db(report: Report, db, server: str | None, token: str | None, sessions: list[str] | None) -> None:
    """Checks the rows of an open database (`sql.open_database`), closing it after."""
    from .ledger import AuditLedger

    try:
        tables, ledger = CheckpointTables(db), AuditLedger(db)
        if sessions is None:
            rows = db.rows(db.sql("SELECT DISTINCT session_id FROM {t:harness_checkpoints} LIMIT 20"))
            sessions = [r["session_id"] for r in rows]
        client = None
        if server:
            from .client import Client

            client = Client(server, token=token)
        for sid in sessions:
            for _, checkpoint_id in tables.ids(sid)[:50]:
                def hydrate(sid=sid, cid=checkpoint_id) -> None:
                    mine = tables.get(sid, cid)
                    report.check("checkpoints", not validate("Checkpoint", mine), f"{sid}/{cid} from SQL")
                    if client is not None:
                        served = client.get_checkpoint(sid, cid)
                        report.check("checkpoints", canonical_json(mine) == canonical_json(served), f"{sid}/{cid}: SQL ≠ served")
                        report.check("checkpoints", fingerprint_checkpoint(mine) == fingerprint_checkpoint(served), f"{sid}/{cid} fingerprint")

                report.guard("checkpoints", f"{sid}/{checkpoint_id}", hydrate)
            def rows(sid=sid) -> None:
                mine = ledger.list(sid)
                for row in mine:
                    report.check("ledger", not validate("AuditableCall", row), f"{sid} row {row['record_id']} from SQL")
                if client is not None:
                    report.check("ledger", canonical_json(mine) == canonical_json(client.all_audit(sid)), f"{sid}: SQL rows ≠ served")

            report.guard("ledger", f"ledger of {sid}", rows)
    except CheckpointError as error:
        report.failed["checkpoints"].append(str(error))
    finally:
        db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentlane.conformance", description=__doc__.split("\n\n")[1])
    parser.add_argument("--corpus", required=True, type=pathlib.Path, help="folder of recorded turns (<name>.json)")
    parser.add_argument("--server", help="a running agentlane server, e.g. http://127.0.0.1:7433")
    parser.add_argument("--db", help="its database: a SQLite file or a postgres:// URL")
    parser.add_argument("--token", help="bearer token for the server")
    args = parser.parse_args(argv)
    if args.server:
        from .client import Client

        try:
            Client(args.server)
        except ValueError as error:
            parser.error(f"--server: {error}")
        try:
            Client(args.server, token=args.token)
        except ValueError as error:  # the message never holds the token
            parser.error(f"--token: {error}")
    try:
        return _run(args)
    except UserError as error:
        print(f"agentlane: {error}", file=sys.stderr)
        return 1


class UserError(Exception):
    """A mistake in what the report was asked to check: one line on stderr and exit 1, no traceback."""


def _load_turns(corpus: pathlib.Path) -> list[dict]:
    if not corpus.is_dir():
        raise UserError(f"--corpus {corpus}: " + ("not a directory" if corpus.exists() else "no such directory"))
    files = sorted(corpus.glob("*.json"))
    if not files:
        raise UserError(f"--corpus {corpus}: no corpus turns (*.json) in it")
    turns = []
    for path in files:
        try:
            turn = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as error:
            raise UserError(f"--corpus {path}: {error}") from None
        problems = turn_problems(turn)
        if problems:
            raise UserError(f"--corpus {path}: not a corpus turn: {problems}")
        turns.append(turn)
    return turns


# What the checks and the replay read of a turn (the corpus README, "Format"): a file without it is not a
# turn, and is said so in one line before any check runs, instead of a KeyError halfway through the report.
_NUMBER = (int, float)
_TURN_SHAPE: dict = {
    "corpusVersion": int, "name": str,
    "input": {
        "threadId": str, "turnId": str, "prompt": str,
        "engine": {"api": str, "model": str, "basePath": str, "plan": bool, "maxSteps": int},
        "files": dict, "approvals": list,
        "clock": {"start": str, "stepMs": _NUMBER}, "ids": {"startMs": _NUMBER},
        "frameClock": {"start": str, "stepMs": _NUMBER},
    },
    "exchanges": list, "outcome": dict, "ledgerRows": list, "checkpoints": list, "events": list,
    "sessionState": dict, "fingerprint": str,
}
_LISTS_OF_OBJECTS = ("exchanges", "ledgerRows", "checkpoints", "events")
_KIND = {str: "a string", int: "an integer", bool: "true or false", dict: "an object", list: "an array",
         _NUMBER: "a number"}
CORPUS_VERSION = 1


def turn_problems(turn: object) -> str | None:
    """None for a value shaped like a corpus turn, else one line saying what is missing or of the wrong type."""
    if not isinstance(turn, dict):
        return f"the file holds {type(turn).__name__}, not an object"
    missing: list[str] = []
    wrong: list[str] = []

    def walk(value: dict, shape: dict, at: str) -> None:
        for key, want in shape.items():
            if key not in value:
                missing.append(at + key)
            elif isinstance(want, dict):
                if isinstance(value[key], dict):
                    walk(value[key], want, f"{at}{key}.")
                else:
                    wrong.append(f"{at}{key} is not an object")
            elif not isinstance(value[key], want) or (want is not bool and isinstance(value[key], bool)):
                wrong.append(f"{at}{key} is not {_KIND[want]}")

    walk(turn, _TURN_SHAPE, "")
    for key in _LISTS_OF_OBJECTS:
        items = turn.get(key)
        if isinstance(items, list):
            wrong += [f"{key}[{i}] is not an object" for i, item in enumerate(items) if not isinstance(item, dict)][:1]
    if isinstance(turn.get("corpusVersion"), int) and turn["corpusVersion"] != CORPUS_VERSION:
        wrong.append(f"corpusVersion {turn['corpusVersion']} (this runtime reads {CORPUS_VERSION})")
    problems = (["missing " + ", ".join(missing)] if missing else []) + wrong
    return "; ".join(problems) if problems else None


def _without_secret(text: str, url: str) -> str:
    """text with the URL's password (and the URL) replaced, should a driver's message quote them."""
    import urllib.parse

    from .client import redact_url

    text = text.replace(url, redact_url(url))
    try:
        password = urllib.parse.urlsplit(url).password
    except ValueError:
        password = None
    for secret in {password, urllib.parse.unquote(password or "")} - {None, ""}:
        text = text.replace(secret, "***")
    return text


def _open_db(db_url: str):
    """Opens --db for reading, or raises UserError: a SQLite path must be an existing database file (it is
    never created), a postgres:// URL needs psycopg and a server that answers."""
    import sqlite3

    from .sql import open_database

    if db_url.startswith(("postgres://", "postgresql://")):
        from .client import redact_url

        shown = redact_url(db_url)  # the URL's password is never printed
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise UserError(f"--db {shown}: PostgreSQL needs psycopg 3 (Debian: python3-psycopg)") from None
        try:
            return open_database(db_url)
        except Exception as error:  # noqa: BLE001 - psycopg.OperationalError and kin: the URL is the user's
            line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise UserError(f"--db {shown}: {_without_secret(line, db_url)}") from None
    path = pathlib.Path(db_url.removeprefix("sqlite://"))
    if not path.exists():
        raise UserError(f"--db {db_url}: no such file")
    if not path.is_file():
        raise UserError(f"--db {db_url}: not a file")
    try:
        db = open_database(str(path))
        tables = {r["name"] for r in db.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as error:
        raise UserError(f"--db {db_url}: {error}") from None
    if "harness_checkpoints" not in tables:
        db.close()
        raise UserError(f"--db {db_url}: not an agentlane database (no table harness_checkpoints)")
    return db


def _run(args) -> int:
    turns = _load_turns(args.corpus)
    db = _open_db(args.db) if args.db else None
    report = Report()
    check_corpus(report, turns)
    check_vectors(report)
    check_runtime(report, turns)
    sessions = None
    if args.server:
        report.guard("wire", args.server, lambda: None)
        try:
            from .conformance_server import check_server

            sessions = check_server(report, args.server, args.token)
        except Exception as error:  # noqa: BLE001 - a dead server is a wire failure, reported
            report.failed["wire"].append(f"{args.server}: {type(error).__name__}: {error}")
    else:
        report.skipped["wire"].append("no --server")
    if db is not None:
        check_db(report, db, args.server, args.token, sessions)
    print(report.render())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
