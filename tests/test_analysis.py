"""Pure analysis functions on small hand-made frames, plus the figures and message fates built on them."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from ctxlab.analysis import explain
from ctxlab.analysis import plots as P
from ctxlab.analysis import tables as A
from ctxlab.messages import Conversation
from ctxlab.strategies import get_strategy
from tests.builders import Convo, cjk_text, huge_text


def unit(**kw) -> dict:
    """One row of the `results` view with harmless defaults."""
    row = {"label": "s", "strategy": "s", "counter": "o200k_base", "window": 1000, "mode": "final", "turn": -1,
           "dataset": "d", "seq": 0, "unit": 0, "conversation_id": "c0", "messages_in": 10, "tokens_before": 2000,
           "tokens_after": 900, "retained_ratio": 0.45, "fits": True, "reference": "o200k_base",
           "reference_tokens_after": 900, "fits_reference": True, "tool_pairs_intact": True, "orphan_calls": 0,
           "orphan_results": 0, "fact_recall": 0.5, "facts_total": 4, "has_summary": False, "summary_tokens": None,
           "messages_kept": 5, "messages_truncated": 0, "messages_dropped": 5, "messages_added": 0,
           "llm_calls": 0, "llm_input_tokens": 0, "llm_output_tokens": 0, "llm_cost_usd": 0.0, "latency_ms": 1.0,
           "status": "ok"}
    row.update(kw)
    return row


def frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["summary_tokens"] = df["summary_tokens"].astype("Int64")
    return df


def test_per_unit_keeps_one_reference():
    df = frame([unit(reference="o200k_base"), unit(reference="cl100k_base"), unit(seq=1, reference="o200k_base"),
                unit(seq=1, reference="cl100k_base")])
    assert len(A.per_unit(df)) == 2
    assert set(A.per_unit(df)["reference"]) == {"cl100k_base"}


def test_bootstrap_ci_contains_the_mean_and_is_reproducible():
    rng = np.random.default_rng(1)
    sums, counts = rng.uniform(0, 10, 40), np.full(40, 10)
    mean, low, high = A.bootstrap_mean_ci(sums, counts, seed=3)
    assert low < mean < high
    assert mean == pytest.approx(sums.sum() / 400)
    assert A.bootstrap_mean_ci(sums, counts, seed=3) == (mean, low, high)


def test_bootstrap_ci_edge_cases():
    assert A.bootstrap_mean_ci([3.0], [2]) == (1.5, 1.5, 1.5)
    assert all(np.isnan(v) for v in A.bootstrap_mean_ci([], []))
    # Many clusters: the normal approximation, still centred on the mean.
    sums = np.arange(5000, dtype=float)
    mean, low, high = A.bootstrap_mean_ci(sums, np.ones(5000))
    assert low < mean < high and mean == pytest.approx(2499.5)


def test_bootstrap_ci_leaves_out_clusters_with_no_values():
    # Two sessions with every needed string kept, eight with none needed: the recall is 100%, and
    # no resample of only the empty sessions may drag the interval down to 0.
    sums, counts = np.array([4.0, 6.0, *[0.0] * 8]), np.array([4, 6, *[0] * 8])
    assert A.bootstrap_mean_ci(sums, counts, seed=1) == (1.0, 1.0, 1.0)
    assert all(np.isnan(v) for v in A.bootstrap_mean_ci([0.0, 0.0], [0, 0]))


def test_retained_ci_resamples_conversations_not_units():
    # One conversation with 50 identical per-turn units and one with 1: two clusters, not 51 points.
    rows = [unit(seq=0, unit=u, mode="per-turn", retained_ratio=0.2) for u in range(50)]
    rows.append(unit(seq=1, unit=0, mode="per-turn", retained_ratio=1.0))
    ci = A.retained_ci(frame(rows))
    assert ci.loc[0, "conversations"] == 2 and ci.loc[0, "units"] == 51
    assert ci.loc[0, "mean"] == pytest.approx((50 * 0.2 + 1.0) / 51)
    assert ci.loc[0, "high"] - ci.loc[0, "low"] > 0.5  # two clusters: a wide interval


def test_fit_rates_flags_believed_fits_that_overflow():
    df = frame([unit(seq=0, fits=True, fits_reference=False), unit(seq=1, fits=True, fits_reference=True),
                unit(seq=2, fits=False, fits_reference=False), unit(seq=3, status="error", fits=None,
                                                                  fits_reference=None)])
    row = A.fit_rates(df).iloc[0]
    assert row["units"] == 3
    assert row["believed_fit"] == pytest.approx(2 / 3)
    assert row["real_fit"] == pytest.approx(1 / 3)
    assert row["overflow_rate"] == pytest.approx(2 / 3)
    assert row["false_fit"] == pytest.approx(1 / 3)


def test_headline_has_one_real_fit_column_per_reference():
    rows = [unit(seq=s, reference=r, fits_reference=(r == "o200k_base")) for s in range(3)
            for r in ("o200k_base", "cl100k_base")]
    table = A.headline(frame(rows))
    assert len(table) == 1
    assert table.loc[0, "real_fit_o200k_base"] == 1.0 and table.loc[0, "real_fit_cl100k_base"] == 0.0
    assert table.loc[0, "units"] == 3


def test_pareto_front():
    x = [0.2, 0.3, 0.3, 0.5, 0.9, 0.6]
    y = [0.4, 0.6, 0.5, 0.6, 0.95, 0.9]
    assert A.pareto_front(x, y).tolist() == [True, True, False, False, True, True]


def test_smallest_window_meets_recall_and_overflow():
    rows = []
    for window, recall, overflow in ((1000, 0.80, False), (2000, 0.96, True), (4000, 0.97, False),
                                     (8000, 0.99, False)):
        rows += [unit(seq=s, window=window, fact_recall=recall, fits_reference=not (overflow and s == 0))
                 for s in range(4)]
    df = frame(rows)
    strict = A.smallest_window(df, target_recall=0.95, max_overflow=0.0).iloc[0]
    assert strict["window"] == 4000
    loose = A.smallest_window(df, target_recall=0.95, max_overflow=0.25).iloc[0]
    assert loose["window"] == 2000
    none = A.smallest_window(df, target_recall=0.999).iloc[0]
    assert pd.isna(none["window"]) and "no window tried" in none["verdict"]


def test_smallest_window_any_reference_overflow_counts():
    rows = [unit(window=1000, reference="o200k_base", fits_reference=True),
            unit(window=1000, reference="cl100k_base", fits_reference=False),
            unit(window=2000, reference="o200k_base"), unit(window=2000, reference="cl100k_base")]
    df = frame(rows)
    assert A.smallest_window(df, target_recall=0.5).iloc[0]["window"] == 2000
    assert A.smallest_window(df, target_recall=0.5, reference="o200k_base").iloc[0]["window"] == 1000


def test_recommend_variant_prefers_meeting_the_target_and_never_noop():
    chosen = pd.DataFrame({"label": ["noop", "a", "b"], "counter": ["x", "x", "x"], "dataset": ["d"] * 3,
                           "window": pd.array([1000, pd.NA, 4000], dtype="Int64"), "fact_recall": [1.0, 0.99, 0.96]})
    assert A.recommend_variant(chosen) == ("b", "x")


def test_near_window_only_counts_results_packed_close_to_the_window():
    df = frame([unit(seq=0, counter="chars4", tokens_after=950, reference_tokens_after=1100, fits_reference=False),
                unit(seq=1, counter="chars4", tokens_after=980, reference_tokens_after=990),
                unit(seq=2, counter="chars4", tokens_after=500, reference_tokens_after=700)])
    row = A.near_window(df).iloc[0]
    assert row["units"] == 2
    assert row["underestimate_rate"] == pytest.approx(1.0)
    assert row["overflow_rate"] == pytest.approx(0.5)


def per_turn_rows() -> list[dict]:
    """A 10-turn session whose history grows and is compacted at turns 4 and 7."""
    rows = []
    for t in range(10):
        dropped = 0 if t < 4 else (3 if t < 7 else 6)
        rows.append(unit(mode="per-turn", turn=t, unit=t, messages_in=t + 1, messages_dropped=dropped,
                         fact_recall=1.0 if t < 4 else (0.6 if t < 7 else 0.3)))
    return rows


def test_drift_by_progress_bins_along_the_session():
    drift = A.drift_by_progress(frame(per_turn_rows()))
    assert drift["progress_pct"].tolist() == list(range(10, 101, 10))
    assert drift["fact_recall"].iloc[0] == 1.0 and drift["fact_recall"].iloc[-1] == 0.3


def test_drift_by_cycle_counts_compactions():
    cycles = A.drift_by_cycle(frame(per_turn_rows()))
    assert cycles["cycle"].tolist() == [1, 2]
    assert cycles["fact_recall"].tolist() == [0.6, 0.3]


def test_drift_is_empty_without_per_turn_rows():
    assert A.drift_by_progress(frame([unit()])).empty
    assert A.drift_by_cycle(frame([unit()])).empty


def test_estimator_table_and_matrix():
    rows = pd.DataFrame({"counter": ["chars4", "chars4", "calibrated", "calibrated"],
                         "reference": ["o200k_base"] * 4, "content_kind": ["cjk", "prose", "cjk", "prose"],
                         "estimated": [30, 110, 98, 100], "actual": [100, 100, 100, 100]})
    table = A.estimator_table(rows)
    chars4 = table[table["counter"] == "chars4"].iloc[0]
    assert chars4["mean_signed_error_pct"] == pytest.approx(-30.0)
    assert chars4["underestimate_share"] == pytest.approx(0.5)
    matrix = A.estimator_matrix(rows)
    assert matrix.loc["chars4", "cjk"] == pytest.approx(-70.0)


def test_summary_quality_includes_probe_scores_when_present():
    summaries = pd.DataFrame({"label": ["c", "c"], "counter": ["o"] * 2, "window": [1000] * 2, "mode": ["final"] * 2,
                              "rougeL": [0.2, 0.4], "probe_recall": [3.0, 5.0]})
    quality = A.summary_quality(summaries)
    assert quality.loc[0, "summaries"] == 2
    assert quality.loc[0, "rougeL"] == pytest.approx(0.3) and quality.loc[0, "probe_recall"] == 4.0
    assert A.probe_columns(summaries) == ["probe_recall"]


def test_cost_table_and_pick_mode():
    df = frame([unit(llm_calls=2, llm_cost_usd=0.01), unit(seq=1, mode="per-turn")])
    cost = A.cost_table(df)
    assert cost.loc[cost["mode"] == "final", "llm_cost_usd"].iloc[0] == pytest.approx(0.01)
    assert A.pick_mode(df) == "final"
    assert A.pick_mode(df[df["mode"] == "per-turn"]) == "per-turn"


# ---- figures ----------------------------------------------------------------------------------


def test_every_figure_builds_without_pyplot_and_from_empty_frames():
    import matplotlib.pyplot as plt

    df = frame([unit(seq=s, window=b, reference=r, retained_ratio=0.3 + b / 10000)
                for s in range(3) for b in (1000, 2000) for r in ("o200k_base", "cl100k_base")]
               + per_turn_rows())
    est = pd.DataFrame({"counter": ["chars4"] * 2, "reference": ["o200k_base"] * 2, "content_kind": ["cjk", "json"],
                        "language": ["zh", "en"], "estimated": [30, 80], "actual": [100, 100],
                        "error_pct": [-70.0, -20.0]})
    before = plt.get_fignums()
    figures = [
        P.retained_ratio_curves(A.retained_ci(df)), P.overflow_heatmap(A.fit_rates(df)),
        P.tool_integrity_heatmap(A.tool_integrity(df)), P.pareto(A.pareto_points(df)),
        P.estimator_error_box(est), P.estimator_heatmap(A.estimator_matrix(est), title="t", xlabel="x"),
        P.near_window_bars(A.near_window(df)), P.drift_progress(A.drift_by_progress(df)),
        P.drift_cycles(A.drift_by_cycle(df), min_conversations=1), P.cost_latency(A.cost_table(df)),
        P.window_tuning(A.window_grid(df), target_recall=0.5, max_overflow=0.0, chosen=A.smallest_window(df)),
        P.summary_quality(pd.DataFrame()), P.retained_ratio_curves(pd.DataFrame()),
        P.drift_progress(pd.DataFrame()),
    ]
    for fig in figures:
        assert isinstance(fig, Figure)
        assert P.png(fig).startswith(b"\x89PNG")
    assert plt.get_fignums() == before


def test_a_legend_of_long_labels_stays_inside_its_figure():
    """Four columns of labels as long as the demo's ran past both edges of the PNG and were cut off."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    labels = [f"langchain_summarization_{i}" for i in range(30)]
    df = frame([unit(label=label, counter="langchain_approx", seq=s, window=b, retained_ratio=0.5)
                for label in labels for s in range(2) for b in (1000, 2000)])
    fig = P.retained_ratio_curves(A.retained_ci(df))
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    (legend,) = fig.legends
    box, page = legend.get_window_extent(renderer), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0, (box, page)
    assert len(legend.get_texts()) == len(labels)


