"""`agreement_table` on hand-made rows: pooled rates with intervals over sessions, failed calls left
out of the rates, the comparison with the full history, usage and cost."""

from __future__ import annotations

import pandas as pd
import pytest

from ctxlab.analysis.agreement import agreement_table


def row(label: str, seq: int, call: int, name: str | None, match: bool | None, overlap: float | None = None,
        error: str | None = None, cached: bool = False) -> dict:
    return {"label": label, "counter": "o200k_base", "dataset": "d", "seq": seq, "call": call,
            "proposed_name": name, "name_match": match, "text_answer": None if error else name is None,
            "arg_overlap": overlap if overlap is not None else (None if error else float(bool(match))),
            "arg_exact": None if error else float(bool(match)), "error": error, "tokens_sent": 1000.0,
            "cached": cached, "input_tokens": 100, "output_tokens": 10, "cost_usd": 0.001}


ROWS = pd.DataFrame([
    row("noop", 0, 2, "read", True), row("noop", 0, 4, "edit", True),
    row("noop", 1, 2, "read", True), row("noop", 1, 4, "grep", False, cached=True),
    row("noop", 2, 2, "read", True), row("noop", 2, 4, "read", True),
    row("trim", 0, 2, "read", True), row("trim", 0, 4, None, False),  # a text answer
    row("trim", 1, 2, "bash", False, overlap=0.5), row("trim", 1, 4, "grep", False),
    row("trim", 2, 2, None, None, error="RateLimitError (429)"), row("trim", 2, 4, "read", True),
])


def test_rates_are_pooled_over_answered_calls_best_first():
    table = agreement_table(ROWS).set_index("label")
    assert list(table.index) == ["noop", "trim"]
    noop, trim = table.loc["noop"], table.loc["trim"]
    assert (noop.sessions, noop.calls, noop.errors) == (3, 6, 0)
    assert noop.name_agreement == pytest.approx(5 / 6)
    assert (trim.calls, trim.errors) == (6, 1)
    assert trim.name_agreement == pytest.approx(2 / 5) and trim.text_answers == pytest.approx(1 / 5)
    assert trim.arg_overlap == pytest.approx((1 + 0 + 0.5 + 0 + 1) / 5)


def test_intervals_resample_sessions_and_hold_the_mean():
    table = agreement_table(ROWS)
    for _, r in table.iterrows():
        assert r.name_low <= r.name_agreement <= r.name_high
        assert r.overlap_low <= r.arg_overlap <= r.overlap_high
    trim = table.set_index("label").loc["trim"]
    assert trim.name_low < trim.name_high  # three sessions that disagree: a real interval


def test_same_tool_as_with_the_full_history():
    table = agreement_table(ROWS).set_index("label")
    # trim vs noop at the 5 answered calls: read=read, text vs edit, bash vs read, grep=grep, read=read
    assert table.loc["trim", "same_as_baseline"] == pytest.approx(3 / 5)
    assert table.loc["noop", "same_as_baseline"] == 1.0
    assert agreement_table(ROWS[ROWS["label"] == "trim"])["same_as_baseline"].isna().all()


def test_usage_counts_the_calls_made_and_what_they_cost():
    table = agreement_table(ROWS).set_index("label")
    assert table.loc["noop", "model_calls"] == 5 and table.loc["noop", "cost_usd"] == pytest.approx(0.006)
    assert table.loc["trim", "input_tokens"] == 600


def test_no_rows_no_table():
    assert agreement_table(ROWS.iloc[:0]).empty
