"""The bundle gives the same verdict in Python as the TypeScript parser gives on every contract fixture."""

from __future__ import annotations

import json

import pytest

from agentlane.schema import canonical_kinds, validate
from conftest import CONTRACT_FIXTURES, corpus_turns

FIXTURES = sorted(CONTRACT_FIXTURES.glob("*/*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_verdicts(path) -> None:
    fixture = json.loads(path.read_text("utf-8"))
    issues = validate(fixture["shape"], fixture["value"])
    if path.parent.name == "valid":
        assert issues == []
    else:
        assert issues, fixture["description"]


def test_corpus_shapes_are_valid() -> None:
    for turn in corpus_turns():
        assert validate("SessionState", turn["sessionState"]) == []
        for checkpoint in turn["checkpoints"]:
            assert validate("Checkpoint", checkpoint) == []
        for row in turn["ledgerRows"]:
            assert validate("AuditableCall", row) == []
        for event in turn["events"]:
            assert validate("CanonicalEventDraft", {"kind": event["kind"], "payload": event["payload"]}) == []


def test_thirty_kinds() -> None:
    assert len(canonical_kinds()) == 30
