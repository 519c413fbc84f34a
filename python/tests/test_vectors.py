"""Version-vector laws, property-tested with seeded generators, and the same answers as the TypeScript side."""

from __future__ import annotations

import random

import pytest

from agentlane.vectors import compare_vectors, has_seen, increment_vector, merge_vectors

CLIENTS = ["a", "b", "c", "d", "client-\u00e9", "z" * 12]
SEEDS = [1, 7, 42, 2026]
CASES = 300


def vector(rng: random.Random) -> dict[str, int]:
    # Zero entries are legal and mean the same as a missing one, so the generator makes both.
    return {c: rng.randint(0, 4) for c in rng.sample(CLIENTS, rng.randint(0, len(CLIENTS)))}


def same(a: dict[str, int], b: dict[str, int]) -> bool:
    return compare_vectors(a, b) == "equal"


@pytest.mark.parametrize("seed", SEEDS)
def test_merge_is_a_semilattice(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(CASES):
        a, b, c = vector(rng), vector(rng), vector(rng)
        assert same(merge_vectors(a, b), merge_vectors(b, a))
        assert same(merge_vectors(merge_vectors(a, b), c), merge_vectors(a, merge_vectors(b, c)))
        assert same(merge_vectors(a, a), a)
        m = merge_vectors(a, b)
        assert compare_vectors(a, m) in ("ancestor", "equal")
        assert compare_vectors(b, m) in ("ancestor", "equal")


@pytest.mark.parametrize("seed", SEEDS)
def test_compare_is_antisymmetric_and_consistent_with_merge(seed: int) -> None:
    rng = random.Random(seed)
    mirror = {"equal": "equal", "ancestor": "descendant", "descendant": "ancestor", "concurrent": "concurrent"}
    for _ in range(CASES):
        a, b = vector(rng), vector(rng)
        order = compare_vectors(a, b)
        assert compare_vectors(b, a) == mirror[order]
        m = merge_vectors(a, b)
        assert (order == "ancestor") == (same(m, b) and not same(a, b))
        assert (order == "concurrent") == (not same(m, a) and not same(m, b))


@pytest.mark.parametrize("seed", SEEDS)
def test_increment_and_has_seen(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(CASES):
        v = vector(rng)
        client = rng.choice(CLIENTS)
        before = dict(v)
        w = increment_vector(v, client)
        assert v == before  # the input is not changed
        assert compare_vectors(v, w) == "ancestor"
        change = {"clientId": client, "version": w[client]}
        assert has_seen(w, change) and not has_seen(v, change)
        assert all(has_seen(merge_vectors(w, vector(rng)), {"clientId": k, "version": n}) for k, n in w.items())


def test_same_answers_as_typescript() -> None:
    from conftest import ts_oracle

    rng = random.Random(18)
    calls, ours = [], []
    for _ in range(400):
        a, b, client = vector(rng), vector(rng), rng.choice(CLIENTS)
        change = {"clientId": client, "version": rng.randint(0, 5)}
        calls += [["merge", a, b], ["compare", a, b], ["hasSeen", a, change], ["increment", a, client]]
        ours += [merge_vectors(a, b), compare_vectors(a, b), has_seen(a, change), increment_vector(a, client)]
    assert ts_oracle(calls) == ours
