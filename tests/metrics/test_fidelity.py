"""The fidelity report carries everything an import counted: repairs, lines left out, placeholders,
the lines it read, and notes linking a conversation to the others of its log."""

from __future__ import annotations

from ctxlab.messages import Conversation
from ctxlab.metrics.fidelity import fidelity, notes
from tests.provider_logs import billed_log, opaque_thinking_log


def with_meta(**meta) -> Conversation:
    log = billed_log(8)
    return Conversation(log.id, log.messages, meta={**log.meta, **meta})


def test_repairs_skips_placeholders_lines_and_notes_are_carried():
    report = fidelity(with_meta(repairs=["x.jsonl:5: split"], skipped={"progress": 3}, omitted={"image": 1},
                                entries=40, notes=["no token usage: model_stats reports 0 tokens for 3 calls"]))
    assert report.repairs == ("x.jsonl:5: split",) and report.skipped == {"progress": 3}
    assert report.omitted == {"image": 1} and report.entries == 40
    assert report.notes == ("no token usage: model_stats reports 0 tokens for 3 calls",)
    assert fidelity(billed_log(8)).entries is None and fidelity(billed_log(8)).notes == ()


def test_notes_link_a_conversation_to_the_others_of_its_log():
    assert notes({"subagent": True, "parent": {"conversation": "s1", "tool_call_id": "toolu_1"}}) == (
        "subagent of s1, started by Task call toolu_1",)
    assert notes({"subagent": True, "parent": {"conversation": "s1", "tool_call_id": None}}) == ("subagent of s1",)
    assert notes({"resumed_from": "s0", "subagents": [{"conversation": "s1:a", "tool_call_id": None},
                                                     {"conversation": "s1:b", "tool_call_id": "t"}]}) == (
        "resumes session s0: starts with that session's history", "2 subagent conversation(s): s1:a, s1:b")


def test_residuals_count_and_show_thinking_the_log_sizes():
    """A Gemini-style log (thought signatures resent, sized by the call's thoughts count): the
    residuals add the recorded size to the estimate and say so among the span's lines."""
    report = fidelity(opaque_thinking_log(3), counter="o200k_base", worst=50)
    assert report.usable and len(report.residuals) == report.usable
    sized = [r for r in report.residuals if any(line.endswith("tokens as the log records them (not shown)")
                                                for line in r.messages)]
    assert sized and all(abs(r.error) < 0.1 for r in report.residuals)  # o200k_base is the billed text here
