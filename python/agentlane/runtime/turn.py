"""One staged turn of the built-in engine over the Chat Completions API.

anchor-plan (optional: a plan drafted without tools) → tool-loop (model steps with the workspace tools,
approvals for writes, edits and commands) → synthesize (the plan closed) → post-turn. Each stage ends in
a checkpoint; every model and tool call is a ledger row; what happens is drafted as canonical events
({key, kind, payload}) the lane would wrap in envelopes.
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

from ..checkpoints import session_state_of
from ..ids import SequentialIds
from .chat import stream_chat
from .jsjson import stringify
from .tools import DEFINITIONS, NAMES, NEEDS_APPROVAL, ToolError, Workspace, validate_input

SYNTHESIZE_PROMPT = "Answer the user now from what was done so far. Do not call tools."
SYSTEM_PROMPT = (
    "You are a coding agent working in a workspace folder. Use the tools to inspect and change files, then answer briefly."
)
PLAN_PROMPT = "Draft a short plan for the request as a numbered list, one step per line. Do not call tools and do not answer yet."
REJECTED = "The user rejected this tool call."
CAPABILITIES = {
    "streamingText": True, "reasoning": True, "plans": True, "toolProgress": True, "fileDiffs": True,
    "childSessions": False, "approvals": True, "questions": True, "commands": False, "usage": True,
    "modelSelection": True, "resume": True, "load": False, "close": True, "stop": True, "reconcile": False,
    "directTerminal": False, "desktop": False, "nativeEmbed": False, "knowledgeTools": False,
}
# The AI SDK's unified finish reasons, which the TypeScript runtime writes into finish_reason.
FINISH_REASONS = {"stop": "stop", "tool_calls": "tool-calls", "length": "length", "content_filter": "content-filter",
                  "function_call": "tool-calls"}


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
    base_url: str  # the provider's base URL, e.g. http://127.0.0.1:1234/v1
    workspace: Workspace
    api_key: str = "corpus-dummy-key"
    plan: bool = False
    max_steps: int = 8
    approvals: list[dict] = field(default_factory=list)
    clock: Callable[[], str] = field(default_factory=lambda: Clock("2026-01-01T00:00:00.000Z", 1000))
    ids: Callable[[], str] = field(default_factory=lambda: SequentialIds(0))
    frame_clock: Callable[[], str] | None = None
    turn_token_budget: int | None = None  # the tool loop stops once the turn's tokens pass it
    previous: dict | None = None  # the checkpoint a resumed session continues from
    generation: int = 1


@dataclass
class TurnResult:
    outcome: dict
    events: list[dict]
    ledger_rows: list[dict]
    checkpoints: list[dict]
    requests: list[dict]

    @property
    def session_state(self) -> dict:
        return session_state_of(self.checkpoints[-1])


@dataclass
class _ToolCall:
    id: str
    name: str
    arguments: str = ""
    input: Any = None


class Turn:
    def __init__(self, config: TurnConfig) -> None:
        self.c = config
        self.events: list[dict] = []
        self.rows: list[dict] = []
        self.checkpoints: list[dict] = []
        self.requests: list[dict] = []
        self.seq = 0
        self.history: list[dict] = []  # Chat Completions messages after the system prompt
        self.conversation: list[dict] = []
        self.plan: list[dict] = []
        self.version = 0
        self.usage = {"inputTokens": 0, "outputTokens": 0, "reasoningTokens": 0, "cachedInputTokens": 0}
        self.approval_answers = list(config.approvals)
        self.frames = 0
        if config.previous is not None:
            state = session_state_of(config.previous)
            self.conversation = copy.deepcopy(state["conversation"])
            self.plan = []
            self.version = max(s["version"] for s in config.previous["channels"].values())
            self.history = _history_of(self.conversation)

    # -- recording

    def emit(self, key: str, kind: str, payload: dict) -> None:
        self.events.append({"key": key, "kind": kind, "payload": payload})

    def frame(self) -> str:
        self.frames += 1
        return self.c.frame_clock() if self.c.frame_clock else _now()

    def checkpoint(self, stage: str) -> None:
        self.version += 1
        checkpoint_id = self.c.ids()
        envelope = {
            "id": checkpoint_id,
            "sessionId": self.c.thread_id,
            "stageId": stage,
            "createdAt": self.c.clock(),
            "schemaVersion": 1,
            "channels": {
                "conversation": {"kind": "last_value", "version": self.version, "value": {"value": copy.deepcopy(self.conversation)}},
                "plan": {"kind": "last_value", "version": self.version, "value": {"value": copy.deepcopy(self.plan)}},
            },
        }
        parent = self.checkpoints[-1]["id"] if self.checkpoints else (self.c.previous or {}).get("id")
        if parent is not None:
            envelope["parentCheckpointId"] = parent
        self.checkpoints.append(envelope)

    def row(self, stage: str, **columns: Any) -> None:
        self.seq += 1
        row = {
            "record_id": self.c.ids(), "audit_record_version": 1, "session_id": self.c.thread_id,
            "turn_id": self.c.turn_id, "stage_id": stage, "seq_within_turn": self.seq, "created_at": self.c.clock(),
            "actor_kind": "runtime",
        }
        row.update(columns)
        self.rows.append(row)

    # -- the stages

    def run(self) -> TurnResult:
        started = time.monotonic()
        self.frame()
        self.emit("turn.started", "turn.started", {"prompt": self.c.prompt})
        self.emit("session.started", "session.started", {
            "provider": "builtin", "origin": "new" if self.c.previous is None else "resumed",
            "generation": self.c.generation, "capabilities": CAPABILITIES, "nativeSessionId": self.c.thread_id,
            "cwd": "<workspace>", "agent": {"name": "agentlane-builtin"},
        })
        self.emit("session.metadata", "session.metadata", {"model": {"id": self.c.model}, "availableModels": [{"id": self.c.model}]})
        self.conversation.append({"id": f"{self.c.turn_id}:user", "role": "user", "parts": [{"type": "text", "text": self.c.prompt}]})
        self.history.append({"role": "user", "content": self.c.prompt})
        if self.c.plan:
            self.anchor_plan()
        self.tool_loop()
        self.synthesize()
        turn_usage = {"scope": "turn", "inputTokens": self.usage["inputTokens"], "outputTokens": self.usage["outputTokens"]}
        for optional in ("reasoningTokens", "cachedInputTokens"):
            if self.usage[optional]:
                turn_usage[optional] = self.usage[optional]
        turn_usage["model"] = self.c.model
        self.emit("usage:turn", "usage.updated", turn_usage)
        self.checkpoint("post-turn")
        self.emit("turn.completed", "turn.completed", {**self.stop_reason, "durationMs": round((time.monotonic() - started) * 1000)})
        return TurnResult({"outcome": "completed"}, self.events, self.rows, self.checkpoints, self.requests)

    def anchor_plan(self) -> None:
        body = {"model": self.c.model, "messages": [{"role": "system", "content": PLAN_PROMPT}, {"role": "user", "content": self.c.prompt}],
                "stream": True, "stream_options": {"include_usage": True}}
        step = self.call_model(body, step=None)
        self.row("anchor-plan", **self.model_columns(body, step, tools=[]))
        lines = [m.group(1).strip() for m in re.finditer(r"^\s*\d+[.)]\s+(.+)$", step["text"], re.M)]
        self.plan = [{"id": f"p{i}", "content": text, "status": "in_progress" if i == 1 else "pending"} for i, text in enumerate(lines, 1)]
        if self.plan:
            self.emit_plan()
        self.checkpoint("anchor-plan")

    def system_prompt(self) -> str:
        if not self.plan:
            return SYSTEM_PROMPT
        return SYSTEM_PROMPT + "\n\nThe plan for this turn:\n" + "\n".join(f"{i}. {e['content']}" for i, e in enumerate(self.plan, 1))

    def tool_loop(self) -> None:
        tools = [{"type": "function", "function": d} for d in DEFINITIONS]
        self.steps_spent = 0
        self.stop_reason: dict = {"stopReason": "end_turn"}
        for step_number in range(1, self.c.max_steps + 1):
            self.steps_spent = step_number
            body = {"model": self.c.model, "messages": [{"role": "system", "content": self.system_prompt()}, *self.history],
                    "tools": tools, "tool_choice": "auto", "stream": True, "stream_options": {"include_usage": True}}
            step = self.call_model(body, step=step_number)
            self.row("tool-loop", **self.model_columns(body, step, tools=NAMES))
            calls: list[_ToolCall] = step["tool_calls"]
            parts = ([{"type": "text", "text": step["text"]}] if step["text"] else []) + [
                {"type": "tool-call", "toolCallId": t.id, "toolName": t.name, "input": t.input} for t in calls
            ]
            self.conversation.append({"id": f"{self.c.turn_id}:a{step_number}", "role": "assistant", "parts": parts})
            assistant: dict[str, Any] = {"role": "assistant", "content": step["text"] or None}
            if calls:
                assistant["tool_calls"] = [
                    {"id": t.id, "type": "function", "function": {"name": t.name, "arguments": stringify(t.input)}} for t in calls
                ]
            self.history.append(assistant)
            if not calls:
                self.answered = True
                break
            results = [self.run_tool(t) for t in calls]
            self.conversation.append({"id": f"{self.c.turn_id}:t{step_number}", "role": "tool", "parts": [r[0] for r in results]})
            self.history += [r[1] for r in results]
            if self.plan:
                self.advance_plan()
                self.emit_plan()
            spent = self.usage["inputTokens"] + self.usage["outputTokens"]
            if self.c.turn_token_budget is not None and spent > self.c.turn_token_budget:
                self.budget_spent = spent
                break
        self.checkpoint("tool-loop")

    def synthesize(self) -> None:
        if not getattr(self, "answered", False):
            # The loop ran out of steps with tool calls pending an answer: say so, then answer without tools.
            self.emit("warning:1", "harness.warning", self.limit_warning())
            body = {"model": self.c.model, "messages": [{"role": "system", "content": SYNTHESIZE_PROMPT}, *self.history],
                    "stream": True, "stream_options": {"include_usage": True}}
            step = self.call_model(body, step=self.steps_spent + 1)
            self.row("synthesize", **self.model_columns(body, step, tools=[]))
            self.conversation.append({"id": f"{self.c.turn_id}:answer", "role": "assistant", "parts": [{"type": "text", "text": step["text"]}]})
            self.history.append({"role": "assistant", "content": step["text"]})
            budget = getattr(self, "budget_spent", None) is not None
            self.stop_reason = (
                {"stopReason": "max_tokens", "rawStopReason": "token_budget"}
                if budget
                else {"stopReason": "max_turn_requests", "rawStopReason": "step_limit"}
            )
        if self.plan:
            self.plan = [{**e, "status": "completed"} for e in self.plan]
            self.emit_plan()
        self.checkpoint("synthesize")

    def limit_warning(self) -> dict:
        spent = getattr(self, "budget_spent", None)
        if spent is not None:
            limit = self.c.turn_token_budget
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
        # The key hashes JSON.stringify of the entries (insertion order), as the TypeScript runtime does.
        text = stringify(self.plan)
        key = f"plan:0:{len(text)}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"
        self.emit(key, "plan.updated", {"planId": "turn-plan", "entries": copy.deepcopy(self.plan)})

    # -- one model call

    def call_model(self, body: dict, *, step: int | None) -> dict:
        self.requests.append(copy.deepcopy(body))
        started = time.monotonic()
        response = stream_chat(self.c.base_url, self.c.api_key, body)
        text, reasoning = "", ""
        text_open = reasoning_open = False
        text_index = reasoning_index = 0
        calls: dict[int, _ToolCall] = {}
        finish, usage = None, {}
        live = step is not None  # the anchor plan's stream is not shown as messages
        for chunk in response.chunks:
            self.frame()
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices", []):
                delta = choice.get("delta") or {}
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
                if delta.get("reasoning_content") and live:
                    rid = f"rsn-{step}-reasoning-{reasoning_index}"
                    reasoning_open = True
                    self.emit(f"reasoning.delta:{rid}:{len(reasoning)}", "reasoning.delta", {"reasoningId": rid, "delta": delta["reasoning_content"]})
                    reasoning += delta["reasoning_content"]
                if delta.get("content"):
                    if live:
                        if reasoning_open:
                            self._close_reasoning(step, reasoning_index, reasoning)
                            reasoning_open, reasoning_index = False, reasoning_index + 1
                        mid = f"msg-{step}-txt-{text_index}"
                        if not text_open:
                            text_open = True
                            self.emit(f"message.started:{mid}", "message.started", {"messageId": mid, "role": "assistant"})
                        self.emit(f"message.delta:{mid}:{len(text)}", "message.delta", {"messageId": mid, "partId": mid, "delta": delta["content"]})
                    text += delta["content"]
                for tc in delta.get("tool_calls") or []:
                    call = calls.get(tc["index"])
                    function = tc.get("function") or {}
                    if call is None:
                        call = calls[tc["index"]] = _ToolCall(tc["id"], function.get("name", ""))
                        self.emit(f"tool.started:{call.id}", "tool.started", {"toolCallId": call.id, "name": call.name, "kind": "other", "input": {}, "status": "pending"})
                    piece = function.get("arguments") or ""
                    if piece:
                        offset = len(call.arguments)
                        call.arguments += piece
                        self.emit(f"tool.input:{call.id}:{offset}", "tool.progress", {"toolCallId": call.id, "status": "pending", "input": call.arguments})
        if live and reasoning_open:
            self._close_reasoning(step, reasoning_index, reasoning)
        if live and text_open:
            mid = f"msg-{step}-txt-{text_index}"
            self.emit(f"message.completed:{mid}", "message.completed", {"messageId": mid, "role": "assistant", "text": text})
        ordered = [calls[i] for i in sorted(calls)]
        for call in ordered:
            try:
                call.input = json.loads(call.arguments or "{}")
            except ValueError:
                call.input = call.arguments
            self.emit(f"tool.input:{call.id}", "tool.progress", {"toolCallId": call.id, "status": "pending", "input": call.input})
        step_usage = {
            "inputTokens": usage.get("prompt_tokens", 0), "outputTokens": usage.get("completion_tokens", 0),
            "reasoningTokens": (usage.get("completion_tokens_details") or {}).get("reasoning_tokens", 0),
            "cachedInputTokens": (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0),
        }
        for k, v in step_usage.items():
            self.usage[k] += v
        if live:
            self.emit(f"usage:step:{step}", "usage.updated", {"scope": "step", **step_usage,
                                                             "totalTokens": step_usage["inputTokens"] + step_usage["outputTokens"]})
        return {"text": text, "tool_calls": ordered, "finish": FINISH_REASONS.get(finish or "", "other"), "usage": step_usage,
                "status": response.status, "latency_ms": round((time.monotonic() - started) * 1000)}

    def _close_reasoning(self, step: int, index: int, text: str) -> None:
        rid = f"rsn-{step}-reasoning-{index}"
        self.emit(f"reasoning.completed:{rid}", "reasoning.completed", {"reasoningId": rid, "text": text})

    def model_columns(self, body: dict, step: dict, *, tools: list[str]) -> dict:
        response: dict[str, Any] = {"toolCalls": [{"toolCallId": t.id, "toolName": t.name} for t in step["tool_calls"]]}
        if step["text"]:
            response["textPreview"] = step["text"]
        return {
            "session_auth_method": "api_key", "call_class": "model", "provider": "openai-chat", "model": self.c.model,
            "transport": "openai-chat", "status": "ok", "latency_ms": step["latency_ms"], "finish_reason": step["finish"],
            "http_status": step["status"],
            "payload": {"kind": "model_call",
                        "request": {"messageCount": len(self.conversation), "toolNames": tools, "promptPreview": self.c.prompt},
                        "response": response, "usage": step["usage"]},
        }

    # -- one tool call

    def run_tool(self, call: _ToolCall) -> tuple[dict, dict]:
        """Runs a tool call; returns (the conversation's tool-result part, the Chat Completions tool message)."""
        started = time.monotonic()
        payload: dict[str, Any] = {"kind": "tool_call", "toolCallId": call.id, "toolName": call.name, "input": call.input}
        approval = None
        self.emit(f"tool.running:{call.id}", "tool.progress", {"toolCallId": call.id, "status": "running", "input": call.input})
        try:
            validate_input(call.name, call.input)
            if call.name in NEEDS_APPROVAL:
                approval = self.ask_approval(call)
                if approval != "allow_once":
                    raise _Denied()
            outcome = self.c.workspace.run(call.name, call.input)
        except _Denied:
            payload.update(error=REJECTED, approval={"decision": approval})
            return self._tool_failed(call, payload, started, REJECTED,
                                     {"type": "execution-denied", "reason": REJECTED})
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
        part = {"type": "tool-result", "toolCallId": call.id, "toolName": call.name, "output": outcome.output, "isError": False}
        return part, {"role": "tool", "tool_call_id": call.id, "content": stringify(outcome.output)}

    def _tool_failed(self, call: _ToolCall, payload: dict, started: float, message: str, output: Any) -> tuple[dict, dict]:
        duration = round((time.monotonic() - started) * 1000)
        self.emit(f"tool.completed:{call.id}", "tool.completed", {"toolCallId": call.id, "status": "failed", "error": message, "durationMs": duration})
        self.row("tool-loop", **self.tool_columns("error", duration, payload))
        part = {"type": "tool-result", "toolCallId": call.id, "toolName": call.name, "output": output, "isError": True}
        return part, {"role": "tool", "tool_call_id": call.id, "content": message}

    def tool_columns(self, status: str, duration: int, payload: dict) -> dict:
        return {"session_auth_method": "none", "call_class": "tool", "provider": "builtin", "model": None,
                "transport": "in-process", "status": status, "latency_ms": duration, "finish_reason": None,
                "http_status": None, "payload": payload}

    def ask_approval(self, call: _ToolCall) -> str:
        title, subject = self.c.workspace.approval_subject(call.name, call.input)
        approval_id = f"apr-{call.id}"
        self.emit(f"approval.requested:{approval_id}", "approval.requested", {
            "approvalId": approval_id, "toolCallId": call.id, "title": title, "subject": subject, "input": call.input,
            "options": [{"optionId": "allow", "label": "Allow", "kind": "allow_once"},
                        {"optionId": "reject", "label": "Reject", "kind": "reject_once"}],
        })
        answer = self.approval_answers.pop(0) if self.approval_answers else {"outcome": "selected", "optionId": "allow"}
        decision = "allow_once" if answer.get("optionId") == "allow" else "reject_once"
        resolved = {"approvalId": approval_id, "outcome": answer["outcome"]}
        if answer.get("optionId"):
            resolved["optionId"] = answer["optionId"]
        resolved.update(decision=decision, answeredAt=self.frame())
        self.emit(f"approval.resolved:{approval_id}", "approval.resolved", resolved)
        return decision


class _Denied(Exception):
    pass


def _now() -> str:
    now = dt.datetime.now(dt.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def _history_of(conversation: list[dict]) -> list[dict]:
    """The Chat Completions messages of an earlier conversation (a resumed session)."""
    out: list[dict] = []
    for message in conversation:
        parts = message["parts"]
        if message["role"] == "user":
            out.append({"role": "user", "content": "".join(p["text"] for p in parts if p["type"] == "text")})
        elif message["role"] == "assistant":
            text = "".join(p["text"] for p in parts if p["type"] == "text")
            calls = [p for p in parts if p["type"] == "tool-call"]
            m: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                m["tool_calls"] = [{"id": p["toolCallId"], "type": "function",
                                    "function": {"name": p["toolName"], "arguments": stringify(p["input"])}} for p in calls]
            out.append(m)
        elif message["role"] == "tool":
            for p in parts:
                output = p["output"]
                if p.get("isError"):
                    content = output.get("reason", "") if isinstance(output, dict) else str(output)
                else:
                    content = stringify(output)
                out.append({"role": "tool", "tool_call_id": p["toolCallId"], "content": content})
    return out


def run_turn(config: TurnConfig) -> TurnResult:
    return Turn(config).run()
