"""The bundle's `pattern`s and `date-time` format read as the schema means them, not as Python would.

JSON Schema's patterns are ECMA-262 regular expressions. Two details differ in Python's `re` and let values
through that the TypeScript parser refuses: `$` also matches before a final "\\n" (a ULID or sha256 with a
trailing newline passed), and `.` matches "\\r", U+2028 and U+2029. `ecma_regex` rewrites both.

`date-time` is RFC 3339's `date-time` (section 5.6): jsonschema's checker needs an optional package (without
it nothing is checked), and with it refused year 0000 and the leap second `23:59:60` that the TypeScript parser
accepts, while taking a trailing newline. `is_date_time` is the grammar itself, agreeing with the TypeScript
parser case by case (tests/test_schema_formats.py).
"""

from __future__ import annotations

import functools
import re

_LINE_TERMINATORS = "\n\r\u2028\u2029"


@functools.lru_cache(maxsize=None)
def ecma_regex(pattern: str) -> re.Pattern:
    """The pattern compiled with ECMA-262 meanings for `$` (end of input) and `.` (not a line terminator)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
        elif c == "[":
            in_class = True
            out.append(c)
        elif c == "$":
            out.append(r"\Z")
        elif c == ".":
            out.append(f"[^{_LINE_TERMINATORS}]")
        else:
            out.append(c)
        i += 1
    return re.compile("".join(out))


_DATE_TIME = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})[Tt](?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):(?P<s>[0-9]{2})"
    r"(?:\.[0-9]+)?(?:[Zz]|(?P<sign>[+-])(?P<oh>[0-9]{2}):(?P<om>[0-9]{2}))"
)
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_date_time(value: object) -> bool:
    """RFC 3339 date-time: a real day (leap years, year 0000 too), hour 00-23, minute 00-59, second 00-59 or
    60 when the time is 23:59 in UTC (a leap second), any fraction, `Z` or ±hh:mm (hh 00-23); `T` and `Z` may be
    lower case. Anything but a string is not this format's business (True), as in JSON Schema."""
    if not isinstance(value, str):
        return True
    m = _DATE_TIME.fullmatch(value)
    if m is None:
        return False
    year, month, day = int(m["y"]), int(m["mo"]), int(m["d"])
    hour, minute, second = int(m["h"]), int(m["mi"]), int(m["s"])
    if not 1 <= month <= 12 or not 1 <= day <= (29 if month == 2 and _leap(year) else _DAYS[month - 1]):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    offset = 0
    if m["sign"] is not None:
        oh, om = int(m["oh"]), int(m["om"])
        if oh > 23 or om > 59:
            return False
        offset = (oh * 60 + om) * (1 if m["sign"] == "+" else -1)
    if second == 60 and (hour * 60 + minute - offset) % 1440 != 23 * 60 + 59:
        return False
    return True
