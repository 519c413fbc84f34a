"""The wire client answering for real: an approval the built-in engine waits on, answered from Python, and the
artifact the approval names fetched whole and by range (the other answer tests only see refusals)."""

from __future__ import annotations

import json

from agentlane.events import Delivered, RunCanonicalized
from agentlane.follow import follow_thread
from openapi_check import check_response
from servers import builtin_config, start_fake_model, start_server

CONTENT = "written after a Python approval\n"


def test_an_approval_answered_from_python_applies_and_its_diff_artifact_is_served(tmp_path, openapi) -> None:
    from agentlane.client import Client

    work = tmp_path / "work"
    work.mkdir()
    args = json.dumps({"path": "notes.txt", "content": CONTENT})
    fake = start_fake_model("--scenario", "tool-then-answer", "--tool-name", "write_file", "--tool-args", args,
                            "--text", "The notes are written.")
    server = None
    try:
        server = start_server(tmp_path / "data", config=builtin_config(f"{fake.url}", work))
        client = Client(server.url)
        sid = client.create_session("builtin", work_dir=str(work))["id"]
        run, _ = client.create_run(sid, "write the notes")
        seen: list[Delivered] = []
        answered = False
        for event in follow_thread(client, sid, until=lambda e: isinstance(e, RunCanonicalized)
                                   and e.run_id == run["runId"]):
            if not isinstance(event, Delivered):
                continue
            seen.append(event)
            if event.event.kind == "approval.requested" and not answered:
                payload = event.event.payload
                allow = next(o for o in payload["options"] if o["optionId"] == "allow")
                body = client.answer_approval(run["runId"], payload["approvalId"], "selected", allow["optionId"])
                check_response(openapi, "POST", "/runs/{id}/approvals/{approvalId}", 202, body)
                answered = True
        assert answered
        kinds = [e.event.kind for e in seen]
        assert "approval.resolved" in kinds and "tool.completed" in kinds
        resolved = next(e.event.payload for e in seen if e.event.kind == "approval.resolved")
        assert resolved["outcome"] == "selected" and resolved.get("optionId") == "allow"
        assert (work / "notes.txt").read_text() == CONTENT
        assert client.get_run(run["runId"])["outcome"] == "completed"

        requested = next(e.event.payload for e in seen if e.event.kind == "approval.requested")
        ref = requested["subject"]["diff"]["artifact"]
        whole = client.get_artifact(ref["id"])
        assert whole.status == 200 and len(whole.content) == ref["bytes"]
        assert whole.content_type and whole.content_type.startswith(ref["contentType"])
        assert CONTENT.strip() in whole.content.decode()
        part = client.get_artifact(ref["id"], byte_range="bytes=0-9")
        assert part.status == 206 and part.content == whole.content[:10]
        assert part.content_range == f"bytes 0-9/{ref['bytes']}"
        unchanged = client.get_artifact(ref["id"], if_none_match=whole.etag)
        assert unchanged.status == 304
    finally:
        if server is not None:
            server.stop()
        fake.stop()
