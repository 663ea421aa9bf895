"""Recall compared at equal tokens sent: interpolation on a candidate's settings, verdicts by the one
rule (the paired interval of the difference), range, and the per-session tally."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ctxlab import store
from ctxlab.analysis import dominance as dom
from ctxlab.analysis import frames
from ctxlab.analysis.dominance import LOSES, OUT, TIES, WINS, compare, curve, dominance, recall_at, replay_config
from ctxlab.analysis.recommend import frontier
from ctxlab.replay import replay


def rows(label_points: list[tuple[str, int, float, float]]) -> pd.DataFrame:
    """`frontier`-like rows: (label, window, tokens_sent, needed_recall), without intervals."""
    return pd.DataFrame([{"label": label, "window": window, "tokens_sent": tokens, "needed_recall": recall,
                          "overflow_rate": 0.0, "orphan_rate": 0.0} for label, window, tokens, recall in label_points])


CANDIDATE = rows([("rec:a", 8000, 100.0, 0.5), ("rec:b", 8000, 200.0, 0.7), ("rec:c", 8000, 400.0, 0.9)])


def test_recall_is_linear_between_the_two_settings_around_the_tokens() -> None:
    front = curve(CANDIDATE)
    assert recall_at(front, 150.0) == pytest.approx(0.6)
    assert recall_at(front, 300.0) == pytest.approx(0.8)
    assert recall_at(front, 200.0) == pytest.approx(0.7)
    assert recall_at(front, 100.0) == pytest.approx(0.5) and recall_at(front, 400.0) == pytest.approx(0.9)


def test_no_extrapolation_outside_the_settings() -> None:
    front = curve(CANDIDATE)
    assert recall_at(front, 99.0) is None and recall_at(front, 401.0) is None
    assert recall_at(curve(CANDIDATE.iloc[:0]), 150.0) is None


def calls(label: str, seq: int, tokens: float, kept: list[int], *, window: int = 8000, total: int = 10) -> list[dict]:
    """`unit_rows`-like rows: one session of `label` sending `tokens` over its calls, each keeping
    `kept[i]` of `total` needed strings."""
    return [{"label": label, "counter": "seed", "window": window, "dataset": "d", "seq": seq, "turn": i,
             "sent": tokens / len(kept), "needed_kept": k, "needed_total": total, "framed_kept": k,
             "non_regex_kept": k, "non_regex_total": total} for i, k in enumerate(kept)]


def units(*groups: list[dict]) -> pd.DataFrame:
    """The rows, each its own ``unit`` (as a replay numbers them: one run-wide count, so the same
    call of two policies has two units and one ``turn``)."""
    rows = pd.DataFrame([row for group in groups for row in group])
    return rows.assign(unit=range(len(rows)))


def front_of(table: pd.DataFrame) -> pd.DataFrame:
    """`frontier`-like rows of `units`: mean tokens sent per session and pooled needed recall."""
    per = table.groupby(["label", "window", "dataset", "seq"]).agg(
        sent=("sent", "sum"), kept=("needed_kept", "sum"), total=("needed_total", "sum")).reset_index()
    out = per.groupby(["label", "window"]).agg(tokens_sent=("sent", "mean"), kept=("kept", "sum"),
                                               total=("total", "sum")).reset_index()
    return out.assign(needed_recall=out["kept"] / out["total"], overflow_rate=0.0, orphan_rate=0.0)


SESSIONS = range(6)
SETTINGS_UNITS = [c for s in SESSIONS for c in (*calls("rec:a", s, 100.0, [5] * 4), *calls("rec:b", s, 200.0, [7] * 4),
                                                 *calls("rec:c", s, 400.0, [9] * 4))]


def test_verdicts_by_the_paired_interval_and_the_per_session_tally() -> None:
    anchors = units(*(calls("x", s, 150.0, [4] * 4) for s in SESSIONS),              # 0.6 vs 0.4 everywhere: wins
                    *(calls("y", s, 300.0, [6 if s % 2 else 10] * 4) for s in SESSIONS),  # 0.8 vs 0.6 / 1.0: ties
                    *(calls("z", s, 300.0, [10] * 4) for s in SESSIONS),             # 0.8 vs 1.0: loses
                    *(calls("t", s, 200.0, [5, 9, 5, 9]) for s in SESSIONS),         # 0.7 vs 0.7: ties
                    *(calls("w", s, 50.0, [1] * 4) for s in SESSIONS),               # below every setting
                    *(calls("v", s, 500.0, [10] * 4) for s in SESSIONS))             # above every setting
    table = pd.concat([units(SETTINGS_UNITS), anchors], ignore_index=True)
    front = front_of(table)
    got = compare(front[front["label"].str.startswith("rec:")], front[~front["label"].str.startswith("rec:")], table)
    got = got.set_index("anchor")
    assert got["verdict"].to_dict() == {"t": TIES, "v": OUT, "w": OUT, "x": WINS, "y": TIES, "z": LOSES}
    assert got.loc["x", "candidate_recall"] == pytest.approx(0.6)
    assert got.loc["x", "difference"] == pytest.approx(0.2) and got.loc["x", "difference_low"] == pytest.approx(0.2)
    assert got.loc["y", "difference_low"] < 0 < got.loc["y", "difference_high"]
    tally = got[["sessions_won", "sessions_tied", "sessions_lost", "sessions_out"]]
    assert tally.loc["x"].tolist() == [6, 0, 0, 0] and tally.loc["z"].tolist() == [0, 0, 6, 0]
    assert tally.loc["y"].tolist() == [3, 0, 3, 0]  # each session is clear, the sessions disagree
    assert tally.loc["t"].tolist() == [0, 6, 0, 0] and tally.loc["w"].tolist() == [0, 0, 0, 6]
    # out of range: dominated only when a setting sends no more and keeps at least as much
    assert not got.loc["w", "dominated"] and not got.loc["v", "dominated"] and got.loc["x", "dominated"]
    assert pd.isna(got.loc["w", "candidate_recall"])


def test_a_small_difference_every_session_shows_wins_though_the_intervals_overlap() -> None:
    """Sessions keep 30% to 90%; the candidate keeps 3 points more in each: the pooled intervals
    overlap (the old rule's tie), the paired interval of the difference does not hold zero."""
    levels = [30, 40, 50, 60, 70, 80, 90, 35, 45, 55, 65, 75]
    table = units(*(calls("rec:a", s, 100.0, [k + 3] * 2, total=100) for s, k in enumerate(levels)),
                  *(calls("rec:b", s, 300.0, [k + 3] * 2, total=100) for s, k in enumerate(levels)),
                  *(calls("anchor", s, 200.0, [k] * 2, total=100) for s, k in enumerate(levels)))
    front = front_of(table)
    got = compare(front[front["label"].str.startswith("rec:")], front[front["label"] == "anchor"], table)
    assert got["verdict"].iloc[0] == WINS
    assert got["difference"].iloc[0] == pytest.approx(0.03)


def test_a_session_whose_calls_disagree_is_tied() -> None:
    """In one session the read-off keeps 5 points more on average, but its calls swing 40 points
    either way: zero is inside the interval over that session's calls (the old 0.005 band: won)."""
    table = units(calls("rec:a", 0, 100.0, [5] * 8), calls("rec:b", 0, 300.0, [5] * 8),
                  calls("anchor", 0, 200.0, [9, 1, 9, 1, 9, 1, 4, 2]))
    front = front_of(table)
    got = compare(front[front["label"].str.startswith("rec:")], front[front["label"] == "anchor"], table)
    assert got[["sessions_won", "sessions_tied", "sessions_lost"]].iloc[0].tolist() == [0, 1, 0]


def test_an_anchor_over_every_setting_is_dominated_by_a_cheaper_better_one() -> None:
    table = units(SETTINGS_UNITS, *(calls("big", s, 900.0, [8] * 4) for s in SESSIONS))
    front = front_of(table)
    got = compare(front[front["label"].str.startswith("rec:")], front[front["label"] == "big"], table)
    assert got["verdict"].iloc[0] == OUT and bool(got["dominated"].iloc[0])


def test_a_dip_in_the_curve_is_kept_and_equal_tokens_take_the_best() -> None:
    dipping = rows([("rec:a", 8000, 100.0, 0.8), ("rec:b", 8000, 200.0, 0.6), ("rec:c", 8000, 200.0, 0.4)])
    front = curve(dipping)
    assert list(front["tokens_sent"]) == [100.0, 200.0] and list(front["recall"]) == [0.8, 0.6]
    assert recall_at(front, 150.0) == pytest.approx(0.7)
    assert dom.bracket(front, 150.0) == ((0.5, "rec:a"), (0.5, "rec:b"))
    assert dom.bracket(front, 200.0) == ((1.0, "rec:b"),) and dom.bracket(front, 250.0) is None


def test_dominance_splits_by_window_and_reads_labels() -> None:
    table = units([c for s in SESSIONS for c in (*calls("recommended:a", s, 100.0, [5] * 2),
                                                  *calls("recommended", s, 300.0, [9] * 2),
                                                  *calls("codex", s, 200.0, [5] * 2),
                                                  *calls("recommended_not", s, 200.0, [10] * 2),
                                                  *calls("recommended", s, 100.0, [10] * 2, window=32000),
                                                  *calls("recommended:x", s, 300.0, [10] * 2, window=32000),
                                                  *calls("codex", s, 200.0, [10] * 2, window=32000))])
    got = dominance(front_of(table), table, anchors=("codex",))
    assert list(zip(got["window"], got["verdict"], strict=True)) == [(8000, WINS), (32000, TIES)]


def test_replay_config_runs_anchors_and_settings_per_turn_with_their_own_counters() -> None:
    config = replay_config(["sample:agent_sessions"], (8000,), settings=("recommended",), anchors=("codex",),
                           limit=2)
    assert config.strategies == ("codex", "recommended") and config.counters == ("seed",)
    assert config.modes == ("per-turn",) and config.windows == (8000,)


def test_recommended_keeps_more_than_compaction_at_compactions_tokens(tmp_path: Path) -> None:
    """End to end on six bundled agent sessions at 8k: read off `recommended`'s curve of settings at
    the seed `compaction`'s tokens sent (as `dominance` does), it keeps more of what the agent's
    next action used, needed and in context (measured: 0.899 against 0.896, 0.824 against 0.813).

    Both with summaries that fill their caps, as when `recommended` was tuned: with the calibrated
    offline length (issue 28) the read-off is 0.892 against 0.896 needed, a re-tuning's question."""
    cap = "summarizer=extractive:length=cap"
    config = replay_config(["sample:agent_sessions"], (8000,), settings=tuple(f"{s},{cap}" for s in dom.SETTINGS[:3]),
                           anchors=(f"compaction:{cap}",), db=str(tmp_path / "d.duckdb"), workers=0, limit=6)
    summary = replay(config)
    with store.reading(summary.db) as con:
        front = frontier(frames.results(con, summary.run_id, mode="per-turn"), "o200k_base")
    seed = front[front["label"] == f"compaction:{cap}"].iloc[0]
    mine = front[front["label"].str.startswith("recommended")]
    for y in ("needed_recall", "in_context_recall"):
        at = recall_at(curve(mine, y), seed["tokens_sent"])
        assert at is not None and at > seed[y], y
    assert front["needed_recall"].between(0, 1).all() and (front["refetch_tokens"] >= 0).all()
