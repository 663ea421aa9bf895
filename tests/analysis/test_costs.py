"""Session costs on hand-built frames: per variant, the cheapest per dataset and window, one session's
running totals."""

from __future__ import annotations

import pandas as pd
import pytest

from ctxlab.analysis.costs import cheapest, cumulative, variant_costs


def session(label: str, seq: int, cost: float, *, window: int = 8000, model: str = "gpt-5", read: int = 600,
            write: int = 0) -> dict:
    return {"dataset": "d", "seq": seq, "conversation_id": f"c{seq}", "label": label, "counter": "o200k_base",
            "window": window, "price_model": model, "calls": 4, "prompt_tokens": 1000, "input_tokens": 1000 - read - write,
            "cache_read_tokens": read, "cache_write_tokens": write, "output_tokens": 50, "summarizer_cost_usd": 0.0,
            "cost_usd": cost}


def test_variant_costs_average_sessions_and_the_cache_read_share():
    table = variant_costs(pd.DataFrame([session("a", 0, 0.10), session("a", 1, 0.30, read=200)]))
    row = table.iloc[0]
    assert (row["sessions"], row["cost_usd"], row["cache_read_share"]) == (2, pytest.approx(0.2), pytest.approx(0.4))


def test_cheapest_per_dataset_model_and_window_with_ties_and_the_baseline():
    # trim costs the same as mask on average, dearer in some sessions and cheaper in others: a tie;
    # sum costs 0.1% more in every session: not a tie, though within 0.5% of the cheapest
    mask, trim = [0.80, 0.60, 1.00, 0.70], [0.85, 0.55, 1.04, 0.67]
    frame = pd.DataFrame([row for s in range(4) for row in (
        session("noop", s, 1.50), session("mask", s, mask[s]), session("trim", s, trim[s]),
        session("sum", s, mask[s] * 1.001))] + [session("noop", 0, 0.50, window=2000),
                                                session("sum", 0, 0.50, window=2000)])
    rows = cheapest(frame).set_index("window")
    assert rows.loc[8000, "label"] == "mask" and rows.loc[8000, "tied"] == 1  # trim, by the paired rule
    assert rows.loc[8000, "saving"] == pytest.approx(1 - 0.775 / 1.5)
    assert rows.loc[2000, "label"] == "sum" and rows.loc[2000, "saving"] == pytest.approx(0.0)


def test_cumulative_runs_per_variant_in_call_order():
    units = pd.DataFrame([{"label": lab, "counter": "c", "window": 1, "unit": u, "cost_usd": 0.1 * (u + 1),
                           "cache_read_tokens": 10, "cache_write_tokens": w}
                          for lab, w in (("a", 5), ("b", 0)) for u in (2, 0, 1)])
    out = cumulative(units)
    a = out[out["label"] == "a"]
    assert a["unit"].tolist() == [0, 1, 2] and a["call"].tolist() == [1, 2, 3]
    assert a["cost_cum"].tolist() == pytest.approx([0.1, 0.3, 0.6]) and a["write_cum"].tolist() == [5, 10, 15]
