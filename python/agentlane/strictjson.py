"""JSON text read as JSON: Python's json.loads also takes NaN, Infinity and -Infinity, and turns 1e999 into
inf. None of them is JSON (RFC 8259), JSON.parse refuses the first three, and no JSON writer can print any of
them again (json.dumps writes `NaN`, which no other reader takes). A stored row or a stream frame holding one
is damaged: `loads` raises ValueError for them, as for any other text that is not JSON."""

from __future__ import annotations

import json
import math
from typing import Any


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def loads(text: str | bytes) -> Any:
    """json.loads without NaN / Infinity / -Infinity, and without numbers past the double range."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
