"""Unified diffs of one file, in the layout the corpus records (a `===` rule, `--- a/…` / `+++ b/…`, hunks
with 4 lines of context and explicit counts such as `@@ -0,0 +1,1 @@`)."""

from __future__ import annotations

import difflib
import hashlib

RULE = "=" * 67
CONTEXT = 4
MAX_PREVIEW_CHARS = 2048


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _range(start: int, count: int) -> str:
    return f"{start + 1 if count else start},{count}"


def unified_diff(path: str, old: str | None, new: str) -> tuple[str, int, int]:
    """(diff text, additions, deletions)."""
    a, b = _lines(old or ""), _lines(new)
    out = [RULE + "\n", f"--- {'/dev/null' if old is None else 'a/' + path}\n", f"+++ b/{path}\n"]
    additions = deletions = 0
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [" " + line for line in a[x1:x2]]
                continue
            out += ["-" + line for line in a[x1:x2]]
            out += ["+" + line for line in b[y1:y2]]
            deletions += x2 - x1
            additions += y2 - y1
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)
    return text, additions, deletions


def diff_ref(diff: str) -> dict:
    """The contract's ArtifactWithPreview of a diff: content-addressed id, at most 2048 characters of preview."""
    raw = diff.encode("utf-8")
    digest = hashlib.sha256(raw).hexdigest()
    return {
        "artifact": {"id": f"sha256-{digest}", "bytes": len(raw), "sha256": digest, "contentType": "text/x-diff"},
        "preview": diff[:MAX_PREVIEW_CHARS],
        "truncated": len(diff) > MAX_PREVIEW_CHARS,
    }
