"""The redactor alone: the rules on whole strings and JSON values, and the streaming form over every cut."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from agentlane.runtime.redaction import MIN_HELD, REDACTED, Pieces, Redactor

KEY = "sk-test-1234567890"
TOKEN = "tok.abc-1234567"
R = Redactor([KEY, "short", None, ""])


@pytest.mark.parametrize("text, want", [
    (f"the key is {KEY}.", "the key is [REDACTED]."),
    (f"{KEY}{KEY}", REDACTED),  # side by side: one marker
    (f"Authorization: Bearer {TOKEN}", "Authorization: [REDACTED]"),  # a header loses its scheme too
    (f"curl -H 'Bearer {TOKEN}' x", "curl -H 'Bearer [REDACTED]' x"),
    ("bearer abcdefgh1", "bearer [REDACTED]"),
    ("a Bearer instruments b, Bearer abc12 c", "a Bearer instruments b, Bearer abc12 c"),  # no digit/-._, or < 8
    ("proxy-authorization: Basic dXNlcjpwYXNz\nnext", "proxy-authorization: [REDACTED]\nnext"),
    ('{"authorization":"Bearer abcdefgh1234","x":1}', '{"authorization":"[REDACTED]","x":1}'),
    ("x-api-key: abc next", "x-api-key: [REDACTED] next"),
    ("X-Goog-Api-Key=AIzaXYZ&b=1", "X-Goog-Api-Key=[REDACTED]&b=1"),
    ('api_key=v1 api-key: "v2" apikey = v3', 'api_key=[REDACTED] api-key: "[REDACTED]" apikey = [REDACTED]'),
    ("export OPENAI_API_KEY=sk-x", "export OPENAI_API_KEY=[REDACTED]"),
    ("an api key: kept; authorization header missing; x-api-key: <your key>",
     "an api key: kept; authorization header missing; x-api-key: <your key>"),
    ("short values are not looked for: short", "short values are not looked for: short"),
])
def test_one_shot_rules(text: str, want: str) -> None:
    assert R.text(text) == want
    assert R.text(want) == want  # idempotent: redacting twice changes nothing more


def test_json_values_keys_and_credential_named_keys() -> None:
    value = {"headers": {"Authorization": "Basic xyz", "x-api-key": "plain", "apiKey": ""}, KEY: [1, f"a {KEY}"], "n": 1.5}
    assert R.json(value) == {"headers": {"Authorization": REDACTED, "x-api-key": REDACTED, "apiKey": ""},
                             REDACTED: [1, f"a {REDACTED}"], "n": 1.5}


def _streamed(redactor: Redactor, pieces: list[str]) -> list[str]:
    stream = redactor.stream()
    return [stream.push(p) for p in pieces] + [stream.flush()]


SECRET_TEXT = f"Key: {KEY} and Authorization: Bearer {TOKEN}, then x-api-key: hdr-9999 and Bearer {TOKEN} ok {KEY}"
SECRETS = (KEY, TOKEN, "hdr-9999")
# A piece boundary in the first MIN_HELD - 1 characters of a key lets those characters out (so ordinary text
# ending like a key begins keeps its cuts); the rest of the key is still replaced.
LET_OUT = re.compile("|".join(re.escape(KEY[:n]) for n in range(MIN_HELD - 1, 0, -1)) + r"(?=\[REDACTED\])")


def test_a_secret_split_at_any_two_places_is_in_no_piece() -> None:
    whole = R.text(SECRET_TEXT)
    assert whole.count(REDACTED) == 5
    for i, j in itertools.combinations(range(1, len(SECRET_TEXT)), 2):
        pieces = _streamed(R, [SECRET_TEXT[:i], SECRET_TEXT[i:j], SECRET_TEXT[j:]])
        joined = "".join(pieces)
        assert not any(s in p for s in SECRETS for p in [*pieces, joined]), (i, j, pieces)
        assert LET_OUT.sub("", joined) == whole, (i, j, pieces)


def test_a_secret_arriving_one_character_at_a_time() -> None:
    pieces = _streamed(R, list(SECRET_TEXT))
    assert not any(s in "".join(pieces) for s in SECRETS)
    assert LET_OUT.sub("", "".join(pieces)) == R.text(SECRET_TEXT)


def test_text_without_secrets_keeps_its_pieces() -> None:
    plain = ("Nothing secret: a bearer of news, api keys in general, skeletons, sk-t, an authorization header "
             "missing. Ünïcödé 😀 and `code = 1`.\n") * 3
    # The one cut that moves: one in or right after the word after `Bearer` (it could be a token until it ends).
    held = {c for m in re.finditer(r"bearer (\w+)", plain) for c in range(m.start(1) + 1, m.end(1) + 1)}
    places = [c for c in range(1, len(plain)) if c not in held]
    rng = random.Random(7)
    for _ in range(300):
        cuts = sorted(rng.sample(places, rng.randint(1, 40)))
        pieces = [plain[a:b] for a, b in zip([0, *cuts], [*cuts, len(plain)])]
        assert _streamed(R, pieces) == [*pieces, ""]
        anywhere = sorted(rng.sample(range(1, len(plain)), 40))
        pieces = [plain[a:b] for a, b in zip([0, *anywhere], [*anywhere, len(plain)])]
        assert "".join(_streamed(R, pieces)) == plain  # the same text, whatever the cuts


def test_an_endless_header_value_is_held_only_so_far() -> None:
    stream = R.stream()
    out = stream.push("x-api-key: ") + stream.push("a" * 200)
    assert out == "x-api-key: "  # undecided: held
    out += stream.push("b" * 100) + stream.push("c" * 1000) + stream.push("d rest")
    assert out == "x-api-key: [REDACTED] rest" and stream.flush() == ""


def test_pieces_count_what_was_shown_and_skip_a_piece_held_whole() -> None:
    pieces = Pieces(R)
    assert pieces.push("") == ""  # an empty piece stays an (empty) event
    assert pieces.push("hi sk-test") == "hi " and pieces.push("-12") is None
    assert pieces.push("34567890!") == "[REDACTED]!" and pieces.end() is None
    assert pieces.shown == "hi [REDACTED]!"
