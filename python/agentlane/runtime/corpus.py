"""Replays a recorded corpus turn in the Python runtime and compares what it produces with the recording."""

from __future__ import annotations

import pathlib
import tempfile
from dataclasses import dataclass, field

from ..canonical import canonical_json, fingerprint
from ..ids import SequentialIds
from .providers import PROVIDERS
from .replay_server import ReplayServer
from .tools import Workspace
from .turn import Clock, TurnConfig, TurnResult, run_turn

# Fields the corpus README leaves out of comparison (wall-clock durations), and the two fields stamped
# from the lane's frame clock, which counts the TypeScript engine's native frames: a different runtime
# has different native frames, so these are not reproducible by a conforming runtime (see the note).
NOT_COMPARED_EVENTS = {"tool.completed": {"durationMs"}, "turn.completed": {"durationMs"}, "approval.resolved": {"answeredAt"},
                       "question.resolved": {"answeredAt"}}


def replayable(turn: dict) -> str | None:
    """None when this runtime replays the turn, else why not."""
    engine = turn["input"]["engine"]
    if engine["api"] not in PROVIDERS:
        return f"recorded over {engine['api']}, which this runtime does not speak"
    for option in ("turnCostBudget",):
        if engine.get(option):
            return f"uses {option}, not implemented in this runtime"
    return None


@dataclass
class Comparison:
    name: str
    failures: dict[str, list[str]] = field(default_factory=dict)

    def fail(self, shape: str, message: str) -> None:
        self.failures.setdefault(shape, []).append(message)

    @property
    def ok(self) -> bool:
        return not self.failures


def replay(turn: dict) -> tuple[TurnResult, ReplayServer]:
    i = turn["input"]
    server = ReplayServer(turn["exchanges"])
    try:
        with tempfile.TemporaryDirectory(prefix="agentlane-py-ws-") as folder:
            root = pathlib.Path(folder)
            for rel, text in i["files"].items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, "utf-8")
            config = TurnConfig(
                thread_id=i["threadId"], turn_id=i["turnId"], prompt=i["prompt"], model=i["engine"]["model"],
                base_url=server.url + i["engine"]["basePath"], workspace=Workspace(root), api=i["engine"]["api"],
                plan=i["engine"]["plan"], max_steps=i["engine"]["maxSteps"], approvals=list(i["approvals"]),
                questions=list(i.get("questions", [])),
                subagents=bool(i["engine"].get("subagents")), prices=i["engine"].get("prices"),
                provider_ids=SequentialIds(i["providerIds"]["startMs"]) if "providerIds" in i else None,
                turn_token_budget=i["engine"].get("turnTokenBudget"), cwd="<workspace>",
                clock=Clock(i["clock"]["start"], i["clock"]["stepMs"]), ids=SequentialIds(i["ids"]["startMs"]),
                frame_clock=Clock(i["frameClock"]["start"], i["frameClock"]["stepMs"]),
            )
            result = run_turn(config)
    finally:
        server.close()
    return result, server


def _strip(event: dict) -> dict:
    drop = NOT_COMPARED_EVENTS.get(event["kind"], set())
    out = {**event, "payload": {k: v for k, v in event["payload"].items() if k not in drop}}
    return out


def compare(turn: dict) -> Comparison:
    result, server = replay(turn)
    out = Comparison(turn["name"])
    for mismatch in server.mismatches:
        out.fail("requests", mismatch)
    if server.served != len(turn["exchanges"]):
        out.fail("requests", f"{server.served} requests, recorded {len(turn['exchanges'])}")
    if result.outcome != turn["outcome"]:
        out.fail("outcome", f"{result.outcome} != {turn['outcome']}")
    mine = [{k: v for k, v in r.items() if k != "latency_ms"} for r in result.ledger_rows]
    theirs = [{k: v for k, v in r.items() if k != "latency_ms"} for r in turn["ledgerRows"]]
    _diff_lists(out, "ledger", mine, theirs)
    _diff_lists(out, "checkpoints", result.checkpoints, turn["checkpoints"])
    _diff_lists(out, "events", [_strip(e) for e in result.events], [_strip(e) for e in turn["events"]])
    if fingerprint(result.session_state) != turn["fingerprint"]:
        out.fail("fingerprint", f"{fingerprint(result.session_state)} != {turn['fingerprint']}")
    return out


def _diff_lists(out: Comparison, shape: str, mine: list, theirs: list) -> None:
    for index, (a, b) in enumerate(zip(mine, theirs)):
        if canonical_json(a) != canonical_json(b):
            out.fail(shape, f"[{index}] {canonical_json(a)[:400]}\n   recorded {canonical_json(b)[:400]}")
            return
    if len(mine) != len(theirs):
        out.fail(shape, f"{len(mine)} items, recorded {len(theirs)}")
