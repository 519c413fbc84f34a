"""The Python runtime replays every corpus turn — over Chat Completions, Responses, Anthropic Messages and
Gemini, with prices, and the sub-agent turn — and produces the same request bodies, ledger rows (same keys
and columns), checkpoint envelopes, events (namespaces included) and fingerprint."""

from __future__ import annotations

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
