"""Version vectors of the sync contract: {clientId: count}, a missing entry counts as 0."""

from __future__ import annotations

from typing import Literal, Mapping

Ordering = Literal["equal", "ancestor", "descendant", "concurrent"]


def merge_vectors(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    """Element-wise max."""
    merged = dict(a)
    for client, count in b.items():
        merged[client] = max(count, merged.get(client, 0))
    return merged


def compare_vectors(a: Mapping[str, int], b: Mapping[str, int]) -> Ordering:
    """How a stands to b: 'ancestor' when b has seen everything a has (and more)."""
    a_behind = b_behind = False
    for client in set(a) | set(b):
        x, y = a.get(client, 0), b.get(client, 0)
        if x < y:
            a_behind = True
        elif x > y:
            b_behind = True
    if a_behind and b_behind:
        return "concurrent"
    if a_behind:
        return "ancestor"
    if b_behind:
        return "descendant"
    return "equal"


def has_seen(vector: Mapping[str, int], change: Mapping[str, object]) -> bool:
    """v[change.clientId] >= change.version."""
    version = change["version"]
    assert isinstance(version, int)
    return vector.get(str(change["clientId"]), 0) >= version


def increment_vector(vector: Mapping[str, int], client_id: str) -> dict[str, int]:
    """A client increments its own entry on every write; the input is left unchanged."""
    incremented = dict(vector)
    incremented[client_id] = incremented.get(client_id, 0) + 1
    return incremented
