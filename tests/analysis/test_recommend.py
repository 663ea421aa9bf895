"""The recommendation on hand-built per-turn results whose answer is known."""

from __future__ import annotations

import pandas as pd
import pytest

from ctxlab.analysis.recommend import frontier, policies, recommend, session_rows

REF = "o200k_base"


def call(label: str, seq: int, unit: int, *, sent: int, kept: int, total: int = 10, fits: bool = True,
         orphans: int = 0, counter: str = "chars4", reference: str = REF, refetch: int = 0) -> dict:
    """One per-turn unit of the `results` view, measured with `reference`: `kept` of `total`
    needed strings (and as many regex facts), `refetch` tokens to get the others back."""
    return {"label": label, "counter": counter, "window": 8000, "mode": "per-turn", "dataset": "d", "seq": seq,
            "unit": unit, "turn": unit, "reference": reference, "status": "ok", "reference_tokens_before": 20_000,
            "reference_tokens_after": sent, "fits_reference": fits, "facts_kept": kept, "facts_total": total,
            "needed_kept": kept, "needed_total": total, "needed_kept_in_context": kept // 2,
            "needed_regex_kept": kept // 2, "needed_regex_total": total // 2, "refetch_tokens": refetch,
            "orphan_calls": 0, "orphan_results": orphans}


def session(label: str, seq: int, *, sent: int, kept: int, **kw) -> list[dict]:
    return [call(label, seq, u, sent=sent, kept=kept, **kw) for u in range(3)]


