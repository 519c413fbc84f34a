"""JSON text as JavaScript's JSON.stringify writes it (insertion key order, ECMAScript numbers).

Needed where the TypeScript runtime puts JSON.stringify output into something compared byte for byte:
tool-call arguments and tool results sent to the model, and the plan event's key (see the note in
python/README.md, "Fields mirrored").
"""

from __future__ import annotations

from typing import Any

from ..canonical import _string, ecmascript_number


def stringify(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (int, float)):
        return ecmascript_number(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(stringify(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(_string(k) + ":" + stringify(v) for k, v in value.items()) + "}"
    raise TypeError(f"{type(value).__name__} is not JSON")


def js_length(text: str) -> int:
    """A string's length as JavaScript counts it (UTF-16 code units): the offsets in event keys
    (`message.delta:<id>:<offset>`, …) and the plan key's length are such lengths (docs/contract.md)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
