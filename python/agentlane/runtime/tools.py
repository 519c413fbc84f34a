"""The workspace tools: read, write, edit, list, search, run a command — confined to the workspace folder."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
from dataclasses import dataclass
from typing import Any, Callable

from .diff import diff_ref, unified_diff

# What the model is told about each tool. Mirrored from the recorded request bodies: the model must be
# told the same thing for a replay to be the same conversation.
DEFINITIONS: list[dict] = [
    {"name": "read_file", "description": "Read a UTF-8 text file of the workspace.",
     "parameters": {"type": "object", "required": ["path"], "properties": {"path": {"type": "string", "minLength": 1}}}},
    {"name": "write_file", "description": "Create or overwrite a text file in the workspace.",
     "parameters": {"type": "object", "required": ["path", "content"],
                    "properties": {"path": {"type": "string", "minLength": 1}, "content": {"type": "string"}}}},
    {"name": "edit_file", "description": "Replace one exact occurrence of oldText with newText in a workspace file.",
     "parameters": {"type": "object", "required": ["path", "oldText", "newText"],
                    "properties": {"path": {"type": "string", "minLength": 1}, "oldText": {"type": "string", "minLength": 1},
                                   "newText": {"type": "string"}}}},
    {"name": "list_files", "description": "List the entries of a workspace folder (default: the workspace root).",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "search_files",
     "description": "Find lines containing a text (case-sensitive) in workspace files; at most 200 matches.",
     "parameters": {"type": "object", "required": ["pattern"],
                    "properties": {"pattern": {"type": "string", "minLength": 1}, "path": {"type": "string"}}}},
    {"name": "run_command", "description": "Run a shell command in the workspace; returns its exit code and output.",
     "parameters": {"type": "object", "required": ["command"],
                    "properties": {"command": {"type": "string", "minLength": 1}, "timeoutMs": {"type": "integer", "minimum": 1}}}},
    {"name": "ask_user", "description": "Ask the user a question and wait for the answer.",
     "parameters": {"type": "object", "required": ["prompt"],
                    "properties": {"prompt": {"type": "string", "minLength": 1}, "choices": {"type": "array", "items": {"type": "string"}}}}},
]
# The sub-agent tool, offered with `subagents` on (a sub-agent itself has none: depth 1).
TASK: dict = {
    "name": "task",
    "description": "Start a sub-agent for a self-contained task (it has the same workspace tools but its own fresh "
                   "conversation). Give it complete instructions; it answers with its result.",
    "parameters": {"type": "object", "required": ["description", "prompt"], "properties": {
        "description": {"type": "string", "description": "A short (3-7 words) title of the task"},
        "prompt": {"type": "string", "description": "The full instructions for the sub-agent; it sees nothing else"}}},
}
NEEDS_APPROVAL = {"write_file", "edit_file", "run_command"}
MAX_MATCHES = 200


class ToolError(Exception):
    """A tool failure that goes back to the model as the tool's result (never thrown out of the turn)."""


@dataclass
class FileChange:
    path: str
    change: str  # created | modified
    diff: dict
    additions: int
    deletions: int


@dataclass
class ToolOutcome:
    output: Any
    file_change: FileChange | None = None


def validate_input(name: str, value: Any, definitions: list[dict] = DEFINITIONS) -> None:
    """The checks the tool's JSON Schema makes; the message mirrors the TypeScript runtime's, which the model reads."""
    definition = next((d for d in definitions if d["name"] == name), None)
    if definition is None:
        raise ToolError(f"unknown tool {name}")
    definition = definition["parameters"]
    if not isinstance(value, dict):
        raise ToolError(f"invalid input for {name}: / must be object")
    missing = [k for k in definition.get("required", []) if k not in value]
    if missing:
        raise ToolError(f"invalid input for {name}: / must have required properties {', '.join(missing)}")
    for key, rule in definition["properties"].items():
        if key not in value:
            continue
        v = value[key]
        if rule["type"] == "string" and (not isinstance(v, str) or len(v) < rule.get("minLength", 0)):
            raise ToolError(f"invalid input for {name}: /{key} must be a string of at least {rule.get('minLength', 0)} characters")
        if rule["type"] == "integer" and (not isinstance(v, int) or isinstance(v, bool) or v < rule.get("minimum", v)):
            raise ToolError(f"invalid input for {name}: /{key} must be an integer of at least {rule.get('minimum')}")


# A command's output reaches the events, the audit rows and the model, so `env` (or a prompt asking for
# `echo $OPENAI_API_KEY`) must find no credential to print. Dropped from its environment: the variables
# providers and the server read keys and tokens from, any name that reads as a credential, a URL carrying a
# password, and any value that is or holds a key this workspace was told about (the model's API key).
_SECRET_NAMES = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
                 "GOOGLE_API_KEY", "AGENTLANE_TOKEN", "AGENTLANE_TOKENS"}
