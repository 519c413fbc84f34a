"""Shared test helpers: where the repository's fixtures live, and the TypeScript side run as a black box."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
from typing import Any

import pytest

PYTHON_ROOT = pathlib.Path(__file__).resolve().parent.parent
REPO = PYTHON_ROOT.parent
CORPUS = REPO / "packages" / "runtime" / "test" / "fixtures" / "corpus"
CONTRACT_FIXTURES = REPO / "packages" / "contract" / "test" / "fixtures"
ORACLE = pathlib.Path(__file__).resolve().parent / "ts" / "oracle.mjs"
IN_CI = os.environ.get("CI") == "true"


def corpus_turns() -> list[dict]:
    return [json.loads(p.read_text("utf-8")) for p in sorted(CORPUS.glob("*.json"))]


def need(condition: bool, reason: str) -> None:
    """Skip with a printed reason, except under CI=true where a missing prerequisite is a failure."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI=true: {reason}")
    pytest.skip(reason)


def run_node(script: pathlib.Path, *args: str, stdin: str = "", timeout: float = 60) -> str:
    """Runs a TypeScript-side helper (through tsx, as the repo's own scripts run) and returns its stdout."""
    need(shutil.which("node") is not None, "node is not on PATH")
    done = subprocess.run(
        ["node", "--import", "tsx", str(script), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise AssertionError(f"{script.name} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def ts_oracle(calls: list[list[Any]]) -> list[Any]:
    """Evaluates [op, ...args] calls with @agentlane/contract's exported functions, in one node process."""
    out = run_node(ORACLE, stdin=json.dumps(calls))
    return json.loads(out)
