"""Timings for bench/src/suites/python.bench.ts (prints one JSON object; the timer excludes start-up).

  python -m agentlane.benchmark thread URL THREAD_ID LAST_DELIVERY_SEQ   follow, validate and fold a thread
  python -m agentlane.benchmark corpus DIR [ROUNDS]                      replay the Chat Completions turns
"""

from __future__ import annotations

import json
import pathlib
import sys
import time


def thread(url: str, thread_id: str, last: int) -> dict:
    from .client import Client
    from .events import Delivered
    from .follow import FollowStats, Timeline, follow_thread

    timeline, stats = Timeline(), FollowStats()
    started = time.perf_counter()
    for event in follow_thread(Client(url), thread_id, stats=stats,
                               until=lambda e: isinstance(e, Delivered) and e.delivery_seq >= last):
        timeline.fold(event)
    seconds = time.perf_counter() - started
    return {"frames": stats.frames, "rows": len(timeline.rows), "seconds": seconds}


def corpus(folder: str, rounds: int = 3) -> dict:
    from .runtime.corpus import compare, replay, replayable

    turns = [json.loads(p.read_text("utf-8")) for p in sorted(pathlib.Path(folder).glob("*.json"))]
    turns = [t for t in turns if replayable(t) is None]
    failures = [t["name"] for t in turns if not compare(t).ok]
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for turn in turns:
            replay(turn)
        best = min(best, time.perf_counter() - started)
    return {"turns": [t["name"] for t in turns], "seconds": best, "failures": failures}


def main(argv: list[str]) -> int:
    if argv[:1] == ["thread"] and len(argv) == 4:
        print(json.dumps(thread(argv[1], argv[2], int(argv[3]))))
    elif argv[:1] == ["corpus"] and len(argv) in (2, 3):
        print(json.dumps(corpus(argv[1], int(argv[2]) if len(argv) == 3 else 3)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
