"""`ctxlab recommend` end to end on the bundled agent sessions."""

from __future__ import annotations

import pandas as pd
from typer.testing import CliRunner

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis.dominance import ANCHORS, dominance
from ctxlab.analysis.recommend import frontier, policies, stored_policies
from ctxlab.analysis.sessions import unit_rows
from ctxlab.analysis.wording import lines
from ctxlab.cli import app


def test_recommend_prints_the_front_and_names_a_policy(tmp_path):
    db = str(tmp_path / "r.duckdb")
    result = CliRunner().invoke(app, [
        "recommend", "sample:agent_sessions", "--window", "6000", "--limit", "3", "--workers", "0", "--db", db,
        "--strategy", "noop", "--strategy", "window_guard", "--strategy", "compaction"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    assert "Needed recall" in result.output and "run:" in result.output
    header = next(line for line in result.output.splitlines() if "policy" in line and "counter" in line)
    assert header.index("needed recall") < header.index("regex fact recall")  # the grounded measure first
    with store.reading(db) as con:
        run = store.resolve_run(con, None)
        found = policies(frames.results(con, run, mode="per-turn"), "o200k_base")
        # What the command reads: a few sessions at a time, only the columns it sums; the same front and verdict.
        for per_read in (1, 2, 40):
            sliced = stored_policies(con, run, "o200k_base", per_read=per_read)
            pd.testing.assert_frame_equal(sliced.sessions, found.sessions)
            pd.testing.assert_frame_equal(sliced.front, found.front)
            assert sliced.verdict == found.verdict
    # The printed verdict is the library's, on the stored run, in the words every face uses; noop is never run.
    front, choice = found.front, found.verdict
    assert choice is not None and choice.run.label != "noop"
    text = " ".join(result.output.split())
    assert all(" ".join(f"{line.key}: {line.text}".split()) in text for line in lines(choice))
    assert " ".join(choice.evidence.split()) in text
    assert set(front["label"]) == {"noop", "window_guard", "compaction"} and front["sessions"].eq(3).all()
    noop = front.set_index("label").loc["noop"]
    assert noop["needed_recall"] == 1.0 and noop["overflow_rate"] > 0  # it keeps everything and overflows
    # Beside each policy, the hindsight limit at its own tokens, named as what it is.
    assert "hindsight limit" in header and "headroom closed" in header
    printed = " ".join(result.output.split())
    assert "Hindsight limit: the most of the next call's needed strings any text of the policy's tokens" in printed
    assert (front["limit_recall"] >= front["needed_recall"] - 1e-12).all() and front["limit_recall"].notna().all()
    # and what it says here: where it binds, or that it binds nowhere.
    binding = front[front["limit_recall"] < 0.995]
    assert all(f"{label} {100 * v:.1f}%" in printed for label, v in zip(binding["label"], binding["limit_recall"],
                                                                        strict=True))
    assert ("the hindsight limit is every needed string" if binding.empty else "The hindsight limit binds") in printed
    # No compaction in the bundled sessions: the verdict carries the one measured on the shared logs.
    text = " ".join(result.output.split())
    assert "stand-in gap: summaries written offline: 2 recorded compactions (the shared real logs, shipped)" in text


def test_recommend_on_logs_with_compactions_carries_their_own_figure(tmp_path):
    from tests.cost.conftest import REALLOGS

    db = str(tmp_path / "r.duckdb")
    log = REALLOGS / "claude_code" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
    result = CliRunner().invoke(app, ["recommend", str(log), "--window", "64000", "--workers", "0", "--db", db,
                                      "--strategy", "claude_code", "--strategy", "sliding_window"],
                                env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "stand-in gap: summaries written offline: 1 recorded compaction (your logs): stand-in 24%, agents' own " \
        "summaries 36%" in text
    with store.reading(db) as con:
        from ctxlab.store.compaction_grades import compaction_grades
        assert list(compaction_grades(con)["candidate"]) == ["agent", "claude_code"]


def test_recommend_needs_a_window():
    result = CliRunner().invoke(app, ["recommend", "sample:chats"])
    assert result.exit_code != 0 and "--window" in result.output


def test_vs_anchors_prints_each_anchors_verdict_difference_and_sessions_won_tied_lost(tmp_path):
    db = str(tmp_path / "v.duckdb")
    result = CliRunner().invoke(app, [
        "recommend", "sample:agent_sessions", "--window", "8000", "--limit", "3", "--workers", "0", "--db", db,
        "--vs-anchors"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "hindsight limit" in result.output
    assert "learned (the shipped need model), needed recall:" in result.output or "learned, needed recall: out" in \
        result.output
    with store.reading(db) as con:
        results = frames.results(con, store.resolve_run(con, None), mode="per-turn")
    table = dominance(frontier(results, "o200k_base"), unit_rows(results, "o200k_base"), y="in_context_recall")
    assert set(table["anchor"]) == set(ANCHORS)
    printed = {line.split()[0]: line for line in result.output.splitlines() if line.split()[:1] != []}
    for row in table.itertuples():
        tally = f"{row.sessions_won}/{row.sessions_tied}/{row.sessions_lost}"
        if row.verdict == "out of range":
            assert f"out of range - {tally}" in printed[row.anchor]
        else:  # the verdict, recommended's recall minus the anchor's in points with its paired interval, the sessions
            difference = (f"{100 * row.difference:+.1f} pt [{100 * row.difference_low:+.1f}, "
                          f"{100 * row.difference_high:+.1f}]")
            assert f"{row.verdict} {difference} {tally}" in printed[row.anchor]
