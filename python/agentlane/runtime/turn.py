"""One staged turn of the built-in engine over any of its four model wire APIs.

anchor-plan (optional: a plan drafted without tools) → tool-loop (model steps with the workspace tools,
approvals for writes, edits and commands, sub-agents through `task`) → synthesize (the plan closed) →
post-turn. Each stage ends in a checkpoint; every model and tool call is a ledger row; what happens is
drafted as canonical events ({key, kind, payload, namespace?}) the lane would wrap in envelopes.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..checkpoints import next_snapshot, session_state_of
from ..ids import SequentialIds
from .jsjson import js_length, stringify
from .providers import PROVIDERS, Provider, chat_messages
from .redaction import Pieces, Redactor
from .stream import stream_sse
from .tools import DEFINITIONS, NEEDS_APPROVAL, TASK, ToolError, Workspace, validate_input

SYNTHESIZE_PROMPT = "Answer the user now from what was done so far. Do not call tools."
SYSTEM_PROMPT = (
    "You are a coding agent working in a workspace folder. Use the tools to inspect and change files, then answer briefly."
)
SUBAGENT_PROMPT = "You are a sub-agent: another agent gave you one task. Do it with the tools, then answer with the result."
PLAN_PROMPT = "Draft a short plan for the request as a numbered list, one step per line. Do not call tools and do not answer yet."
REJECTED = "The user rejected this tool call."
CAPABILITIES = {
    "streamingText": True, "reasoning": True, "plans": True, "toolProgress": True, "fileDiffs": True,
    "childSessions": False, "approvals": True, "questions": True, "commands": False, "usage": True,
    "modelSelection": True, "resume": True, "load": False, "close": True, "stop": True, "reconcile": False,
    "directTerminal": False, "desktop": False, "nativeEmbed": False, "knowledgeTools": False,
}
TOKEN_KEYS = ("inputTokens", "outputTokens", "reasoningTokens", "cachedInputTokens")


class Clock:
    """The injected clock: call n gives start + n·step as ISO 8601 with milliseconds."""

    def __init__(self, start: str, step_ms: int) -> None:
        self.start = dt.datetime.fromisoformat(start.replace("Z", "+00:00"))
        self.step_ms, self.n = step_ms, 0

    def __call__(self) -> str:
        value = self.start + dt.timedelta(milliseconds=self.step_ms * self.n)
        self.n += 1
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


@dataclass
class TurnConfig:
    thread_id: str
    turn_id: str
    prompt: str
    model: str
    base_url: str  # the provider's base URL, e.g. http://127.0.0.1:1234/v1 (…/v1beta for Gemini)
    workspace: Workspace
    api: str = "openai-chat"  # openai-chat | openai-responses | anthropic | google
    api_key: str = "corpus-dummy-key"
    plan: bool = False
    max_steps: int = 8
    subagents: bool = False  # the `task` tool: a sub-agent's own turn as a child session (depth 1)
    prices: dict | None = None  # model → {input, output, reasoning?, cached?, currency?} per 1M tokens
    approvals: list[dict] = field(default_factory=list)
    questions: list[dict] = field(default_factory=list)  # answers to ask_user, in order; a missing one is cancelled
    clock: Callable[[], str] = field(default_factory=lambda: Clock("2026-01-01T00:00:00.000Z", 1000))
    ids: Callable[[], str] = field(default_factory=lambda: SequentialIds(0))
    provider_ids: Callable[[], str] | None = None  # ids the client mints where the wire has none (Gemini calls)
    frame_clock: Callable[[], str] | None = None
    turn_token_budget: int | None = None  # the tool loop stops once the turn's tokens pass it
    previous: dict | None = None  # the checkpoint a resumed session continues from
    generation: int = 1
    cwd: str | None = None  # session.started's cwd (default: the workspace folder)
    listener: Any = None  # gets .event(draft), .row(row) as they happen and .flush() after each call and stage


@dataclass
class TurnResult:
    outcome: dict
    events: list[dict]
    ledger_rows: list[dict]  # the thread's session first, then each sub-agent session; each in seq order
    checkpoints: list[dict]  # oldest first, sessions in the same order
    requests: list[dict]
    thread_id: str = ""

    @property
    def session_state(self) -> dict:
        return session_state_of([c for c in self.checkpoints if c["sessionId"] == self.thread_id][-1])


@dataclass
class _ToolCall:
    id: str
    name: str
    arguments: str = ""
    input: Any = None
    pieces: Pieces | None = None  # its tool.input deltas as shown (redacted)


class _Shared:
    """What every session of one turn shares: the recorded outputs, the id source, the clocks, the answers."""

    def __init__(self, config: TurnConfig) -> None:
        self.events: list[dict] = []
        self.rows: dict[str, list[dict]] = {}
        self.checkpoints: dict[str, list[dict]] = {}
        self.requests: list[dict] = []
        self.approvals = list(config.approvals)
        self.questions = list(config.questions)


class Turn:
    def __init__(self, config: TurnConfig, *, parent: Turn | None = None, session_id: str | None = None,
                 turn_id: str | None = None, prompt: str | None = None, task_call: str | None = None) -> None:
        self.c = config
        self.parent = parent
        self.shared = parent.shared if parent else _Shared(config)
        self.session_id = session_id or config.thread_id
        self.turn_id = turn_id or config.turn_id
        self.prompt = prompt if prompt is not None else config.prompt
        self.task_call = task_call  # the parent's task call, for a sub-agent
        self.namespace = [*parent.namespace, self.session_id] if parent else []
        self.prefix = "".join(f"child:{s}:" for s in self.namespace)
        self.provider: Provider = PROVIDERS[config.api](config.model, config.api_key, config.provider_ids)
        config.workspace.secrets.add(config.api_key)
        # Every draft and row leaves through this: the API key and the workspace's secrets (python/README.md, "Secrets").
        self.redactor: Redactor = parent.redactor if parent else Redactor([config.api_key, *config.workspace.secrets])
        self.tools = [d for d in DEFINITIONS] + ([TASK] if config.subagents and parent is None else [])
        self.shared.rows.setdefault(self.session_id, [])
        self.shared.checkpoints.setdefault(self.session_id, [])
        self.seq = 0
        self.conversation: list[dict] = []
        self.plan: list[dict] = []
        self.usage = {"inputTokens": 0, "outputTokens": 0, "reasoningTokens": 0, "cachedInputTokens": 0}
        self.cost = 0.0
        self.child_updates = 0
        self.answered = False
        self.budget_spent: int | None = None
        self.previous = config.previous if parent is None else None
        if self.previous is not None:
            state = session_state_of(self.previous)
            self.conversation = copy.deepcopy(state["conversation"])

    # -- recording

    def emit(self, key: str, kind: str, payload: dict, *, streamed: str | None = None) -> None:
        # Redacted here, so no event (nor the listener) sees a secret; the `streamed` field is a piece its
        # text's stream redacted already (a second pass without the pieces around it could only differ).
        payload = {k: v if k == streamed else self.redactor.json(v) for k, v in payload.items()}
        event = {"key": self.redactor.text(self.prefix + key), "kind": kind, "payload": payload}
        if self.namespace:
            event["namespace"] = list(self.namespace)
        self.shared.events.append(event)
        if self.c.listener is not None:
            self.c.listener.event(event)

    def frame(self) -> str:
        return self.c.frame_clock() if self.c.frame_clock else _now()

    def checkpoint(self, stage: str) -> None:
        checkpoint_id = self.c.ids()
        mine = self.shared.checkpoints[self.session_id]
        before = mine[-1] if mine else self.previous
        # The conversation is a topic (each message one item), the plan a last_value; a channel's version
        # rises only when its value changed since the parent checkpoint (docs/checkpoints.md).
        conversation = {"accumulate": True, "items": copy.deepcopy(self.conversation)}
        envelope = {
            "id": checkpoint_id,
            "sessionId": self.session_id,
            "stageId": stage,
            "createdAt": self.c.clock(),
            "schemaVersion": 1,
            "channels": {
                "conversation": next_snapshot(before, "conversation", "topic", conversation),
                "plan": next_snapshot(before, "plan", "last_value", {"value": copy.deepcopy(self.plan)}),
            },
        }
        parent = (before or {}).get("id")
        if parent is not None:
            envelope["parentCheckpointId"] = parent
        mine.append(envelope)
        if self.c.listener is not None:
            self.c.listener.flush()

    def row(self, stage: str, **columns: Any) -> None:
        self.seq += 1
        row = {
            "record_id": self.c.ids(), "audit_record_version": 1, "session_id": self.session_id,
            "turn_id": self.turn_id, "stage_id": stage, "seq_within_turn": self.seq, "created_at": self.c.clock(),
            "actor_kind": "runtime",
        }
        row.update(columns)
        row = self.redactor.json(row)
        self.shared.rows[self.session_id].append(row)
        if self.c.listener is not None:
            self.c.listener.row(row)
            self.c.listener.flush()

    def result(self) -> TurnResult:
        rows = [r for session in self.shared.rows.values() for r in session]
        checkpoints = [c for session in self.shared.checkpoints.values() for c in session]
        return TurnResult({"outcome": "completed"}, self.shared.events, rows, checkpoints, self.shared.requests, self.session_id)

    # -- the stages

    def run(self) -> TurnResult:
        started = time.monotonic()
        self.frame()
        self.emit("turn.started", "turn.started", {"prompt": self.prompt})
        self.emit("session.started", "session.started", {
            "provider": "builtin", "origin": "new" if self.previous is None else "resumed",
            "generation": self.c.generation, "capabilities": {**CAPABILITIES, "childSessions": self.c.subagents},
            "nativeSessionId": self.session_id, "cwd": self.c.cwd or str(self.c.workspace.root),
            "agent": {"name": "agentlane-builtin"},
        })
        self.emit("session.metadata", "session.metadata", {"model": {"id": self.c.model}, "availableModels": [{"id": self.c.model}]})
        self.stages()
        self.emit("turn.completed", "turn.completed", {**self.stop_reason, "durationMs": round((time.monotonic() - started) * 1000)})
        return self.result()

    def stages(self) -> None:
        self.conversation.append({"id": f"{self.turn_id}:user", "role": "user", "parts": [{"type": "text", "text": self.prompt}]})
        if self.c.plan and self.parent is None:  # a sub-agent skips anchor-plan
            self.anchor_plan()
        self.tool_loop()
        self.synthesize()
        self.emit("usage:turn", "usage.updated", self.turn_usage())
        self.checkpoint("post-turn")

    def turn_usage(self) -> dict:
        usage = {"scope": "turn", "inputTokens": self.usage["inputTokens"], "outputTokens": self.usage["outputTokens"]}
        for optional in ("reasoningTokens", "cachedInputTokens"):
            if self.usage[optional]:
                usage[optional] = self.usage[optional]
        if self.price() is not None:
            usage["cost"] = {"amount": self.cost, "currency": self.price()["currency"]}
        usage["model"] = self.c.model
        return usage

    def anchor_plan(self) -> None:
        user = [{"role": "user", "parts": [{"type": "text", "text": self.prompt}]}]
        step = self.call_model(PLAN_PROMPT, user, None, step=None)
        self.row("anchor-plan", **self.model_columns(step, tools=[]))
        lines = [m.group(1).strip() for m in re.finditer(r"^\s*\d+[.)]\s+(.+)$", step["text"], re.M)]
        self.plan = [{"id": f"p{i}", "content": text, "status": "in_progress" if i == 1 else "pending"} for i, text in enumerate(lines, 1)]
        if self.plan:
            self.emit_plan()
        self.checkpoint("anchor-plan")

    def system_prompt(self) -> str:
        if self.parent is not None:
            return SYSTEM_PROMPT + "\n\n" + SUBAGENT_PROMPT
        if not self.plan:
            return SYSTEM_PROMPT
        return SYSTEM_PROMPT + "\n\nThe plan for this turn:\n" + "\n".join(f"{i}. {e['content']}" for i, e in enumerate(self.plan, 1))

    def tool_loop(self) -> None:
        self.steps_spent = 0
        self.stop_reason: dict = {"stopReason": "end_turn"}
        for step_number in range(1, self.c.max_steps + 1):
            self.steps_spent = step_number
            step = self.call_model(self.system_prompt(), self.conversation, self.tools, step=step_number)
            self.row("tool-loop", **self.model_columns(step, tools=[d["name"] for d in self.tools]))
            calls: list[_ToolCall] = step["tool_calls"]
            parts = ([{"type": "text", "text": step["text"]}] if step["text"] else []) + [
                {"type": "tool-call", "toolCallId": t.id, "toolName": t.name, "input": t.input} for t in calls
            ]
            self.conversation.append({"id": f"{self.turn_id}:a{step_number}", "role": "assistant", "parts": parts})
            if not calls:
                self.answered = True
                break
            results = [self.run_tool(t) for t in calls]
            self.conversation.append({"id": f"{self.turn_id}:t{step_number}", "role": "tool", "parts": results})
            if self.plan:
                self.advance_plan()
                self.emit_plan()
            spent = self.usage["inputTokens"] + self.usage["outputTokens"]
            if self.c.turn_token_budget is not None and spent > self.c.turn_token_budget:
                self.budget_spent = spent
                break
        self.checkpoint("tool-loop")

    def synthesize(self) -> None:
        if not self.answered:
            # The loop ran out of steps with tool calls pending an answer: say so, then answer without tools.
            self.emit("warning:1", "harness.warning", self.limit_warning())
            step = self.call_model(SYNTHESIZE_PROMPT, self.conversation, None, step=self.steps_spent + 1)
            self.row("synthesize", **self.model_columns(step, tools=[]))
            self.conversation.append({"id": f"{self.turn_id}:answer", "role": "assistant", "parts": [{"type": "text", "text": step["text"]}]})
            self.stop_reason = (
                {"stopReason": "max_tokens", "rawStopReason": "token_budget"}
                if self.budget_spent is not None
                else {"stopReason": "max_turn_requests", "rawStopReason": "step_limit"}
            )
        if self.plan:
            self.plan = [{**e, "status": "completed"} for e in self.plan]
            self.emit_plan()
        self.checkpoint("synthesize")

    def answer(self) -> str:
        last = next((m for m in reversed(self.conversation) if m["role"] == "assistant"), None)
        return "".join(p["text"] for p in (last or {}).get("parts", []) if p["type"] == "text")

    def limit_warning(self) -> dict:
        if self.budget_spent is not None:
            limit, spent = self.c.turn_token_budget, self.budget_spent
            return {"code": "token_budget",
                    "message": f"the tool loop stopped: the turn used {spent} tokens, its budget is {limit} (turnTokenBudget); "
                               "the answer is synthesized from what was done",
                    "detail": {"limit": limit, "spent": spent}}
        limit = self.c.max_steps
        return {"code": "step_limit",
                "message": f"the tool loop stopped after {limit} model steps (maxSteps); the answer is synthesized from what was done",
                "detail": {"limit": limit, "spent": self.steps_spent}}

    # -- plan

    def advance_plan(self) -> None:
        current = next((i for i, e in enumerate(self.plan) if e["status"] == "in_progress"), None)
        if current is not None and current + 1 < len(self.plan):
            self.plan[current] = {**self.plan[current], "status": "completed"}
            self.plan[current + 1] = {**self.plan[current + 1], "status": "in_progress"}

    def emit_plan(self) -> None:
        # The key is the entries' JSON text (keys in the order id, content, status; JSON.stringify's escaping):
        # its UTF-16 length and the sha256 of its UTF-8 (docs/contract.md, "Event keys of the built-in engine").
        text = stringify([{"id": e["id"], "content": e["content"], "status": e["status"]} for e in self.plan])
        key = f"plan:0:{js_length(text)}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"
        self.emit(key, "plan.updated", {"planId": "turn-plan", "entries": copy.deepcopy(self.plan)})

    # -- prices

    def price(self) -> dict | None:
        entry = (self.c.prices or {}).get(self.c.model)
        if entry is None:
            return None
        return {"input": entry["input"], "output": entry["output"], "reasoning": entry.get("reasoning", entry["output"]),
                "cached": entry.get("cached", entry["input"]), "currency": entry.get("currency", "USD")}

    def cost_of(self, usage: dict) -> float | None:
        """Currency of one call: cached input and reasoning are counted inside input and output tokens, so
        they are priced once, at their own price (packages/runtime/README.md, "Prices and cost")."""
        p = self.price()
        if p is None:
            return None
        cached = min(usage["cachedInputTokens"], usage["inputTokens"])
        reasoning = min(usage.get("reasoningTokens", 0), usage["outputTokens"])
        return ((usage["inputTokens"] - cached) * p["input"] + cached * p["cached"]
                + (usage["outputTokens"] - reasoning) * p["output"] + reasoning * p["reasoning"]) / 1_000_000

    # -- one model call

    def call_model(self, system: str, conversation: list[dict], tools: list[dict] | None, *, step: int | None) -> dict:
        body = self.provider.body(system, conversation, tools)
        self.shared.requests.append(copy.deepcopy(body))
        started = time.monotonic()
        response = stream_sse(self.c.base_url.rstrip("/") + self.provider.path(), self.provider.headers(), body)
        live = step is not None  # the anchor plan's stream is not shown as messages
        texts: dict[str, str] = {}  # what the model said (the conversation); events show `pieces`
        reasonings: dict[str, str] = {}
        pieces: dict[str, Pieces] = {}
        calls: dict[str, _ToolCall] = {}
        ordered: list[_ToolCall] = []
        finish, usage = "other", {}
        for part in self.provider.parts(response.messages):
            self.frame()
            kind = part[0]
            if kind == "reasoning-start":
                reasonings[part[1]] = ""
                pieces["r:" + part[1]] = Pieces(self.redactor)
            elif kind == "reasoning-delta":
                rid = f"rsn-{step}-{part[1]}"
                if live:
                    self.emit_piece(pieces["r:" + part[1]], part[2], f"reasoning.delta:{rid}", "reasoning.delta", {"reasoningId": rid}, "delta")
                reasonings[part[1]] += part[2]
            elif kind == "reasoning-end":
                if live:
                    rid = f"rsn-{step}-{part[1]}"
                    self.emit_piece(pieces["r:" + part[1]], None, f"reasoning.delta:{rid}", "reasoning.delta", {"reasoningId": rid}, "delta")
                    self.emit(f"reasoning.completed:{rid}", "reasoning.completed", {"reasoningId": rid, "text": reasonings[part[1]]})
            elif kind == "text-start":
                texts[part[1]] = ""
                pieces["t:" + part[1]] = Pieces(self.redactor)
                if live:
                    mid = f"msg-{step}-{part[1]}"
                    self.emit(f"message.started:{mid}", "message.started", {"messageId": mid, "role": "assistant"})
            elif kind == "text-delta":
                mid = f"msg-{step}-{part[1]}"
                if live:
                    self.emit_piece(pieces["t:" + part[1]], part[2], f"message.delta:{mid}", "message.delta", {"messageId": mid, "partId": mid}, "delta")
                texts[part[1]] += part[2]
            elif kind == "text-end":
                if live:
                    mid = f"msg-{step}-{part[1]}"
                    self.emit_piece(pieces["t:" + part[1]], None, f"message.delta:{mid}", "message.delta", {"messageId": mid, "partId": mid}, "delta")
                    self.emit(f"message.completed:{mid}", "message.completed", {"messageId": mid, "role": "assistant", "text": texts[part[1]]})
            elif kind == "tool-input-start":
                call = calls[part[1]] = _ToolCall(part[1], part[2], pieces=Pieces(self.redactor))
                self.emit(f"tool.started:{call.id}", "tool.started", {"toolCallId": call.id, "name": call.name, "kind": "other", "input": {}, "status": "pending"})
            elif kind == "tool-input-delta":
                call = calls[part[1]]
                call.arguments += part[2]
                # The append form: the piece only; the whole parsed input follows once the call is complete.
                self.emit_piece(call.pieces, part[2], f"tool.input:{call.id}", "tool.progress", {"toolCallId": call.id, "status": "pending"}, "inputDelta")
            elif kind == "tool-call":
                call = calls.setdefault(part[1], _ToolCall(part[1], part[2]))
                if call.pieces is not None:
                    self.emit_piece(call.pieces, None, f"tool.input:{call.id}", "tool.progress", {"toolCallId": call.id, "status": "pending"}, "inputDelta")
                try:
                    call.input = json.loads(part[3] or "{}")
                except ValueError:
                    call.input = part[3]
                ordered.append(call)
                self.emit(f"tool.input:{call.id}", "tool.progress", {"toolCallId": call.id, "status": "pending", "input": call.input})
            elif kind == "finish":
                finish, usage = part[1], part[2]
        for key in TOKEN_KEYS:
            self.usage[key] += usage.get(key, 0)
        cost = self.cost_of(usage)
        if cost is not None:
            self.cost += cost
        if live:
            event = {"scope": "step", **usage, "totalTokens": usage["inputTokens"] + usage["outputTokens"]}
            if cost is not None:
                event["cost"] = {"amount": cost, "currency": self.price()["currency"]}
            self.emit(f"usage:step:{step}", "usage.updated", event)
        ledger_usage = dict(usage)
        if cost is not None:
            ledger_usage.update(costAmount=cost, costCurrency=self.price()["currency"])
        return {"text": "".join(texts.values()), "tool_calls": ordered, "finish": finish, "usage": ledger_usage,
                "status": response.status, "latency_ms": round((time.monotonic() - started) * 1000)}

    def emit_piece(self, pieces: Pieces, piece: str | None, key: str, kind: str, payload: dict, field: str) -> None:
        """One piece of a streamed text as its delta event, redacted with the text's stream (`piece` None: the
        text ended, the held tail goes out); the key's offset is the UTF-16 length shown before it."""
        offset = js_length(pieces.shown)
        shown = pieces.push(piece) if piece is not None else pieces.end()
        if shown is not None:
            self.emit(f"{key}:{offset}", kind, {**payload, field: shown}, streamed=field)

    def model_columns(self, step: dict, *, tools: list[str]) -> dict:
        response: dict[str, Any] = {"toolCalls": [{"toolCallId": t.id, "toolName": t.name} for t in step["tool_calls"]]}
        if step["text"]:
            response["textPreview"] = step["text"]
        api = self.provider.api
        return {
            "session_auth_method": "api_key", "call_class": "model", "provider": api, "model": self.c.model,
            "transport": api, "status": "ok", "latency_ms": step["latency_ms"], "finish_reason": step["finish"],
            "http_status": step["status"],
            "payload": {"kind": "model_call",
                        "request": {"messageCount": len(self.conversation), "toolNames": tools, "promptPreview": self.prompt},
                        "response": response, "usage": step["usage"]},
        }

    # -- one tool call

    def run_tool(self, call: _ToolCall) -> dict:
        """Runs a tool call; returns the conversation's tool-result part."""
        started = time.monotonic()
        payload: dict[str, Any] = {"kind": "tool_call", "toolCallId": call.id, "toolName": call.name, "input": call.input}
        approval = None
        # The whole input went out with the call's tool.input: the start does not send it again.
        self.emit(f"tool.running:{call.id}", "tool.progress", {"toolCallId": call.id, "status": "running"})
        try:
            validate_input(call.name, call.input, self.tools)
            if call.name in NEEDS_APPROVAL:
                approval = self.ask_approval(call)
                if approval != "allow_once":
                    raise _Denied()
            if call.name == "task":
                outcome = self.run_task(call)
            elif call.name == "ask_user":
                outcome = self.ask_question(call)
            else:
                outcome = self.c.workspace.run(call.name, call.input)
        except _Denied:
            payload.update(error=REJECTED, approval={"decision": approval})
            return self._tool_failed(call, payload, started, REJECTED, {"type": "execution-denied", "reason": REJECTED})
        except ToolError as error:
            if approval:
                payload["approval"] = {"decision": approval}
            payload["error"] = str(error)
            return self._tool_failed(call, payload, started, str(error), str(error))
        if outcome.file_change is not None:
            fc = outcome.file_change
            self.emit(f"file.changed:{call.id}:{fc.path}", "file.changed", {"path": fc.path, "change": fc.change, "toolCallId": call.id,
                                                                         "diff": fc.diff, "additions": fc.additions, "deletions": fc.deletions})
        duration = round((time.monotonic() - started) * 1000)
        self.emit(f"tool.completed:{call.id}", "tool.completed", {"toolCallId": call.id, "status": "completed", "output": outcome.output, "durationMs": duration})
        payload["outputPreview"] = stringify(outcome.output)
        if approval:
            payload["approval"] = {"decision": approval}
        self.row("tool-loop", **self.tool_columns("ok", duration, payload))
        return {"type": "tool-result", "toolCallId": call.id, "toolName": call.name, "output": outcome.output, "isError": False}

    def _tool_failed(self, call: _ToolCall, payload: dict, started: float, message: str, output: Any) -> dict:
        duration = round((time.monotonic() - started) * 1000)
        self.emit(f"tool.completed:{call.id}", "tool.completed", {"toolCallId": call.id, "status": "failed", "error": message, "durationMs": duration})
        self.row("tool-loop", **self.tool_columns("error", duration, payload))
        return {"type": "tool-result", "toolCallId": call.id, "toolName": call.name, "output": output, "isError": True}

    def tool_columns(self, status: str, duration: int, payload: dict) -> dict:
        return {"session_auth_method": "none", "call_class": "tool", "provider": "builtin", "model": None,
                "transport": "in-process", "status": status, "latency_ms": duration, "finish_reason": None,
                "http_status": None, "payload": payload}

    def ask_approval(self, call: _ToolCall) -> str:
        title, subject = self.c.workspace.approval_subject(call.name, call.input)
        # A sub-agent's approvals are answered through the parent run: their ids name the task call.
        approval_id = f"apr-t-{self.task_call}-{call.id}" if self.task_call else f"apr-{call.id}"
        self.emit(f"approval.requested:{approval_id}", "approval.requested", {
            "approvalId": approval_id, "toolCallId": call.id, "title": title, "subject": subject, "input": call.input,
            "options": [{"optionId": "allow", "label": "Allow", "kind": "allow_once"},
                        {"optionId": "reject", "label": "Reject", "kind": "reject_once"}],
        })
        if self.parent is not None:
            self.parent.child_state(self.session_id, "requires_action")
        answers = self.shared.approvals
        answer = answers.pop(0) if answers else {"outcome": "selected", "optionId": "allow"}
        decision = "allow_once" if answer.get("optionId") == "allow" else "reject_once"
        resolved = {"approvalId": approval_id, "outcome": answer["outcome"]}
        if answer.get("optionId"):
            resolved["optionId"] = answer["optionId"]
        resolved.update(decision=decision, answeredAt=self.frame())
        self.emit(f"approval.resolved:{approval_id}", "approval.resolved", resolved)
        if self.parent is not None:
            self.parent.child_state(self.session_id, "running")
        return decision

    def ask_question(self, call: _ToolCall):
        """ask_user: question.requested (choices c1, c2, …; free text allowed), the answer as the tool's result."""
        from .tools import ToolOutcome

        question_id = f"q-t-{self.task_call}-{call.id}" if self.task_call else f"q-{call.id}"
        choices = [{"id": f"c{i}", "label": label} for i, label in enumerate(call.input.get("choices") or [], 1)]
        self.emit(f"question.requested:{question_id}", "question.requested", {
            "questionId": question_id, "toolCallId": call.id, "prompt": call.input["prompt"], "choices": choices,
            "multiple": False, "allowFreeText": True})
        if self.parent is not None:
            self.parent.child_state(self.session_id, "requires_action")
        answer = self.shared.questions.pop(0) if self.shared.questions else {"outcome": "cancelled"}
        given = {k: answer[k] for k in ("choiceIds", "text") if k in answer}
        resolved = {"questionId": question_id, "outcome": answer["outcome"]}
        if given:
            resolved["answer"] = given
        resolved["answeredAt"] = self.frame()
        self.emit(f"question.resolved:{question_id}", "question.resolved", resolved)
        if self.parent is not None:
            self.parent.child_state(self.session_id, "running")
        return ToolOutcome({"outcome": answer["outcome"], **given})

    # -- sub-agents

    def child_state(self, child_session: str, state: str) -> None:
        self.child_updates += 1
        self.emit(f"child.updated:{child_session}:{self.child_updates}", "child.updated", {"childSessionId": child_session, "state": state})

    def run_task(self, call: _ToolCall):
        from .tools import ToolOutcome

        child_session, child_turn = f"{self.session_id}:task:{call.id}", f"{self.turn_id}:task:{call.id}"
        self.emit(f"child.started:{child_session}", "child.started", {
            "childSessionId": child_session, "childRunId": child_turn, "parentToolCallId": call.id,
            "title": call.input["description"], "description": call.input["prompt"]})
        self.child_state(child_session, "running")
        child = Turn(self.c, parent=self, session_id=child_session, turn_id=child_turn, prompt=call.input["prompt"], task_call=call.id)
        child.stages()
        # What the child spent counts as the parent turn's (its own step events stay in its namespace).
        for key in TOKEN_KEYS:
            self.usage[key] += child.usage[key]
        self.cost += child.cost
        answer = child.answer()
        self.emit(f"child.completed:{child_session}", "child.completed", {"childSessionId": child_session, "status": "completed", "summary": answer})
        return ToolOutcome({"childSessionId": child_session, "status": "completed", "answer": answer})


class _Denied(Exception):
    pass


def _now() -> str:
    now = dt.datetime.now(dt.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def history_of(conversation: list[dict]) -> list[dict]:
    """The Chat Completions messages of an earlier conversation (a resumed session)."""
    return chat_messages(conversation)


class TurnFailed(RuntimeError):
    """A turn's error whose message held a secret: raised with the message redacted instead."""


def run_turn(config: TurnConfig) -> TurnResult:
    try:
        return Turn(config).run()
    except Exception as error:
        # A model server may echo the request (its Authorization header included) in an error body.
        message = Redactor([config.api_key, *config.workspace.secrets]).text(str(error))
        if message != str(error):
            raise TurnFailed(message) from None
        raise
