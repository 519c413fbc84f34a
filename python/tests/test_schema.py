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


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))


def _mutate(value, rng):
    """A copy with one random change: a key dropped, a value of the wrong type or range, an unknown key."""
    import copy

    value = copy.deepcopy(value)
    path = rng.choice([p for p in _paths(value) if p])
    parent = value
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    choice = rng.randrange(4)
    if choice == 0 and isinstance(parent, dict):
        del parent[last]
    elif choice == 1:
        parent[last] = rng.choice([None, True, -1, 1.5, "", "x", [], {}, "2026-13-99T00:00:00Z"])
    elif choice == 2 and isinstance(parent, dict):
        parent["unexpectedField"] = 1
    else:
        target = parent[last]
        parent[last] = (target + "!" if isinstance(target, str) else -target if isinstance(target, (int, float)) and not isinstance(target, bool) else None)
    return value


def test_fast_check_gives_jsonschemas_verdicts() -> None:
    import random

    from agentlane.schema import _fast, _validator

    cases = [(json.loads(p.read_text("utf-8"))["shape"], json.loads(p.read_text("utf-8"))["value"]) for p in FIXTURES]
    for turn in corpus_turns():
        cases += [("Checkpoint", c) for c in turn["checkpoints"]] + [("AuditableCall", r) for r in turn["ledgerRows"]]
        cases += [("CanonicalEventDraft", {"kind": e["kind"], "payload": e["payload"]}) for e in turn["events"]]
        cases.append(("SessionState", turn["sessionState"]))
    rng = random.Random(2020)
    valid = [(s, v) for s, v in cases if _validator(s).is_valid(v) and isinstance(v, (dict, list)) and v]
    cases += [(s, _mutate(v, rng)) for s, v in rng.choices(valid, k=600)]
    wrong = [(s, v) for s, v in cases if _fast(s)(v) != _validator(s).is_valid(v)]
    assert wrong == []
    assert sum(1 for s, v in cases if not _validator(s).is_valid(v)) > 200  # the mutations do break things
