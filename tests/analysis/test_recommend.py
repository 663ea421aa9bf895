"""The recommendation on hand-built per-turn results whose answer is known."""

from __future__ import annotations

import pandas as pd
import pytest

from ctxlab.analysis.recommend import frontier, recommend, session_rows

REF = "o200k_base"


def call(label: str, seq: int, unit: int, *, sent: int, kept: int, total: int = 10, fits: bool = True,
         orphans: int = 0, counter: str = "chars4", reference: str = REF) -> dict:
    """One per-turn unit of the `results` view, measured with `reference`."""
    return {"label": label, "counter": counter, "budget": 8000, "mode": "per-turn", "dataset": "d", "seq": seq,
            "unit": unit, "reference": reference, "status": "ok", "reference_tokens_before": 20_000,
            "reference_tokens_after": sent, "fits_reference": fits, "facts_kept": kept, "facts_total": total,
            "orphan_calls": 0, "orphan_results": orphans}


def session(label: str, seq: int, *, sent: int, kept: int, **kw) -> list[dict]:
    return [call(label, seq, u, sent=sent, kept=kept, **kw) for u in range(3)]


def results(*groups: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([row for g in groups for row in g])


def test_session_rows_sum_what_is_sent_and_pool_facts_per_session():
    df = results(session("a", 0, sent=100, kept=5), session("a", 1, sent=300, kept=10),
                 [call("a", 0, 9, sent=999, kept=0, reference="cl100k_base")])  # another reference: ignored
    rows = session_rows(df, REF).set_index("seq")
    assert rows.loc[0, "tokens_sent"] == 300 and rows.loc[1, "tokens_sent"] == 900
    assert (rows.loc[0, "facts_kept"], rows.loc[0, "facts_total"]) == (15, 30)
    assert rows["calls"].tolist() == [3, 3]


def test_frontier_pools_recall_and_counts_rejected_calls():
    df = results(session("lean", 0, sent=100, kept=4), session("lean", 1, sent=100, kept=6),
                 session("rich", 0, sent=500, kept=9), session("rich", 1, sent=500, kept=9, orphans=1),
                 session("mid", 0, sent=300, kept=3), session("mid", 1, sent=300, kept=3))
    front = frontier(df, REF).set_index("label")
    assert front.loc["lean", "fact_recall"] == pytest.approx(0.5)
    assert front.loc["rich", "orphan_rate"] == pytest.approx(0.5)
    assert front.loc["lean", "tokens_sent"] == 300 and front.loc["rich", "tokens_sent"] == 1500
    # mid sends more than lean and keeps less: dominated.
    assert front["on_front"].to_dict() == {"lean": True, "mid": False, "rich": True}


def test_recommend_prefers_recall_among_valid_requests_then_fewer_tokens():
    df = results(session("cheap", 0, sent=100, kept=5), session("good", 0, sent=400, kept=9),
                 session("good_twin", 0, sent=600, kept=9),                  # same recall, costlier
                 session("best_but_broken", 0, sent=500, kept=10, orphans=1),  # a provider 400 on every call
                 session("noop", 0, sent=2000, kept=10, fits=False))
    choice = recommend(frontier(df, REF))
    assert choice is not None and choice.label == "good"
    assert "best_but_broken keeps more" in choice.evidence and "cheap" in choice.evidence
    assert "Without compression (noop)" in choice.evidence


def test_when_every_policy_is_rejected_somewhere_the_fewest_rejections_win():
    df = results(session("a", 0, sent=100, kept=9, fits=False), [call("b", 0, 0, sent=100, kept=5, fits=False),
                                                                  call("b", 0, 1, sent=100, kept=5)])
    choice = recommend(frontier(df, REF))
    assert choice is not None and choice.label == "b" and "fewest" in choice.evidence


def test_no_results_no_recommendation():
    assert recommend(frontier(results(session("noop", 0, sent=1, kept=1)), REF)) is None
    assert frontier(pd.DataFrame([call("a", 0, 0, sent=1, kept=1)]).assign(mode="final"), REF).empty