_SECRET_NAME = re.compile(r"(_KEY|_TOKENS?|_SECRET|_PASSWORD|_PASSWD|_CREDENTIALS)$|SECRET|PASSWORD", re.I)
_URL_WITH_PASSWORD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]+@", re.I)
_MIN_CONTAINED = 8  # a shorter key is only dropped on an exact match: a 3-letter one would match everywhere


def command_env(env: dict[str, str], secrets: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """`env` without its credentials (see above)."""
    def secret(name: str, value: str) -> bool:
        if name.upper() in _SECRET_NAMES or _SECRET_NAME.search(name) or _URL_WITH_PASSWORD.search(value):
            return True
        return any(s and (value == s or (len(s) >= _MIN_CONTAINED and s in value)) for s in secrets)
    return {name: value for name, value in env.items() if not secret(name, value)}


class Workspace:
    def __init__(self, root: pathlib.Path) -> None:
        self.root = root.resolve()
        self.secrets: set[str] = set()  # keys kept out of a command's environment (a turn adds its API key)

    def resolve(self, path: str) -> pathlib.Path:
        target = (self.root / path).resolve()
        if target != self.root and self.root not in target.parents:
            raise ToolError(f"{path} is outside the workspace")
        return target

    def approval_subject(self, name: str, args: dict) -> tuple[str, dict]:
        """(title, subject) of the approval request for a tool that needs one."""
        if name == "write_file":
            target = self.resolve(args["path"])
            old = target.read_text("utf-8") if target.is_file() else None
            diff, _, _ = unified_diff(args["path"], old, args["content"])
            return f"Write {args['path']}", {"kind": "file_edit", "path": args["path"], "diff": diff_ref(diff)}
        if name == "edit_file":
            return f"Edit {args['path']}", {"kind": "file_edit", "path": args["path"]}
        return f"Run {args['command']}", {"kind": "command", "command": args["command"]}

    def run(self, name: str, args: dict) -> ToolOutcome:
        handler: Callable[[dict], ToolOutcome] = getattr(self, f"_{name}")
        return handler(args)

    def _read_file(self, args: dict) -> ToolOutcome:
        target = self.resolve(args["path"])
        if not target.is_file():
            raise ToolError(f"{args['path']} is not a file")
        return ToolOutcome(target.read_text("utf-8"))

    def _write_file(self, args: dict) -> ToolOutcome:
        target = self.resolve(args["path"])
        old = target.read_text("utf-8") if target.is_file() else None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(args["content"], "utf-8")
        diff, additions, deletions = unified_diff(args["path"], old, args["content"])
        change = FileChange(args["path"], "created" if old is None else "modified", diff_ref(diff), additions, deletions)
        return ToolOutcome({"path": args["path"], "bytes": len(args["content"].encode("utf-8"))}, change)

    def _edit_file(self, args: dict) -> ToolOutcome:
        target = self.resolve(args["path"])
        if not target.is_file():
            raise ToolError(f"{args['path']} is not a file")
        old = target.read_text("utf-8")
        count = old.count(args["oldText"])
        if count != 1:
            raise ToolError(f"oldText occurs {count} times in {args['path']}, expected exactly once")
        new = old.replace(args["oldText"], args["newText"], 1)
        target.write_text(new, "utf-8")
        diff, additions, deletions = unified_diff(args["path"], old, new)
        change = FileChange(args["path"], "modified", diff_ref(diff), additions, deletions)
        return ToolOutcome({"path": args["path"], "additions": additions, "deletions": deletions}, change)

    def _list_files(self, args: dict) -> ToolOutcome:
        folder = self.resolve(args.get("path") or ".")
        if not folder.is_dir():
            raise ToolError(f"{args.get('path')} is not a folder")
        return ToolOutcome(sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()))

    def _search_files(self, args: dict) -> ToolOutcome:
        base = self.resolve(args.get("path") or ".")
        matches: list[str] = []
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        for file in files:
            try:
                lines = file.read_text("utf-8").splitlines()
            except (UnicodeDecodeError, OSError):
                continue
            rel = file.relative_to(self.root).as_posix()
            for number, line in enumerate(lines, 1):
                if args["pattern"] in line:
                    matches.append(f"{rel}:{number}: {line}")
                    if len(matches) >= MAX_MATCHES:
                        return ToolOutcome(matches)
        return ToolOutcome(matches)

    def _run_command(self, args: dict) -> ToolOutcome:
        timeout = args.get("timeoutMs", 120_000) / 1000
        try:
            done = subprocess.run(args["command"], shell=True, cwd=self.root, capture_output=True, text=True,
                                  timeout=timeout, env=command_env(dict(os.environ), self.secrets))
        except subprocess.TimeoutExpired:
            raise ToolError(f"the command did not finish in {timeout:g} s") from None
        return ToolOutcome({"exitCode": done.returncode, "output": done.stdout + done.stderr})
