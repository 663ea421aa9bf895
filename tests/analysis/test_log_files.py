"""`check_files`: one row per file of a folder of agent logs, refused files with their reason."""

from __future__ import annotations

import json
from pathlib import Path

from ctxlab.analysis.log_files import FileCheck, check_files, unread_files
from tests.cost.conftest import REALLOGS
from tests.provider_logs import billed_log, write_logs

# Calls per file of ../shared/reallogs/claude_code: its README's distinct assistant message ids.
CLAUDE_CALLS = {"4d5611e5-241a-462a-8d15-5122611a9569.jsonl": 139, "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl": 157,
                "subagent.jsonl": 12, "short.jsonl": 1, "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": 7,
                "fa812bfe-b295-4cca-9c2f-fdf01028cb46/subagents/agent-a93ccab.jsonl": 11,
                "fa812bfe-b295-4cca-9c2f-fdf01028cb46/subagents/agent-aa84377.jsonl": 9}


def test_every_real_log_file_is_a_row_that_loads_or_says_why_not():
    assert REALLOGS.is_dir(), f"the real agent logs are missing: {REALLOGS}"
    rows = {Path(c.file).relative_to(REALLOGS).as_posix(): c for c in check_files([str(REALLOGS)])}
    files = [p for p in REALLOGS.rglob("*") if p.is_file()]
    assert len(rows) + sum(unread_files([str(REALLOGS)]).values()) == len(files)
    for name, row in rows.items():
        assert row.sessions or row.reason(), name
        if name.startswith(("claude_code/", "openhands/", "swe_agent/")):  # chat histories, with both roles
            assert row.replayable == bool(row.sessions), name
    claude = {name.removeprefix("claude_code/"): row.total("provider_calls") for name, row in rows.items()}
    assert {name: claude[name] for name in CLAUDE_CALLS} == CLAUDE_CALLS
    for session in ("4d5611e5-241a-462a-8d15-5122611a9569", "fa812bfe-b295-4cca-9c2f-fdf01028cb46"):
        compact = next(r for n, r in rows.items() if n.startswith(f"claude_code/{session}/subagents/agent-acompact-"))
        assert compact.sessions == 0 and compact.reason() == f"read with {session}.jsonl"
        assert rows[f"claude_code/{session}.jsonl"].usable_share >= 0.9
    swe = [r for n, r in rows.items() if n.startswith("swe_agent/")]
    assert len(swe) == 3 and all(r.total("provider_calls") == 0 for r in swe)
    notes = {n.removeprefix("swe_agent/"): r.reason() for n, r in rows.items() if n.startswith("swe_agent/")}
    assert notes == {  # the import's notes, in one line: run totals, or a replayed demonstration with no usage
        "pydicom__pydicom-1458.traj": "no per-call usage recorded; run totals only: 122,612 tokens sent in 12 calls",
        "swe-agent__test-repo-i1.traj": "no per-call usage recorded; run totals only: 52,861 tokens sent in 5 calls",
        "marshmallow-code__marshmallow-1867.traj": "no per-call usage recorded; a demonstration replayed with model "
        "'replay' (scripted actions, real environment output; 13 calls, 0 tokens, no provider called): strategies "
        "can replay it, calibration and pricing have nothing to use"}
    assert rows["claude_code/claude_code.jsonl"].reason().endswith(
        "resumes session e9f146fa-3b20-48d0-9be4-d99ca901cae4: starts with that session's history")
    assert rows["claude_code/subagent.jsonl"].reason() == (
        "subagent afb92ff's own log (subagent/subagents/agent-afb92ff.jsonl) is not beside this file: its conversation "
        "is not imported; the 19 agent_progress lines that copy its messages here for the UI are left out; 1 subagent "
        "conversation(s): 491e126e-1e71-469c-ade2-fcc8af567c74:afb92ff")
    gemini = rows["gemini_cli/test_conversation_gemini.json"]
    assert gemini.usable_share == 1 and gemini.reason() == ""  # the thinking counted at its recorded size


def test_a_refused_file_does_not_stop_the_others_and_limit_counts_sessions(tmp_path):
    write_logs(tmp_path / "a.jsonl", [billed_log(1), billed_log(2)])
    (tmp_path / "b.jsonl").write_text(json.dumps({"id": "bad", "messages": "nope"}) + "\n")
    write_logs(tmp_path / "c.jsonl", [billed_log(3)])
    rows = list(check_files([str(tmp_path)], counter="chars4"))
    assert [(Path(r.file).name, r.sessions) for r in rows] == [("a.jsonl", 2), ("b.jsonl", 0), ("c.jsonl", 1)]
    assert rows[1].refused and rows[1].reason().startswith("line 1: ") and not rows[1].replayable
    limited = list(check_files([str(tmp_path)], counter="chars4", limit=2))
    assert [r.sessions for r in limited] == [2]


def test_a_missing_path_or_an_unread_type_is_a_row_with_its_reason(tmp_path):
    (tmp_path / "notes.md").write_text("# notes\n")
    (tmp_path / "notes.txt").write_text("notes\n")
    [missing, notes, text] = check_files([str(tmp_path / n) for n in ("nope.jsonl", "notes.md", "notes.txt")])
    assert missing.reason().startswith("no such file or folder")
    assert notes.reason().startswith("not an Aider chat history") and text.reason().startswith("unsupported file type")
    assert FileCheck("x", ()).reason() == "no conversations"
