"""RFC 8785: the RFC author's test vectors, ECMAScript number formatting, and the same bytes as the TypeScript side."""

from __future__ import annotations

import json
import pathlib
import random
import struct

import pytest

from agentlane.canonical import CanonicalJsonError, canonical_json, ecmascript_number, fingerprint
from conftest import CONTRACT_FIXTURES, corpus_turns, ts_oracle

RFC_DIR = pathlib.Path(__file__).resolve().parent / "fixtures" / "rfc8785"


@pytest.mark.parametrize("name", sorted(p.stem for p in (RFC_DIR / "input").glob("*.json")))
def test_rfc8785_vectors(name: str) -> None:
    source = json.loads((RFC_DIR / "input" / f"{name}.json").read_text("utf-8"))
    expected = (RFC_DIR / "output" / f"{name}.json").read_bytes()
    assert canonical_json(source).encode("utf-8") == expected


# RFC 8785 Appendix B: IEEE-754 bit patterns and their ECMAScript form.
APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


def _double(hex_bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(hex_bits))[0]


@pytest.mark.parametrize(("bits", "expected"), APPENDIX_B)
def test_rfc8785_appendix_b_numbers(bits: str, expected: str) -> None:
    assert ecmascript_number(_double(bits)) == expected


def test_numbers_match_ecmascript_on_random_doubles() -> None:
    rng = random.Random(8785)
    patterns = []
    while len(patterns) < 4000:
        bits = rng.getrandbits(64)
        if (bits >> 52) & 0x7FF == 0x7FF:
            continue  # NaN and Infinity have no JSON form
        patterns.append(f"{bits:016x}")
    # Numbers a runtime really meets: small integers, money-like decimals, millisecond timestamps.
    extra = [rng.randint(-(10**6), 10**6) / 100 for _ in range(500)] + [float(rng.randint(0, 2**53)) for _ in range(200)]
    patterns += [struct.pack(">d", v).hex() for v in extra]
    ours = [ecmascript_number(_double(p)) for p in patterns]
    theirs = ts_oracle([["number", p] for p in patterns])
    mismatches = [(p, a, b) for p, a, b in zip(patterns, ours, theirs) if a != b]
    assert mismatches == []


def test_refuses_what_has_no_canonical_form() -> None:
    # An int beyond a double (JavaScript reads it as Infinity), also one too long for str() (> 4,300 digits).
    for bad in (float("nan"), float("inf"), {1: "x"}, object(), "\ud800", 10**400, -(10**400), 10**5000):
        with pytest.raises(CanonicalJsonError):
            canonical_json(bad)


def test_integers_behave_like_doubles() -> None:
    # A JavaScript reader holds 2^53 + 1 as 2^53: the canonical text must say so too.
    assert canonical_json(9007199254740993) == "9007199254740992"
    assert canonical_json([True, False, None, -0.0, 1.0]) == "[true,false,null,0,1]"


def test_corpus_fingerprints_are_the_recorded_ones() -> None:
    for turn in corpus_turns():
        assert fingerprint(turn["sessionState"]) == turn["fingerprint"], turn["name"]


def _every_value() -> list[tuple[str, object]]:
    """Every SessionState, checkpoint, ledger row, event payload and request body of the corpus, and every contract fixture."""
    values: list[tuple[str, object]] = []
    for turn in corpus_turns():
        name = turn["name"]
        values.append((f"{name}.sessionState", turn["sessionState"]))
        values += [(f"{name}.checkpoints[{i}]", c) for i, c in enumerate(turn["checkpoints"])]
        values += [(f"{name}.ledgerRows[{i}]", r) for i, r in enumerate(turn["ledgerRows"])]
        values += [(f"{name}.events[{i}].payload", e["payload"]) for i, e in enumerate(turn["events"])]
        values += [(f"{name}.exchanges[{i}].body", x["request"]["body"]) for i, x in enumerate(turn["exchanges"])]
        values.append((f"{name}.input", turn["input"]))
    for path in sorted(CONTRACT_FIXTURES.glob("*/*.json")):
        values.append((f"{path.parent.name}/{path.name}", json.loads(path.read_text("utf-8"))["value"]))
    return values


def test_same_bytes_as_typescript_on_corpus_and_fixtures() -> None:
    values = _every_value()
    assert len(values) > 300
    theirs = ts_oracle([["canonical", v] for _, v in values])
    differing = [name for (name, v), text in zip(values, theirs) if canonical_json(v) != text]
    assert differing == []
    fingerprints = ts_oracle([["fingerprint", v] for _, v in values[:50]])
    assert [fingerprint(v) for _, v in values[:50]] == fingerprints
