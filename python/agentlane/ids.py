"""ULIDs (Crockford base 32, 26 characters: 10 of milliseconds, 16 of randomness), as the contract's ids."""

from __future__ import annotations

import os
import time

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _base32(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        out.append(ALPHABET[value & 31])
        value >>= 5
    if value:
        raise ValueError("value does not fit")
    return "".join(reversed(out))


def ulid(ms: int | None = None, randomness: int | None = None) -> str:
    ms = int(time.time() * 1000) if ms is None else ms
    randomness = int.from_bytes(os.urandom(10), "big") if randomness is None else randomness
    return _base32(ms, 10) + _base32(randomness, 16)


class SequentialIds:
    """The corpus's injected id source: id n is the ULID of time start_ms + n with randomness n."""

    def __init__(self, start_ms: int) -> None:
        self.start_ms, self.n = start_ms, 0

    def __call__(self) -> str:
        value = ulid(self.start_ms + self.n, self.n)
        self.n += 1
        return value