def results(*groups: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([row for g in groups for row in g])


def test_session_rows_sum_what_is_sent_and_pool_needed_strings_per_session():
    df = results(session("a", 0, sent=100, kept=5, refetch=7), session("a", 1, sent=300, kept=10),
                 [call("a", 0, 9, sent=999, kept=0, reference="cl100k_base")])  # another reference: ignored
    rows = session_rows(df, REF).set_index("seq")
    assert rows.loc[0, "tokens_sent"] == 300 and rows.loc[1, "tokens_sent"] == 900
    assert (rows.loc[0, "needed_kept"], rows.loc[0, "needed_total"], rows.loc[0, "refetch_tokens"]) == (15, 30, 21)
    assert rows["calls"].tolist() == [3, 3]


def test_frontier_pools_needed_recall_adds_refetch_and_counts_rejected_calls():
    df = results(session("lean", 0, sent=100, kept=4, refetch=50), session("lean", 1, sent=100, kept=6),
                 session("rich", 0, sent=500, kept=9), session("rich", 1, sent=500, kept=9, orphans=1),
                 session("mid", 0, sent=300, kept=3), session("mid", 1, sent=300, kept=3))
    front = frontier(df, REF).set_index("label")
    assert front.loc["lean", "needed_recall"] == pytest.approx(0.5)
    assert front.loc["lean", "needed_low"] < 0.5 < front.loc["lean", "needed_high"]  # sessions differ
    assert front.loc["lean", "in_context_recall"] == pytest.approx(0.25)
    assert front.loc["lean", "fact_recall"] == pytest.approx(0.5)  # regex fact recall: a secondary column
    assert front.loc["rich", "orphan_rate"] == pytest.approx(0.5) and front.loc["rich", "rejected_rate"] == 0.5
    assert front.loc["lean", "tokens_sent"] == 300 and front.loc["lean", "effective_tokens"] == 300 + 75
    # mid sends more than lean and keeps less: dominated.
    assert front["on_front"].to_dict() == {"lean": True, "mid": False, "rich": True}


def test_paired_ties_and_the_cheapest_of_the_tied_wins():
    df = results(session("cheap", 0, sent=100, kept=5), session("cheap", 1, sent=100, kept=5),
                 session("good", 0, sent=400, kept=9), session("good", 1, sent=400, kept=8),
                 session("good_twin", 0, sent=300, kept=8), session("good_twin", 1, sent=300, kept=10),
                 session("best_but_broken", 0, sent=500, kept=10, orphans=1),  # a provider 400 on every call
                 session("cheap_but_broken", 0, sent=50, kept=9, orphans=1),  # cheaper, and no choice either
                 session("noop", 0, sent=2000, kept=10, fits=False))
    found = policies(df, REF)
    front, choice = found.front, found.verdict
    # good_twin keeps the most (0.9); zero is inside the paired interval of its difference with good
    # (0.85: one session each way); good_twin is also cheaper: it wins the tie
    assert choice is not None and choice.run.label == "good_twin" and choice.run.tied == ("good",)
    assert "It ties with good (zero inside" in choice.evidence and "cheapest of the tied" in choice.evidence
    assert "best_but_broken keeps more" in choice.evidence and "The best cheaper policy, cheap," in choice.evidence
    assert "Without compression (noop)" in choice.evidence and "regex fact recall" in choice.evidence
    # with good made the cheapest, the tie goes to it, and the paragraph says the best is another
    cheaper = front.assign(effective_tokens=front["effective_tokens"].where(front["label"] != "good", 1.0))
    again = recommend(cheaper, found.sessions)
    assert again is not None and again.run.label == "good" and "good_twin keeps the most" in again.evidence


def test_each_finding_is_named_once_when_a_policy_ran_with_two_counters():
    df = results(session("best", 0, sent=100, kept=8), session("rich", 0, sent=500, kept=10, fits=False),
                 session("rich", 0, sent=500, kept=10, fits=False, counter="o200k_base"))
    choice = policies(df, REF).verdict
    assert choice is not None and choice.evidence.count("rich keeps more") == 1


def test_dollars_decide_a_tie_when_the_front_has_them():
    df = results(session("a", 0, sent=100, kept=9), session("b", 0, sent=200, kept=9))
    costs = pd.DataFrame([{"label": "a", "counter": "chars4", "window": 8000, "dataset": "d", "seq": 0, "cost_usd": 2.0},
                          {"label": "b", "counter": "chars4", "window": 8000, "dataset": "d", "seq": 0, "cost_usd": 1.0}])
    choice = policies(df, REF, costs, input_price=1e-6).verdict
    assert choice is not None and choice.run.label == "b" and "dollars" in choice.evidence


def test_when_every_policy_is_rejected_somewhere_the_fewest_rejections_win():
    df = results(session("a", 0, sent=100, kept=9, fits=False), [call("b", 0, 0, sent=100, kept=5, fits=False),
                                                                  call("b", 0, 1, sent=100, kept=5)])
    choice = policies(df, REF).verdict
    assert choice is not None and choice.run.label == "b" and "fewest" in choice.evidence


def test_no_results_no_recommendation():
    assert policies(results(session("noop", 0, sent=1, kept=1)), REF).verdict is None
    assert frontier(pd.DataFrame([call("a", 0, 0, sent=1, kept=1)]).assign(mode="final"), REF).empty


def test_when_every_policy_is_rejected_somewhere_a_call_of_noise_does_not_outweigh_recall():
    """tight rejects 1 call of 30, roomy 2 (tied by the paired rule over sessions): roomy keeps
    clearly more, so it runs; bad rejects every call and does not compete, though it keeps all."""
    def policy(label: str, kept: int, sent: int, over: set[int]) -> list[dict]:
        return [call(label, seq, u, sent=sent, kept=kept, fits=not (u == 0 and seq in over))
                for seq in range(10) for u in range(3)]

    df = results(policy("tight", 5, 100, {0}), policy("roomy", 9, 200, {0, 1}),
                 [call("bad", seq, u, sent=50, kept=10, orphans=1) for seq in range(10) for u in range(3)])
    v = policies(df, REF).verdict
    assert v is not None and set(v.competitors) == {"roomy", "tight"} and v.competing == 2
    assert v.rejected == pytest.approx(1 / 30) and v.run.label == "roomy"
    assert "the fewest 3.3% of calls, and this one's 6.7% ties with that" in v.evidence
    assert "bad keeps more (100.0%; 100.0% orphaned), but a provider would reject those calls" in v.evidence
