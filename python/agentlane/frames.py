"""Reading one SSE `data:` frame tolerantly: a frame this reader cannot use is skipped and said, never raised.

A stream is long-lived and the server may be newer than this reader (docs/contract.md: readers ignore what
they do not know). One bad frame (not JSON, no `type`, a newer schemaVersion, a field this bundle does not
have) must not end a follower or an execute with a traceback: it is reported as one line and skipped.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from . import strictjson
from .events import FrameError, StreamEvent, parse_stream_event

# Hears (the message's `id:` or None, a one-line reason) for every frame that was skipped as unusable.
BadFrameHandler = Callable[[str | None, str], None]


def warn_on_stderr(frame_id: str | None, reason: str) -> None:
    where = f" (id {frame_id})" if frame_id is not None else ""
    sys.stderr.write(f"agentlane: skipped a frame{where}: {reason}\n")
    sys.stderr.flush()


def decode_frame(data: str) -> tuple[Any, str | None]:
    """(the frame, None), or (None, why) when the data is not JSON at all: NaN, Infinity and 1e999 included
    (agentlane.strictjson), which JSON.parse refuses or no JSON can print again."""
    try:
        return strictjson.loads(data), None
    except ValueError as error:
        return None, f"not JSON ({error}): {_excerpt(data)}"
    except RecursionError:  # a hostile frame nested past Python's recursion limit
        return None, f"nested too deeply to read: {_excerpt(data)}"


def type_frame(frame: Any, *, check: bool) -> tuple[StreamEvent | None, str | None]:
    """(the typed event or None for an unknown type, None), or (None, why) for a frame this reader can't use."""
    try:
        return parse_stream_event(frame, check=check), None
    except FrameError as error:
        return None, str(error)
    except (KeyError, TypeError, ValueError) as error:  # check=False: a known type missing what it needs
        return None, f"{type(error).__name__}: {error}"


def _excerpt(text: str, limit: int = 80) -> str:
    one_line = text.replace("\n", "\\n")
    return one_line if len(one_line) <= limit else one_line[:limit] + "…"
