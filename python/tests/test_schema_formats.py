"""The bundle's `date-time` format and `pattern`s give the TypeScript parser's verdicts (agentlane.ecma).

Python read them differently: `re.search` with `$` took a ULID, sha256 or date-time ending in "\\n", and
jsonschema's date-time checker refused year 0000 and the leap second 23:59:60, which RFC 3339 and the TypeScript
parser accept. Each case's expected verdict is the TypeScript parser's, and the test asks it again.
"""

from __future__ import annotations

import json

import pytest

from agentlane.ecma import ecma_regex, is_date_time
from agentlane.events import FrameError, parse_stream_event
from agentlane.schema import is_valid, validate
from conftest import CONTRACT_FIXTURES, ts_oracle

CHECKPOINT = json.loads((CONTRACT_FIXTURES / "valid" / "checkpoint.json").read_text("utf-8"))["value"]
STREAM = json.loads((CONTRACT_FIXTURES / "valid" / "stream-canonical.json").read_text("utf-8"))["value"]

DATE_TIMES = {
    "2024-01-01T00:00:00Z": True,
    "2024-01-01t00:00:00z": True,  # RFC 3339 5.6: T and Z may be lower case
    "2024-01-01T00:00:00.1234567890123Z": True,
    "2024-01-01T00:00:00.5+05:30": True,
    "2024-01-01T00:00:00-00:00": True,
    "2024-01-01T00:00:00+23:59": True,
    "0000-01-01T00:00:00Z": True,  # year 0000
    "0000-02-29T00:00:00Z": True,  # a leap year
    "2000-02-29T00:00:00Z": True,
    "2016-12-31T23:59:60Z": True,  # a leap second
    "2024-01-01T00:59:60+01:00": True,  # 23:59:60 in UTC
    "2024-01-01T23:59:60.5Z": True,
    "2024-01-01T12:34:60Z": False,  # 60 only at 23:59 UTC
    "2024-01-01T00:00:60+01:00": False,
    "2024-01-01T00:00:61Z": False,
    "2023-02-29T00:00:00Z": False,
    "1900-02-29T00:00:00Z": False,
    "2024-04-31T00:00:00Z": False,
    "2024-13-01T00:00:00Z": False,
    "2024-01-00T00:00:00Z": False,
    "2024-01-01T24:00:00Z": False,
    "2024-01-01T00:60:00Z": False,
    "2024-01-01T00:00:00+24:00": False,
    "2024-01-01T00:00:00+12:60": False,
    "2024-01-01T00:00:00+0100": False,
    "2024-01-01T00:00Z": False,
    "2024-01-01 00:00:00Z": False,
    "2024-01-01T00:00:00": False,
    "2024-01-01T00:00:00.Z": False,
    "2024-01-01T00:00:00,5Z": False,
    "2024-01-01T00:00:00Z\n": False,  # was accepted
    "\n2024-01-01T00:00:00Z": False,
    "2024-01-01T00:00:00Z ": False,
    "+002024-01-01T00:00:00Z": False,
    "\uff12\uff10\uff12\uff14-01-01T00:00:00Z": False,  # full-width digits
    "2024-01-01T00:00:0\u0663Z": False,  # an Arabic-Indic digit
}


@pytest.mark.parametrize("text, valid", DATE_TIMES.items(), ids=[repr(t) for t in DATE_TIMES])
def test_date_time_is_rfc_3339(text, valid) -> None:
    assert is_date_time(text) is valid
    checkpoint = {**CHECKPOINT, "createdAt": text}
    assert (validate("Checkpoint", checkpoint) == []) is valid and is_valid("Checkpoint", checkpoint) is valid
    frame = json.loads(json.dumps(STREAM))
    frame["event"]["ts"] = text
    assert (validate("CanonicalStreamEvent", frame) == []) is valid


def test_date_times_agree_with_the_typescript_parser() -> None:
    texts = list(DATE_TIMES)
    verdicts = ts_oracle([["shape", "Checkpoint", {**CHECKPOINT, "createdAt": t}] for t in texts])
    assert {t: v == "ok" for t, v in zip(texts, verdicts)} == DATE_TIMES


PATTERNS = [
    ("id", "01ARZ3NDEKTSV4RRFFQ69G5FAV", True),
    ("id", "01ARZ3NDEKTSV4RRFFQ69G5FAV\n", False),  # was accepted
    ("parentCheckpointId", "01ARZ3NDEKTSV4RRFFQ69G5FAV\n", False),
]


@pytest.mark.parametrize("field, text, valid", PATTERNS)
def test_patterns_end_at_the_end(field, text, valid) -> None:
    checkpoint = {**CHECKPOINT, field: text}
    assert (validate("Checkpoint", checkpoint) == []) is valid and is_valid("Checkpoint", checkpoint) is valid
    assert ts_oracle([["shape", "Checkpoint", checkpoint]]) == ["ok" if valid else "invalid"]


def test_a_sha256_with_a_newline_is_refused() -> None:
    sha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    rx = ecma_regex("^[0-9a-f]{64}$")
    assert rx.search(sha) and not rx.search(sha + "\n")


def test_ecma_dot_is_not_a_line_terminator() -> None:
    # The bundle's `^.*$` keys: in ECMA-262 `.` matches none of \n \r U+2028 U+2029.
    rx = ecma_regex("^.*$")
    assert rx.search("a") and not any(rx.search(f"a{c}b") for c in "\n\r\u2028\u2029")
    assert ecma_regex(r"^[$.]\$$").search(".$") and not ecma_regex(r"^[$.]\$$").search("x$")


@pytest.mark.parametrize("frame_type", ["", 5, None])
def test_a_frame_with_an_empty_or_non_string_type_is_invalid(frame_type) -> None:
    frame = {**STREAM, "type": frame_type}
    with pytest.raises(FrameError):
        parse_stream_event(frame)
    assert ts_oracle([["stream", frame]]) == ["invalid"]


def test_an_unknown_type_is_still_skipped() -> None:
    frame = {**STREAM, "type": "some.future.kind"}
    assert parse_stream_event(frame) is None
    assert ts_oracle([["stream", frame]]) == ["skipped"]
