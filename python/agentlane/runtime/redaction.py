"""Keeps secrets out of what a turn records: every event draft and ledger row, tool outputs and errors included.

Three rules, each replacing what it finds by `[REDACTED]` (python/README.md, "Secrets"):

- the configured secret values (the turn's API key, `workspace.secrets`), any occurrence; values shorter
  than 8 characters are not looked for (a placeholder key like `k` would hit every word);
- `Bearer <token>`, for a token of at least 8 characters holding a digit or one of `-._` (so prose such as
  "bearer instruments" stays), the word `Bearer` kept;
- the value of a credential in header or assignment form: `authorization` / `proxy-authorization` (scheme and
  credentials, both), `x-api-key`, `x-goog-api-key`, and any name ending in `api-key` / `api_key` / `apikey`
  (`OPENAI_API_KEY=…`), followed by `:` or `=`; in a JSON value, the string under such a key.

`Redactor.text` / `.json` is the one-shot form; `Redactor.stream()` redacts a text that arrives in pieces.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

REDACTED = "[REDACTED]"
MIN_SECRET_CHARS = 8
# A piece's tail shorter than this that starts a secret value goes out at once, so ordinary text keeps the
# cuts the model made (a piece ending in "c" is not held because a key starts with "c"); when the key does
# follow, the rest of it is replaced in the next piece: at most MIN_HELD - 1 of its first characters show.
MIN_HELD = 6
# The longest undecided header value or Bearer token held back; past it the value is taken as a credential,
# replaced, and what follows of it is dropped as it comes (a bounded hold; the safe side is to redact).
MAX_HEADER_HELD = 256
# Raw text already emitted that is kept to see a header name or a key's start from an earlier piece.
CONTEXT_CHARS = 320

_VALUE = r"[^\s\"'`,;&<>(){}\[\]]+"  # up to a space, quote, separator or bracket; never `[REDACTED]` again
_NAME_END = r"[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"  # `x-api-key: v`, `api_key=v`, `"authorization": "v"`
_KEY_NAME = r"(?:x-goog-api-key|[A-Za-z0-9_-]*?api[-_]?key)"
_AUTH = re.compile(r"(?<![A-Za-z0-9_-])(?:proxy-)?authorization" + _NAME_END
                   + rf"(?P<v>{_VALUE}(?:[ \t]+(?:\[REDACTED\]|{_VALUE}))?)", re.I)
_KEY = re.compile(r"(?<![A-Za-z0-9_-])" + _KEY_NAME + _NAME_END + rf"(?P<v>{_VALUE})", re.I)
_BEARER = re.compile(r"(?<![A-Za-z0-9_-])bearer[ \t]+(?P<v>[A-Za-z0-9\-._~+/]+=*)", re.I)
_TOKEN_MARK = re.compile(r"[0-9\-._]")
_CREDENTIAL_KEY = re.compile(r"(?:proxy-)?authorization|" + _KEY_NAME, re.I)
_SWALLOW = re.compile(r"[^\s\"'`,;&<>(){}\[\]]*")


class Redactor:
    """The rules above for one set of secret values."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        # A value inside `[REDACTED]` would make redaction loop on its own output.
        values = {s for s in secrets if s and len(s) >= MIN_SECRET_CHARS and s not in REDACTED}
        self.secrets = sorted(values, key=lambda s: (-len(s), s))  # longest first: leftmost, then longest
        self.longest = len(self.secrets[0]) if self.secrets else 0
        self._values = re.compile("|".join(map(re.escape, self.secrets))) if self.secrets else None

    def text(self, s: str) -> str:
        spans, _, _ = self.decide(s, 0, final=True)
        return _apply(s, 0, len(s), spans, False)[0]

    def json(self, value: Any) -> Any:
        """Every string of a JSON value (object keys included) through text(); a credential-named key's string
        value replaced whole (`{"authorization": "Basic …"}`)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): REDACTED if isinstance(v, str) and v and _CREDENTIAL_KEY.fullmatch(k) else self.json(v)
                    for k, v in value.items()}
        return value

    def stream(self) -> StreamRedactor:
        return StreamRedactor(self)

    def decide(self, raw: str, base: int, *, final: bool) -> tuple[list[tuple[int, int]], int, bool]:
        """(spans to replace, merged; where the decided text ends; whether a held value hit MAX_HEADER_HELD).
        `raw[:base]` was emitted already: nothing before it is held back."""
        end = len(raw)
        spans: list[tuple[int, int]] = []
        holds: list[int] = []
        capped = False
        matches = [(m.start(), m.end()) for m in self._values.finditer(raw)] if self._values else []
        spans += matches
        if not final and self.secrets:
            for p in range(max(0, end - self.longest + 1), end):
                if any(a < p < b for a, b in matches):
                    continue  # the scan jumped over p inside a whole secret
                tail = raw[p:]
                if any(len(s) > len(tail) and s.startswith(tail) for s in self.secrets):
                    if end - p >= MIN_HELD:
                        holds.append(max(p, base))
                    break  # later starts are shorter still
        for pattern, open_ended in ((_BEARER, False), (_KEY, False), (_AUTH, True)):
            for m in pattern.finditer(raw):
                start = m.start("v")
                # Undecided: the value reaches the end (more may come), or an authorization value's scheme is
                # followed by blanks only (its credentials may come).
                if not final and (m.end() == end or (open_ended and raw[m.end():].strip(" \t") == "")):
                    if end - start > MAX_HEADER_HELD:
                        spans.append((max(start, base), end))
                        capped = True
                    else:
                        holds.append(max(start, base))
                elif pattern is not _BEARER or (len(m["v"]) >= 8 and _TOKEN_MARK.search(m["v"])):
                    spans.append((start, m.end("v")))
        cut = min([end, *holds])
        while True:  # a replaced span never straddles the cut: hold it whole
            crossing = [a for a, b in spans if a < cut < b]
            if not crossing:
                break
            cut = max(min(crossing), base)
            if cut == base:
                break
        kept = sorted((a, min(b, cut)) for a, b in spans if a < cut)
        return _merge(kept), cut, capped and cut == end


class StreamRedactor:
    """Redacts one text that arrives in pieces: push() returns what is safe to emit now, holding back only a
    tail that might start a secret (a value's start of MIN_HELD or more characters, an undecided header
    value or Bearer token); flush() ends the text and returns what was held, redacted. A secret split across
    pieces never appears in any piece; a text without secrets comes out in the same pieces, unchanged."""

    def __init__(self, redactor: Redactor) -> None:
        self.r = redactor
        self.context = ""  # the last raw characters already emitted
        self.held = ""
        self.last_redacted = False  # whether what was emitted ends in [REDACTED]
        self.swallow = False  # dropping the rest of a value that passed MAX_HEADER_HELD

    def push(self, piece: str) -> str:
        if self.swallow:
            dropped = _SWALLOW.match(piece).end()
            piece = piece[dropped:]
            if not piece:
                return ""
            self.swallow = False
        return self._emit(piece, final=False)

    def flush(self) -> str:
        out = self._emit("", final=True)
        self.context, self.held, self.swallow = "", "", False
        return out

    def _emit(self, piece: str, *, final: bool) -> str:
        raw = self.context + self.held + piece
        base = len(self.context)
        spans, cut, capped = self.r.decide(raw, base, final=final)
        out, self.last_redacted = _apply(raw, base, cut, spans, self.last_redacted)
        self.held = raw[cut:]
        self.context = raw[:cut][-(CONTEXT_CHARS + self.r.longest):]
        self.swallow = capped
        return out


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans as one: two secrets side by side are one [REDACTED]."""
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def _apply(raw: str, base: int, cut: int, spans: list[tuple[int, int]], last_redacted: bool) -> tuple[str, bool]:
    """raw[base:cut] with the spans replaced; a span begun in text already emitted is continued: its rest is
    dropped after an emitted [REDACTED], else replaced by one."""
    out: list[str] = []
    i, ends_redacted = base, last_redacted and base == cut
    for a, b in spans:
        if b <= base:
            continue
        if a < base:
            if not last_redacted:
                out.append(REDACTED)
        else:
            out += [raw[i:a], REDACTED]
        i, ends_redacted = b, b == cut
    out.append(raw[i:cut])
    if i < cut:
        ends_redacted = False
    return "".join(out), ends_redacted


class Pieces:
    """One streamed text as its delta events show it: each piece redacted with the text's stream, and what was
    shown so far (event keys carry its length as the piece's offset)."""

    def __init__(self, redactor: Redactor) -> None:
        self._stream = redactor.stream()
        self.shown = ""

    def push(self, piece: str) -> str | None:
        """The piece to show; None when a non-empty piece was held back whole (no event for it). An empty piece
        stays an (empty) event: some wires send them, and the recorded turns keep them."""
        out = self._stream.push(piece)
        self.shown += out
        return out if out or not piece else None

    def end(self) -> str | None:
        """What was held when the text ended; None when nothing was."""
        out = self._stream.flush()
        self.shown += out
        return out or None
