"""RFC 8785 JSON Canonicalization Scheme and the contract's sha256 fingerprint.

The RFC pins numbers to ECMAScript's Number::toString and strings to JSON.stringify's escaping, so
both are written out here instead of trusting Python's json module (which formats 1e21 as
"1e+21" but 1e-7 as "1e-07", escapes non-ASCII by default, and keeps ints at arbitrary precision).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any


class CanonicalJsonError(ValueError):
    """A value that has no canonical form (NaN, Infinity, a lone surrogate, a non-JSON type)."""


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            # json.loads lets a lone surrogate through ("\ud800"); RFC 8785 requires well-formed text.
            raise CanonicalJsonError(f"lone surrogate U+{code:04X} in a string")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def ecmascript_number(value: float | int) -> str:
    """Number::toString of ECMA-262 (7.1.12.1) for a finite double, as RFC 8785 section 3.2.2.3 requires."""
    if isinstance(value, int):
        # A JSON reader in JavaScript holds every number as a double: an int past 2^53 rounds the same way here.
        try:
            value = float(value)
        except OverflowError:
            # Named by size: str() of an int past 4,300 digits raises ValueError of its own.
            raise CanonicalJsonError(f"an integer of {value.bit_length()} bits is beyond a double") from None
    if math.isnan(value) or math.isinf(value):
        raise CanonicalJsonError(f"{value!r} has no JSON form")
    if value == 0:
        return "0"  # also -0
    sign = "-" if value < 0 else ""
    # repr gives the shortest digit string that round-trips, which is the digit string ECMAScript wants.
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    all_digits = int_part + frac_part
    leading_zeros = len(all_digits) - len(all_digits.lstrip("0"))
    digits = all_digits.strip("0")
    # n: where the decimal point sits relative to the first significant digit (value = 0.d1d2… × 10^n).
    n = len(int_part) + int(exp_text or 0) - leading_zeros
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exponent = ("+" if e >= 0 else "-") + str(abs(e))
    if k == 1:
        return sign + digits + "e" + exponent
    return sign + digits[0] + "." + digits[1:] + "e" + exponent


def _utf16_key(key: str) -> bytes:
    # RFC 8785 sorts member names by their UTF-16 code units; big-endian bytes compare the same way.
    return key.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (int, float)):
        out.append(ecmascript_number(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CanonicalJsonError(f"object key {key!r} is not a string")
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    else:
        raise CanonicalJsonError(f"{type(value).__name__} is not a JSON value")


def canonical_json(value: Any) -> str:
    """The RFC 8785 canonical text of a JSON value (as json.loads gives it)."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def fingerprint(value: Any) -> str:
    """Lowercase hex sha256 of the UTF-8 bytes of the canonical JSON."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def fingerprint_session_state(state: dict) -> str:
    """The contract's fingerprintSessionState: two runtimes agree on a state when these match."""
    return fingerprint(state)
