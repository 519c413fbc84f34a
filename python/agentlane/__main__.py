"""python -m agentlane follow URL THREAD_ID [--after N] [--token T] [--until-canonicalized RUN] [--max-seconds S]
    [--give-up-after S] [--no-validate]

Prints every frame of the thread's stream as one JSON line (unknown types too: a follower passes them on),
resuming after drops. While the server cannot be reached, answers with something that is not an event stream
(a redirect, an HTML page) or answers 429/5xx, it says so on stderr (once per outage) and retries; all of these
count towards --give-up-after. A frame that is not JSON is skipped with one line on stderr, and so is one this
reader's schema refuses (a newer schemaVersion, an unknown field), though it is still printed. A row already
printed (deliverySeq at or below the cursor) is not printed again; a server sending only such rows counts
towards --give-up-after too. A line or event past 64 MiB ends the follow at once (exit 1).

Exit status: 0 when the until-condition was met, or when --max-seconds ended a follow without one while the
stream was being read; 1 when the server could not be reached for --give-up-after seconds (or at all: a name
that does not resolve, TLS against plain HTTP, an SSE event past 64 MiB), when --max-seconds ran out before the run was canonicalized or
while the server was unreachable, on an API error (unknown thread, the run not of this thread); 2 on a usage
error; 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from .client import ApiError, Client, StreamInterrupted, TransportError
from .events import Delivered, RunCanonicalized, StreamOpened
from .follow import FollowStats, follow_thread


def _fail(message: str) -> int:
    sys.stderr.write(f"agentlane: {message}\n")
    sys.stderr.flush()
    return 1


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _seq(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentlane")
    commands = parser.add_subparsers(dest="command", required=True)
    follow = commands.add_parser("follow", help="follow a thread's SSE stream and print events as JSONL")
    follow.add_argument("url", help="server origin, e.g. http://127.0.0.1:7433")
    follow.add_argument("thread_id")
    follow.add_argument("--after", type=_seq, default=0, help="deliver rows after this deliverySeq")
    follow.add_argument("--token", help="bearer token (or none for a loopback server)")
    follow.add_argument("--until-canonicalized", metavar="RUN", help="stop after this run's run.canonicalized")
    follow.add_argument("--max-seconds", type=_non_negative, help="stop after this long")
    follow.add_argument("--give-up-after", type=_non_negative, default=60.0, metavar="S",
                        help="exit 1 after the server was unreachable for this long (default 60; inf: never)")
    follow.add_argument("--no-validate", action="store_true", help="skip schema validation of frames")
    args = parser.parse_args(argv)

    try:
        client = Client(args.url, token=args.token)
    except ValueError as error:
        follow.error(str(error))
    deadline = None if args.max_seconds is None else time.monotonic() + args.max_seconds
    stats = FollowStats()

    def on_error(error: TransportError) -> None:
        if error.permanent or stats.failures != 1:
            return  # a permanent error is printed once, when it is raised; an outage once, when it starts
        action = "resuming" if isinstance(error, StreamInterrupted) else "retrying"
        sys.stderr.write(f"agentlane: {error}; {action}\n")
        sys.stderr.flush()

    try:
        return _follow(args, client, deadline, stats, on_error)
    except ApiError as error:
        return _fail(str(error))
    except TransportError as error:
        return _fail(f"{error}" + ("" if error.permanent else f"; gave up after {args.give_up_after:g} s"))
    except KeyboardInterrupt:
        return 130


def _get_run(client: Client, run_id: str, args, deadline: float | None) -> dict | None:
    """The run, retrying an unreachable server like the follow does; None when --max-seconds runs out."""
    started, failures = time.monotonic(), 0
    while True:
        try:
            return client.get_run(run_id)
        except TransportError as error:
            failures += 1
            if failures == 1 and not error.permanent:
                sys.stderr.write(f"agentlane: {error}; retrying\n")
            if error.permanent or time.monotonic() - started >= args.give_up_after:
                raise
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(min(2.0, 0.05 * 2 ** (failures - 1)))


def _follow(args, client: Client, deadline: float | None, stats: FollowStats, on_error) -> int:
    # A run canonicalized before we connect gets no live run.canonicalized on a stream from the start (the
    # server re-sends completions only to a resumed one): then the end is the head the stream opened at.
    already_final = False
    if args.until_canonicalized:
        run = _get_run(client, args.until_canonicalized, args, deadline)
        if run is None:
            return _fail(f"--max-seconds {args.max_seconds:g} ran out before run {args.until_canonicalized} "
                         f"was canonicalized (the server was not reachable)")
        if run.get("threadId") != args.thread_id:
            return _fail(f"run {args.until_canonicalized} is of thread {run.get('threadId')}, "
                         f"not {args.thread_id}: it can never be canonicalized on this stream")
        already_final = run.get("canonicalizedAt") is not None
    head: int | None = None
    met = False

    def until(event) -> bool:
        nonlocal head, met
        if not args.until_canonicalized:
            return False
        if isinstance(event, RunCanonicalized) and event.run_id == args.until_canonicalized:
            met = True
        elif already_final and isinstance(event, StreamOpened) and head is None:
            head = event.head_delivery_seq
            met = head <= args.after
        else:
            met = already_final and head is not None and isinstance(event, Delivered) and event.delivery_seq >= head
        return met

    def print_frame(frame: dict) -> None:
        # allow_nan=False: never print NaN / Infinity, which no JSON reader takes (decode_frame refuses them).
        sys.stdout.write(json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n")
        sys.stdout.flush()

    read_timeout = 60.0 if deadline is None else max(0.2, min(60.0, args.max_seconds))
    for _ in follow_thread(client, args.thread_id, after=args.after, until=until, check=not args.no_validate,
                           on_frame=print_frame, read_timeout=read_timeout, stop_at=deadline, stats=stats,
                           on_error=on_error, give_up_after=args.give_up_after):
        pass
    if args.until_canonicalized and not met:
        why = f"; {stats.last_error}" if stats.last_error is not None else ""
        return _fail(f"--max-seconds {args.max_seconds:g} ran out before run {args.until_canonicalized} "
                     f"was canonicalized{why}")
    if stats.last_error is not None:  # ended by --max-seconds while the server was unreachable
        return _fail(f"--max-seconds {args.max_seconds:g} ran out; {stats.last_error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
