"""A Python client in /sync next to two TypeScript clients (the @agentlane/client one) against a real server:
every order of concurrent writes converges to the same vector and the same conflicts, and a write that has
seen every head resolves the conflict for all three."""

from __future__ import annotations

import itertools

from agentlane.canonical import canonical_json
from agentlane.vectors import increment_vector, merge_vectors
from conftest import ts_oracle

CLIENTS = ("py", "ts-a", "ts-b")


def sync(client, server, who: str, sid: str, vector: dict, changes: list[dict]) -> dict:
    body = {"clientId": who, "vector": vector, "changes": changes}
    if who == "py":
        return client.sync(sid, who, vector, changes)
    (answer,) = ts_oracle([["sync", {"url": server.url, "sessionId": sid, "body": body}]])
    assert "error" not in answer, answer
    return answer


def conflicts(answer: dict) -> str:
    return canonical_json(sorted(answer["conflicts"], key=canonical_json))


def test_all_orders_converge_with_the_same_conflicts(client, server) -> None:
    outcomes = set()
    for order in itertools.permutations(CLIENTS):
        sid = client.create_session("replay-opencode")["id"]
        vectors = {who: {} for who in CLIENTS}
        for who in order:  # concurrent: nobody has seen another's write
            mine = increment_vector(vectors[who], who)
            change = {"key": "title", "value": f"title by {who}", "version": mine[who], "vector": mine}
            answer = sync(client, server, who, sid, mine, [change])
            vectors[who] = merge_vectors(mine, answer["vector"])
        finals = {who: sync(client, server, who, sid, vectors[who], []) for who in CLIENTS}
        assert len({canonical_json(a["vector"]) for a in finals.values()}) == 1
        assert finals["py"]["vector"] == {"py": 1, "ts-a": 1, "ts-b": 1}
        assert len({conflicts(a) for a in finals.values()}) == 1
        assert [c["key"] for c in finals["py"]["conflicts"]] == ["title"]
        # What a conflict lists does not depend on who wrote first.
        outcomes.add(conflicts({"conflicts": [{**c, "sessionId": "-"} if "sessionId" in c else c for c in finals["py"]["conflicts"]]}))

        # Python has now seen every head: its write resolves the conflict for everybody.
        seen = merge_vectors(vectors["py"], finals["py"]["vector"])
        resolving = increment_vector(seen, "py")
        sync(client, server, "py", sid, resolving, [{"key": "title", "value": "agreed", "version": resolving["py"], "vector": resolving}])
        after = {who: sync(client, server, who, sid, merge_vectors(vectors[who], resolving), []) for who in CLIENTS}
        assert all(a["conflicts"] == [] for a in after.values())
    assert len(outcomes) == 1


def test_a_fresh_client_follows_the_pages(client) -> None:
    """A session holding more than one answer's worth (about 1 MiB) of changes: one sync answers a page with
    `more` and a cursor, sync_all follows them and gets every change once."""
    sid = client.create_session("replay-opencode")["id"]
    value = "x" * 3000
    version = 0
    for _ in range(10):
        batch = []
        for _ in range(60):
            version += 1
            batch.append({"key": f"k{version}", "value": value, "version": version, "vector": {"w": version}})
        client.sync(sid, "w", {"w": version}, batch)
    first = client.sync(sid, "fresh", {}, [])
    assert first.get("more") is True and "cursor" in first and 0 < len(first["changes"]) < 600
    every = client.sync_all(sid, "fresh", {}, [])
    assert "more" not in every and every["vector"] == {"w": 600}
    assert sorted(c["version"] for c in every["changes"]) == list(range(1, 601))