def test_cjk_labels_render_without_missing_glyphs():
    if len(P.font_families()) < 2:
        pytest.skip("no CJK font installed (make browser-deps installs fonts-noto-cjk)")
    df = frame([unit(label="压缩策略", seq=s, window=b) for s in range(2) for b in (1000, 2000)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        P.png(P.retained_ratio_curves(A.retained_ci(df)))


# ---- message fates ----------------------------------------------------------------------------


def test_message_fates_account_for_every_message_in_order():
    messages = (Convo().system().user("Fix the test.").tools(("read_file", huge_text(60_000)))
                .assistant("Fixed.").user(cjk_text(50)).build())
    result = get_strategy("window_guard").compress(messages, 3000, counter="o200k_base")
    fates = explain.message_fates(messages, result)
    originals = fates[fates["position"] >= 0]
    assert originals["position"].tolist() == list(range(len(messages)))
    assert "truncated" in set(fates["fate"])
    truncated = fates[fates["fate"] == "truncated"].iloc[0]
    assert truncated["kept_tokens"] < truncated["tokens"]
    counts = explain.fate_counts(fates)
    assert sum(counts[f] for f in ("kept", "truncated", "dropped")) == len(messages)


def test_message_fates_place_a_summary_after_what_it_replaced():
    convo = Convo().system()
    for i in range(12):
        convo = convo.user(f"Question {i}: " + "detail " * 200).assistant(f"Answer {i}: " + "reply " * 200)
    messages = convo.user("And now?").build()
    result = get_strategy("compaction").compress(messages, 2000, counter="o200k_base")
    fates = explain.message_fates(messages, result)
    summary_at = fates.index[fates["fate"] == "summary"][0]
    assert (fates.loc[:summary_at - 1, "fate"] == "dropped").sum() > 0
    assert fates.loc[summary_at + 1:, "fate"].isin(["kept", "truncated"]).all()


def test_rerun_from_a_stored_spec_reproduces_the_strategy():
    messages = Convo().system().user("hello " * 400).assistant("ok").user("next").build()
    strategy = get_strategy("sliding_window", max_chars_per_message=300)
    direct = strategy.compress(messages, 500, counter="o200k_base")

    stored = Conversation("c", tuple(messages))
    again = explain.rerun(stored, strategy.spec.to_json(), window=500, counter="o200k_base")
    assert again.tokens_after == direct.tokens_after and again.dropped_ids == direct.dropped_ids
    changed = explain.rerun(stored, strategy.spec.to_json(), window=500, params={"max_chars_per_message": 100})
    assert changed.tokens_after < direct.tokens_after


def test_parse_param():
    assert explain.parse_param("", None) is None
    assert explain.parse_param('["a", "b"]', ("x",)) == ("a", "b")
    assert explain.parse_param("12", None) == 12
    assert explain.parse_param("gpt-4o", None) == "gpt-4o"
