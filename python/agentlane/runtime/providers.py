"""The four model wire APIs the built-in engine speaks: Chat Completions, Responses, Anthropic Messages, Gemini.

Each provider does two things: it turns the conversation (the checkpoint's `conversation` channel, the one
source of truth for history) into its request body, and it turns its streamed response into the same
provider-neutral parts, in the order the model's stream implies them:

    ("reasoning-start", id) ("reasoning-delta", id, text) ("reasoning-end", id)
    ("text-start", id) ("text-delta", id, text) ("text-end", id)
    ("tool-input-start", call_id, name) ("tool-input-delta", call_id, text) ("tool-call", call_id, name, json_text)
    ("finish", finish_reason, usage)

`id`s are the stream's own names of its blocks (a Responses item id, an Anthropic block index, a counter
where the wire has none); the turn prefixes them with the step number for event ids. Finish reasons are the
unified names the ledger stores (`stop`, `tool-calls`, `length`, `content-filter`, `other`); usage is
{inputTokens, outputTokens, reasoningTokens (only when the wire reports it), cachedInputTokens}.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable, Iterator

from .jsjson import stringify

Part = tuple


def _tool_result_text(part: dict) -> str:
    """What the model reads as a tool's result: the output as JSON text, or the error's text."""
    output = part["output"]
    if part.get("isError"):
        return output.get("reason", "") if isinstance(output, dict) else str(output)
    return stringify(output)


def _text_of(parts: list[dict]) -> str:
    return "".join(p["text"] for p in parts if p["type"] == "text")


UNANSWERED_MARK = "[No answer was given to the request above: its turn was cancelled or failed.]"


def unanswered_merged(conversation: list[dict]) -> list[dict]:
    """The conversation with each run of consecutive user messages as one.

    A turn that ended without an answer (cancelled, failed, an empty reply) leaves its prompt followed by the
    next one. Providers want roles to alternate, and the model should know the first request was not
    answered, so the two texts become one, with UNANSWERED_MARK between them on lines of its own.
    """
    out: list[dict] = []
    for message in conversation:
        previous = out[-1] if out else None
        if message["role"] == "user" and previous is not None and previous["role"] == "user":
            text = f"{_text_of(previous['parts'])}\n\n{UNANSWERED_MARK}\n\n{_text_of(message['parts'])}"
            out[-1] = {**previous, "parts": [{"type": "text", "text": text}]}
        else:
            out.append(message)
    return out


class Provider:
    api = ""

    def __init__(self, model: str, api_key: str, provider_ids: Callable[[], str] | None = None) -> None:
        self.model, self.api_key = model, api_key
        self.provider_ids = provider_ids

    # request side
    def path(self) -> str:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.api_key}"}

    def body(self, system: str, conversation: list[dict], tools: list[dict] | None) -> dict:
        raise NotImplementedError

    # response side
    def parts(self, messages: Iterator[Any]) -> Iterator[Part]:
        raise NotImplementedError


class OpenAIChat(Provider):
    api = "openai-chat"
    FINISH = {"stop": "stop", "tool_calls": "tool-calls", "function_call": "tool-calls", "length": "length",
              "content_filter": "content-filter"}

    def path(self) -> str:
        return "/chat/completions"

    def body(self, system, conversation, tools):
        body: dict[str, Any] = {"model": self.model, "messages": [{"role": "system", "content": system}, *chat_messages(conversation)]}
        if tools is not None:
            body["tools"] = [{"type": "function", "function": d} for d in tools]
            body["tool_choice"] = "auto"
        body.update(stream=True, stream_options={"include_usage": True})
        return body

    def parts(self, messages):
        reasoning_open = text_open = False
        reasoning_index = 0
        calls: dict[int, list] = {}
        finish, usage = None, {}
        for message in messages:
            if message.data.strip() == "[DONE]":
                break
            chunk = json.loads(message.data)
            if chunk.get("usage"):
                usage = chunk["usage"]
            for choice in chunk.get("choices", []):
                delta = choice.get("delta") or {}
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
                if delta.get("reasoning_content"):
                    if not reasoning_open:
                        reasoning_open = True
                        yield ("reasoning-start", f"reasoning-{reasoning_index}")
                    yield ("reasoning-delta", f"reasoning-{reasoning_index}", delta["reasoning_content"])
                if delta.get("content"):
                    if reasoning_open:
                        yield ("reasoning-end", f"reasoning-{reasoning_index}")
                        reasoning_open, reasoning_index = False, reasoning_index + 1
                    if not text_open:
                        text_open = True
                        yield ("text-start", "txt-0")
                    yield ("text-delta", "txt-0", delta["content"])
                for tc in delta.get("tool_calls") or []:
                    function = tc.get("function") or {}
                    if tc["index"] not in calls:
                        calls[tc["index"]] = [tc["id"], function.get("name", ""), ""]
                        yield ("tool-input-start", tc["id"], function.get("name", ""))
                    piece = function.get("arguments") or ""
                    if piece:
                        calls[tc["index"]][2] += piece
                        yield ("tool-input-delta", calls[tc["index"]][0], piece)
        if reasoning_open:
            yield ("reasoning-end", f"reasoning-{reasoning_index}")
        if text_open:
            yield ("text-end", "txt-0")
        for index in sorted(calls):
            call_id, name, arguments = calls[index]
            yield ("tool-call", call_id, name, arguments)
        step_usage = {"inputTokens": usage.get("prompt_tokens", 0), "outputTokens": usage.get("completion_tokens", 0)}
        details = usage.get("completion_tokens_details") or {}
        if "reasoning_tokens" in details:
            step_usage["reasoningTokens"] = details["reasoning_tokens"]
        step_usage["cachedInputTokens"] = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
        yield ("finish", self.FINISH.get(finish or "", "other"), step_usage)


def chat_messages(conversation: list[dict]) -> list[dict]:
    """The Chat Completions messages of a conversation (after the system prompt)."""
    out: list[dict] = []
    for message in unanswered_merged(conversation):
        parts = message["parts"]
        if message["role"] == "user":
            out.append({"role": "user", "content": _text_of(parts)})
        elif message["role"] == "assistant":
            calls = [p for p in parts if p["type"] == "tool-call"]
            m: dict[str, Any] = {"role": "assistant", "content": _text_of(parts) or None}
            if calls:
                m["tool_calls"] = [{"id": p["toolCallId"], "type": "function",
                                    "function": {"name": p["toolName"], "arguments": stringify(p["input"])}} for p in calls]
            out.append(m)
        elif message["role"] == "tool":
            out += [{"role": "tool", "tool_call_id": p["toolCallId"], "content": _tool_result_text(p)} for p in parts]
    return out


class OpenAIResponses(Provider):
    api = "openai-responses"

    def path(self) -> str:
        return "/responses"

    def body(self, system, conversation, tools):
        items: list[dict] = [{"role": "system", "content": system}]
        for message in unanswered_merged(conversation):
            parts = message["parts"]
            if message["role"] == "user":
                items.append({"role": "user", "content": [{"type": "input_text", "text": _text_of(parts)}]})
            elif message["role"] == "assistant":
                if _text_of(parts):
                    items.append({"role": "assistant", "content": [{"type": "output_text", "text": _text_of(parts)}]})
                items += [{"type": "function_call", "call_id": p["toolCallId"], "name": p["toolName"], "arguments": stringify(p["input"])}
                          for p in parts if p["type"] == "tool-call"]
            elif message["role"] == "tool":
                items += [{"type": "function_call_output", "call_id": p["toolCallId"], "output": _tool_result_text(p)} for p in parts]
        body: dict[str, Any] = {"model": self.model, "input": items}
        if tools is not None:
            body["tools"] = [{"type": "function", **d} for d in tools]
            body["tool_choice"] = "auto"
        body["stream"] = True
        return body

    def parts(self, messages):
        calls: dict[str, list] = {}  # item id → [call_id, name]
        summaries: dict[str, int] = {}  # reasoning item id → summary parts opened
        usage, status, called = {}, "completed", False
        for message in messages:
            event = json.loads(message.data)
            kind = event.get("type")
            if kind == "response.output_item.added":
                item = event["item"]
                if item["type"] == "message":
                    yield ("text-start", item["id"])
                elif item["type"] == "reasoning":
                    summaries[item["id"]] = 1
                    yield ("reasoning-start", f"{item['id']}:0")
                elif item["type"] == "function_call":
                    calls[item["id"]] = [item["call_id"], item["name"]]
                    yield ("tool-input-start", item["call_id"], item["name"])
            elif kind == "response.reasoning_summary_part.added" and event["summary_index"] > 0:
                summaries[event["item_id"]] = event["summary_index"] + 1
                yield ("reasoning-start", f"{event['item_id']}:{event['summary_index']}")
            elif kind == "response.reasoning_summary_text.delta":
                yield ("reasoning-delta", f"{event['item_id']}:{event['summary_index']}", event["delta"])
            elif kind == "response.output_text.delta":
                yield ("text-delta", event["item_id"], event["delta"])
            elif kind == "response.function_call_arguments.delta":
                yield ("tool-input-delta", calls[event["item_id"]][0], event["delta"])
            elif kind == "response.output_item.done":
                item = event["item"]
                if item["type"] == "message":
                    yield ("text-end", item["id"])
                elif item["type"] == "reasoning":
                    for index in range(summaries.pop(item["id"], 1)):
                        yield ("reasoning-end", f"{item['id']}:{index}")
                elif item["type"] == "function_call":
                    called = True
                    yield ("tool-call", item["call_id"], item["name"], item.get("arguments") or "")
            elif kind in ("response.completed", "response.incomplete", "response.failed"):
                response = event["response"]
                usage, status = response.get("usage") or {}, response.get("status", status)
        step_usage = {"inputTokens": usage.get("input_tokens", 0), "outputTokens": usage.get("output_tokens", 0)}
        details = usage.get("output_tokens_details") or {}
        if "reasoning_tokens" in details:
            step_usage["reasoningTokens"] = details["reasoning_tokens"]
        step_usage["cachedInputTokens"] = (usage.get("input_tokens_details") or {}).get("cached_tokens", 0)
        finish = "tool-calls" if called else "stop" if status == "completed" else "length" if status == "incomplete" else "other"
        yield ("finish", finish, step_usage)


class Anthropic(Provider):
    api = "anthropic"
    MAX_TOKENS = 4096
    FINISH = {"end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop", "tool_use": "tool-calls",
              "max_tokens": "length", "refusal": "content-filter"}

    def path(self) -> str:
        return "/messages"

    def headers(self) -> dict[str, str]:
        return {"x-api-key": self.api_key, "anthropic-version": "2023-06-01"}

    def body(self, system, conversation, tools):
        messages: list[dict] = []
        for message in unanswered_merged(conversation):
            parts = message["parts"]
            if message["role"] == "user":
                content = [{"type": "text", "text": _text_of(parts)}]
            elif message["role"] == "assistant":
                content = ([{"type": "text", "text": _text_of(parts)}] if _text_of(parts) else []) + [
                    {"type": "tool_use", "id": p["toolCallId"], "name": p["toolName"], "input": p["input"]}
                    for p in parts if p["type"] == "tool-call"]
            else:
                content = [{"type": "tool_result", "tool_use_id": p["toolCallId"], "content": _tool_result_text(p),
                            **({"is_error": True} if p.get("isError") else {})} for p in parts]
            role = "assistant" if message["role"] == "assistant" else "user"
            if messages and messages[-1]["role"] == role:  # the API alternates roles: merge neighbours
                messages[-1]["content"] += content
            else:
                messages.append({"role": role, "content": content})
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.MAX_TOKENS, "system": [{"type": "text", "text": system}],
                                "messages": messages}
        if tools is not None:
            body["tools"] = [{"name": d["name"], "description": d["description"], "input_schema": d["parameters"],
                              "eager_input_streaming": True} for d in tools]
            body["tool_choice"] = {"type": "auto"}
        body["stream"] = True
        return body

    def parts(self, messages):
        blocks: dict[int, list] = {}  # index → [type, id/name..., json text]
        usage: dict = {}
        output, stop, stopped = 0, None, False
        for message in messages:
            event = json.loads(message.data)
            kind = event.get("type")
            if kind == "message_start":
                usage = event["message"].get("usage") or {}
                output = usage.get("output_tokens", 0)
            elif kind == "content_block_start":
                block, index = event["content_block"], event["index"]
                if block["type"] == "text":
                    blocks[index] = ["text"]
                    yield ("text-start", str(index))
                elif block["type"] == "thinking":
                    blocks[index] = ["thinking"]
                    yield ("reasoning-start", str(index))
                elif block["type"] == "tool_use":
                    blocks[index] = ["tool_use", block["id"], block["name"], ""]
                    yield ("tool-input-start", block["id"], block["name"])
            elif kind == "content_block_delta":
                delta, index = event["delta"], event["index"]
                if delta["type"] == "text_delta":
                    yield ("text-delta", str(index), delta["text"])
                elif delta["type"] == "thinking_delta":
                    yield ("reasoning-delta", str(index), delta["thinking"])
                elif delta["type"] == "signature_delta":
                    yield ("reasoning-delta", str(index), "")  # the signature carries no text
                elif delta["type"] == "input_json_delta" and delta.get("partial_json"):
                    blocks[index][3] += delta["partial_json"]
                    yield ("tool-input-delta", blocks[index][1], delta["partial_json"])
            elif kind == "content_block_stop":
                block = blocks.pop(event["index"], None)
                if block is None:
                    continue
                if block[0] == "text":
                    yield ("text-end", str(event["index"]))
                elif block[0] == "thinking":
                    yield ("reasoning-end", str(event["index"]))
                else:
                    yield ("tool-call", block[1], block[2], block[3] or "{}")
            elif kind == "message_delta":
                stop = (event.get("delta") or {}).get("stop_reason", stop)
                output = (event.get("usage") or {}).get("output_tokens", output)
            elif kind == "message_stop":
                stopped = True
            elif kind == "error":
                raise ModelStreamError(json.dumps(event.get("error")))
        if not stopped:
            raise ModelStreamError("the model stream ended without its final message_stop event")
        cached = usage.get("cache_read_input_tokens") or 0
        inputs = usage.get("input_tokens", 0) + (usage.get("cache_creation_input_tokens") or 0) + cached
        yield ("finish", self.FINISH.get(stop or "", "other"), {"inputTokens": inputs, "outputTokens": output, "cachedInputTokens": cached})


class Google(Provider):
    api = "google"
    FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content-filter", "RECITATION": "content-filter",
              "BLOCKLIST": "content-filter", "PROHIBITED_CONTENT": "content-filter", "SPII": "content-filter"}

    def path(self) -> str:
        return f"/models/{self.model}:streamGenerateContent?alt=sse"

    def headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.api_key}

    def body(self, system, conversation, tools):
        contents: list[dict] = []
        for message in unanswered_merged(conversation):
            parts = message["parts"]
            if message["role"] == "user":
                contents.append({"role": "user", "parts": [{"text": _text_of(parts)}]})
            elif message["role"] == "assistant":
                contents.append({"role": "model", "parts": ([{"text": _text_of(parts)}] if _text_of(parts) else []) + [
                    {"functionCall": {"id": p["toolCallId"], "name": p["toolName"], "args": p["input"]}}
                    for p in parts if p["type"] == "tool-call"]})
            else:
                contents.append({"role": "user", "parts": [
                    {"functionResponse": {"id": p["toolCallId"], "name": p["toolName"],
                                          "response": {"name": p["toolName"],
                                                       "content": _tool_result_text(p) if p.get("isError") else p["output"]}}}
                    for p in parts]})
        body: dict[str, Any] = {"generationConfig": {}, "contents": contents, "systemInstruction": {"parts": [{"text": system}]}}
        if tools is not None:
            body["tools"] = [{"functionDeclarations": [{**d, "parameters": _gemini_schema(d["parameters"])} for d in tools]}]
            body["toolConfig"] = {"functionCallingConfig": {"mode": "AUTO"}}
        return body

    def parts(self, messages):
        counter = 0
        text_id = reasoning_id = None
        usage: dict = {}
        finish, called = None, False
        for message in messages:
            chunk = json.loads(message.data)
            if chunk.get("usageMetadata"):
                usage = chunk["usageMetadata"]
            for candidate in (chunk.get("candidates") or [])[:1]:
                for part in (candidate.get("content") or {}).get("parts") or []:
                    if "functionCall" in part:
                        call = part["functionCall"]
                        call_id = call.get("id") or (self.provider_ids() if self.provider_ids else f"call-{counter}")
                        called = True
                        text = stringify(call.get("args") or {})
                        yield ("tool-input-start", call_id, call["name"])
                        yield ("tool-input-delta", call_id, text)
                        yield ("tool-call", call_id, call["name"], text)
                    elif part.get("text"):
                        if part.get("thought"):
                            if text_id is not None:
                                yield ("text-end", text_id)
                                text_id = None
                            if reasoning_id is None:
                                reasoning_id, counter = str(counter), counter + 1
                                yield ("reasoning-start", reasoning_id)
                            yield ("reasoning-delta", reasoning_id, part["text"])
                        else:
                            if reasoning_id is not None:
                                yield ("reasoning-end", reasoning_id)
                                reasoning_id = None
                            if text_id is None:
                                text_id, counter = str(counter), counter + 1
                                yield ("text-start", text_id)
                            yield ("text-delta", text_id, part["text"])
                if candidate.get("finishReason"):
                    finish = candidate["finishReason"]
        if text_id is not None:
            yield ("text-end", text_id)
        if reasoning_id is not None:
            yield ("reasoning-end", reasoning_id)
        step_usage = {"inputTokens": usage.get("promptTokenCount", 0),
                      "outputTokens": usage.get("candidatesTokenCount", 0) + usage.get("thoughtsTokenCount", 0)}
        if "thoughtsTokenCount" in usage:
            step_usage["reasoningTokens"] = usage["thoughtsTokenCount"]
        step_usage["cachedInputTokens"] = usage.get("cachedContentTokenCount", 0)
        reason = "tool-calls" if called and finish == "STOP" else self.FINISH.get(finish or "", "other")
        yield ("finish", reason, step_usage)


def _gemini_schema(schema: Any) -> Any:
    """Gemini's OpenAPI-subset schema: the keywords it does not take (`minimum` on integers) are dropped."""
    if isinstance(schema, dict):
        return {k: _gemini_schema(v) for k, v in schema.items() if k not in ("minimum", "additionalProperties", "$schema")}
    if isinstance(schema, list):
        return [_gemini_schema(v) for v in schema]
    return copy.deepcopy(schema)


class ModelStreamError(RuntimeError):
    pass


PROVIDERS: dict[str, type[Provider]] = {p.api: p for p in (OpenAIChat, OpenAIResponses, Anthropic, Google)}
