"""The Python runtime replays every corpus turn — over Chat Completions, Responses, Anthropic Messages and
Gemini, with prices, and the sub-agent turn — and produces the same request bodies, ledger rows (same keys
and columns), checkpoint envelopes, events (namespaces included) and fingerprint."""

from __future__ import annotations

import json

import pytest

from agentlane.runtime.corpus import NOT_COMPARED_EVENTS, compare, replayable
from agentlane.runtime.diff import unified_diff
from agentlane.runtime.jsjson import js_length, stringify
from conftest import corpus_turns

TURNS = [t for t in corpus_turns() if replayable(t) is None]


def test_which_turns_are_replayed() -> None:
    assert {t["name"] for t in TURNS} == {t["name"] for t in corpus_turns()}
    assert {t["input"]["engine"]["api"] for t in TURNS} == {"openai-chat", "openai-responses", "anthropic", "google"}
    assert set(NOT_COMPARED_EVENTS) == {"tool.completed", "turn.completed", "approval.resolved", "question.resolved"}


@pytest.mark.parametrize("turn", TURNS, ids=lambda t: t["name"])
def test_replays_the_recorded_turn(turn) -> None:
    result = compare(turn)
    assert result.failures == {}


def test_stringify_is_json_stringify() -> None:
    assert stringify({"b": 1e-7, "a": [1.0, None, "\u2028\n"]}) == '{"b":1e-7,"a":[1,null,"\u2028\\n"]}'
    # Key offsets count UTF-16 code units, as JavaScript's length does: an emoji is two.
    assert js_length("a\U0001F600\u00e9") == 4


def test_diff_layout() -> None:
    text, additions, deletions = unified_diff("n.txt", None, "one\ntwo")
    assert text.splitlines()[1:4] == ["--- /dev/null", "+++ b/n.txt", "@@ -0,0 +1,2 @@"]
    assert text.endswith("+two\n\\ No newline at end of file\n") and (additions, deletions) == (2, 0)


def test_an_unanswered_prompt_goes_with_the_next_one_marked() -> None:
    # A cancelled or failed turn leaves its prompt followed by the next one; every provider sends them as one
    # user message with the mark between (the TypeScript runtime sends the same text: conversation.ts).
    from agentlane.runtime.providers import PROVIDERS, UNANSWERED_MARK

    def user(text: str) -> dict:
        return {"role": "user", "parts": [{"type": "text", "text": text}]}

    conversation = [user("hi"), {"role": "assistant", "parts": [{"type": "text", "text": "hello"}]},
                    user("slow story"), user("after cancel")]
    merged = f"slow story\n\n{UNANSWERED_MARK}\n\nafter cancel"
    assert UNANSWERED_MARK == "[No answer was given to the request above: its turn was cancelled or failed.]"
    for name, provider_class in PROVIDERS.items():
        body = json.dumps(provider_class("m", "k").body("sys", conversation, None))
        assert json.dumps(merged)[1:-1] in body, name
        assert body.count("slow story") == 1, name
