"""python -m agentlane follow URL THREAD_ID [--after N] [--token T] [--until-canonicalized RUN] [--max-seconds S]

Prints every frame of the thread's stream as one JSON line (unknown types too: a follower passes them on),
resuming after drops.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from .client import ApiError, Client
from .events import Delivered, RunCanonicalized, StreamOpened
from .follow import follow_thread


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentlane")
    commands = parser.add_subparsers(dest="command", required=True)
    follow = commands.add_parser("follow", help="follow a thread's SSE stream and print events as JSONL")
    follow.add_argument("url", help="server origin, e.g. http://127.0.0.1:7433")
    follow.add_argument("thread_id")
    follow.add_argument("--after", type=int, default=0, help="deliver rows after this deliverySeq")
    follow.add_argument("--token", help="bearer token (or none for a loopback server)")
    follow.add_argument("--until-canonicalized", metavar="RUN", help="stop after this run's run.canonicalized")
    follow.add_argument("--max-seconds", type=float, help="stop after this long")
    follow.add_argument("--no-validate", action="store_true", help="skip schema validation of frames")
    args = parser.parse_args(argv)

    client = Client(args.url, token=args.token)
    deadline = None if args.max_seconds is None else time.monotonic() + args.max_seconds

    # A run canonicalized before we connect gets no live run.canonicalized on a stream from the start (the
    # server re-sends completions only to a resumed one): then the end is the head the stream opened at.
    already_final = False
    if args.until_canonicalized:
        try:
            already_final = client.get_run(args.until_canonicalized).get("canonicalizedAt") is not None
        except ApiError as error:
            sys.stderr.write(f"agentlane: {error}\n")
            return 1
    head: int | None = None

    def until(event) -> bool:
        nonlocal head
        if not args.until_canonicalized:
            return False
        if isinstance(event, RunCanonicalized) and event.run_id == args.until_canonicalized:
            return True
        if already_final and isinstance(event, StreamOpened) and head is None:
            head = event.head_delivery_seq
            return head <= args.after
        return already_final and head is not None and isinstance(event, Delivered) and event.delivery_seq >= head

    def print_frame(frame: dict) -> None:
        sys.stdout.write(json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    read_timeout = 60.0 if deadline is None else max(0.2, min(60.0, args.max_seconds))
    try:
        for _ in follow_thread(client, args.thread_id, after=args.after, until=until, check=not args.no_validate,
                               on_frame=print_frame, read_timeout=read_timeout, stop_at=deadline):
            pass
    except ApiError as error:
        sys.stderr.write(f"agentlane: {error}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
