"""A 429 or 5xx answer to a stream request: a passing condition a follower waits out, not the end of it.

The server itself answers 429 with Retry-After under its per-token limits, and a proxy in front of it answers
502/503 while it restarts; a follower that resumes after drops should resume after these too.
"""

from __future__ import annotations

from .client import ApiError, TransportError

# A Retry-After is honoured up to this long: a bogus "wait a day" must not silence a follower for a day.
MAX_RETRY_AFTER_S = 60.0


def retryable(error: ApiError) -> bool:
    return error.status == 429 or error.status >= 500


class ServerUnavailable(TransportError):
    """A retryable ApiError as a transport failure: it counts towards give-up like an outage."""

    def __init__(self, url: str, error: ApiError) -> None:
        super().__init__(url, str(error))
        self.api_error, self.status, self.retry_after = error, error.status, error.retry_after
        wait = f" (Retry-After {error.retry_after:g} s)" if error.retry_after is not None else ""
        said = " ".join(str(error).split())  # a proxy's HTML page has newlines: keep the message one line
        self.args = (f"{url} answered {said}{wait}",)
