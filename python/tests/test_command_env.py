"""run_command's environment: no credential a command (or a model asking for `env`) could print."""

from __future__ import annotations

import pathlib

from agentlane.runtime.tools import Workspace, command_env


def test_credentials_are_dropped_and_the_rest_is_kept() -> None:
    env = {
        "PATH": "/usr/bin", "HOME": "/root", "LANG": "C.UTF-8", "HTTP_PROXY": "http://proxy:3128",
        "OPENAI_API_KEY": "sk-a", "GITHUB_TOKEN": "t", "AWS_SECRET_ACCESS_KEY": "s", "db_password": "p",
        "DATABASE_URL": "postgres://user:pw@host/db", "HARMLESS": "has sk-live-0123456789 inside",
    }
    assert command_env(env, {"sk-live-0123456789"}) == {
        "PATH": "/usr/bin", "HOME": "/root", "LANG": "C.UTF-8", "HTTP_PROXY": "http://proxy:3128",
    }
    assert command_env({"X": "abc"}, {"ab"}) == {"X": "abc"}  # a short key is only dropped on an exact match


def test_a_command_does_not_see_the_api_key(tmp_path: pathlib.Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-key-1234")
    monkeypatch.setenv("CUSTOM_VAR", "sk-turn-key-5678")
    workspace = Workspace(tmp_path)
    workspace.secrets.add("sk-turn-key-5678")
    out = workspace._run_command({"command": "env"}).output["output"]
    assert "sk-provider-key-1234" not in out and "sk-turn-key-5678" not in out and "PATH=" in out
