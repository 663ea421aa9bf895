"""The stand-in against the agents' own summaries: paired differences, the figure a verdict
carries (the user's logs, else the shipped measurement), and the shipped data's provenance."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from ctxlab.analysis.standin import KIND_POINTS, gap_table, own_preset_gap, per_compaction
from ctxlab.analysis.standin_shipped import SHIPPED_SOURCE, YOURS, shipped_provenance, shipped_rows, standin_gap
from ctxlab.datasets import load_conversations
from ctxlab.replay.compaction_grading import grade_compactions
from ctxlab.store.schema import CompactionGradeRow
from tests.cost.conftest import REALLOGS


def row(conv: str, candidate: str, needed: int, kept: int, agent: str = "claude_code", tokens: int = 100,
        error: str | None = None) -> dict:
    return CompactionGradeRow(conv, 0, 5, 5, agent, "auto", candidate, 3, needed, kept, kept, kept / needed if needed
                              else None, summary_tokens=tokens, error=error)._asdict()


def test_the_gap_pairs_each_stand_in_with_the_agent_at_the_same_compaction():
    rows = pd.DataFrame([row("a", "agent", 10, 2, tokens=3000), row("a", "claude_code", 10, 6, tokens=2000),
                         row("b", "agent", 30, 12, tokens=4000), row("b", "claude_code", 30, 12, tokens=3000),
                         row("c", "agent", 0, 0), row("c", "claude_code", 0, 0),  # nothing needed: left out
                         row("d", "agent", 5, 1), row("d", "claude_code", 5, 5, error="boom")])
    gap = own_preset_gap(rows, "test")
    assert gap.compactions == 2 and gap.agent_recall == pytest.approx(14 / 40)
    assert gap.standin_recall == pytest.approx(18 / 40) and gap.gap == pytest.approx(4 / 40)
    assert gap.low <= gap.gap <= gap.high and (gap.standin_tokens, gap.agent_tokens) == (2500, 3500)
    assert gap.kinder is (gap.gap > KIND_POINTS) and "2 recorded compactions (test): stand-in 45%" in gap.line()
    table = gap_table(rows)
    assert list(table["candidate"]) == ["claude_code"] and table["compactions"][0] == 2


def test_a_much_kinder_stand_in_says_so_in_its_line():
    rows = pd.DataFrame([row(c, "agent", 10, 2) for c in "abc"] + [row(c, "claude_code", 10, 8) for c in "abc"])
    gap = own_preset_gap(rows, "test")
    assert gap.kinder and "kinder by 60 points" in gap.line() and "overstated" in gap.line()


def test_each_agent_is_paired_with_its_own_preset():
    rows = pd.DataFrame([row("a", "agent", 10, 5, agent="pi"), row("a", "claude_code", 10, 10, agent="pi"),
                         row("a", "pi", 10, 4, agent="pi")])
    assert own_preset_gap(rows, "t").standin_recall == pytest.approx(0.4)
    assert own_preset_gap(pd.DataFrame([row("a", "agent", 10, 5, agent="aider")]), "t") is None


def test_a_verdict_reads_the_users_logs_first_then_the_shipped_figure():
    mine = pd.DataFrame([row("a", "agent", 10, 5), row("a", "claude_code", 10, 5)])
    assert standin_gap(mine).source == YOURS
    shipped = standin_gap(None)
    assert shipped.source == SHIPPED_SOURCE and shipped.compactions == 2
    assert standin_gap(pd.DataFrame([row("a", "agent", 0, 0)])).source == SHIPPED_SOURCE


def test_the_shipped_rows_are_those_of_the_shared_logs_today():
    """The shipped file must be regenerated when the summarizer or the grading changes."""
    provenance = shipped_provenance()
    files = {f["file"]: f["sha256"] for f in provenance["files"]}
    paths = [p for p in REALLOGS.rglob("*.jsonl") if p.name in files]
    assert len(paths) == 3 and all(hashlib.sha256(p.read_bytes()).hexdigest() == files[p.name] for p in paths)
    fresh = pd.DataFrame([g.row._asdict() for p in paths for c in load_conversations(p) for g in grade_compactions(c)])
    keys = ["conversation_id", "candidate", "needed", "needed_kept", "summary_tokens"]
    pd.testing.assert_frame_equal(fresh[keys].sort_values(keys, ignore_index=True),
                                  shipped_rows()[keys].sort_values(keys, ignore_index=True), check_dtype=False)


def test_per_compaction_intervals_resample_calls():
    conv = next(iter(load_conversations(REALLOGS / "claude_code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")))
    table = per_compaction(grade_compactions(conv, candidates=("claude_code", "codex")))
    assert list(table["candidate"]) == ["claude_code", "codex"]
    for r in table.itertuples():
        assert r.low <= r.gap <= r.high and r.gap == pytest.approx(r.standin_recall - r.agent_recall)
