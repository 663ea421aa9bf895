"""Pure DataFrame functions shared by the notebooks, the dashboard and the HTML report.

Inputs are the frames of `ctxlab.analysis.frames` (rows of the `results` view: one per unit and reference
tokenizer; rows of `estimator_errors`; `ctxlab.store.summaries`). Nothing here touches a
database, a file or a UI, so every number on a chart can be recomputed from those frames.

Uncertainty is bootstrapped over conversations, not units: per-turn replay yields dozens of
strongly correlated units per conversation, and resampling units would make intervals look far
tighter than the data supports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ctxlab.metrics.estimator import error_table

KEYS = ("label", "counter", "window", "mode")
CONVERSATION = ("dataset", "seq")
N_BOOT = 1000
# Above this many conversations the bootstrap's index matrix grows large and the normal
# approximation of the mean is already accurate.
_BOOT_MAX_CLUSTERS = 4000
_EPS = 1e-12


def per_unit(results: pd.DataFrame) -> pd.DataFrame:
    """One row per unit: the rows of one reference tokenizer (each unit has one per reference)."""
    if results.empty or "reference" not in results:
        return results
    refs = results["reference"].dropna().unique()
    if len(refs) == 0:
        return results
    return results[results["reference"] == sorted(refs)[0]]


def variant(df: pd.DataFrame) -> pd.Series:
    """A readable name for a strategy variant: its label and the counter it trusted."""
    return df["label"].astype(str) + " [" + df["counter"].astype(str) + "]"


def bootstrap_mean_ci(sums: np.ndarray, counts: np.ndarray, *, n_boot: int = N_BOOT, level: float = 0.95,
                      seed: int = 0) -> tuple[float, float, float]:
    """Mean of a clustered sample and its percentile bootstrap interval, resampling clusters.

    Args:
        sums: per cluster (conversation), the sum of the values.
        counts: per cluster, how many values.
        n_boot: bootstrap resamples.
        level: coverage of the interval.
        seed: random seed (intervals are reproducible).

    Returns:
        (mean, low, high); low == high == mean for a single cluster, all NaN for none. Clusters
        with no values (a session with no needed string) say nothing about the mean and are left
        out: resampled, they would make resamples of nothing that read as 0.
    """
    sums, counts = np.asarray(sums, float), np.asarray(counts, float)
    sums, counts = sums[counts > 0], counts[counts > 0]
    k = len(sums)
    if k == 0:
        return (np.nan, np.nan, np.nan)
    mean = sums.sum() / counts.sum()
    if k == 1:
        return (mean, mean, mean)
    alpha = (1 - level) / 2
    if k > _BOOT_MAX_CLUSTERS:
        means = sums / counts
        half = _z(level) * means.std(ddof=1) / np.sqrt(k)
        return (mean, mean - half, mean + half)
    idx = np.random.default_rng(seed).integers(0, k, size=(n_boot, k))
    boot = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    return (mean, float(low), float(high))


def _z(level: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + level / 2)


def mean_ci(results: pd.DataFrame, value: str = "retained_ratio", by: Sequence[str] = KEYS, *,
            n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Mean of `value` per group with a bootstrap interval over conversations.

    Returns:
        One row per group: the `by` columns, ``units``, ``conversations``, ``mean``, ``low``, ``high``.
    """
    units = per_unit(results).dropna(subset=[value])
    columns = [*by, "units", "conversations", "mean", "low", "high"]
    if units.empty:
        return pd.DataFrame(columns=columns)
    clusters = (units.groupby([*by, *CONVERSATION], observed=True, sort=True)[value]
                .agg(["sum", "count"]).reset_index())
    rows = []
    for key, group in clusters.groupby(list(by), observed=True, sort=True):
        mean, low, high = bootstrap_mean_ci(group["sum"].to_numpy(), group["count"].to_numpy(),
                                            n_boot=n_boot, level=level, seed=seed)
        rows.append([*(key if isinstance(key, tuple) else (key,)), int(group["count"].sum()), len(group),
                     mean, low, high])
    return pd.DataFrame(rows, columns=columns)


def retained_ci(results: pd.DataFrame, by: Sequence[str] = KEYS, **kwargs: Any) -> pd.DataFrame:
    """Retained-token ratio (tokens after / before) per strategy x window with its bootstrap CI."""
    return mean_ci(results, "retained_ratio", by, **kwargs)


def fit_rates(results: pd.DataFrame, by: Sequence[str] = KEYS) -> pd.DataFrame:
    """Believed and real fit per group and reference tokenizer.

    Returns:
        The `by` columns, ``reference``, ``units``, ``believed_fit`` (the strategy's own counter
        says it fits), ``real_fit`` (it fits under the reference), ``overflow_rate`` (1 - real
        fit) and ``false_fit`` (believed to fit but overflows: the dangerous case).
    """
    ok = results[results["status"] == "ok"].dropna(subset=["reference", "fits_reference"])
    columns = [*by, "reference", "units", "believed_fit", "real_fit", "overflow_rate", "false_fit"]
    if ok.empty:
        return pd.DataFrame(columns=columns)
    frame = ok.assign(believed=ok["fits"].astype(float), real=ok["fits_reference"].astype(float),
                      false=(ok["fits"] & ~ok["fits_reference"].astype(bool)).astype(float))
    out = (frame.groupby([*by, "reference"], observed=True, sort=True)
           .agg(units=("real", "size"), believed_fit=("believed", "mean"), real_fit=("real", "mean"),
                false_fit=("false", "mean")).reset_index())
    out["overflow_rate"] = 1 - out["real_fit"]
    return out[columns]


def tool_integrity(results: pd.DataFrame, by: Sequence[str] = KEYS) -> pd.DataFrame:
    """Share of units whose tool calls and results stay paired, and orphans per unit."""
    units = per_unit(results)
    units = units[units["status"] == "ok"]
    frame = units.assign(intact=units["tool_pairs_intact"].astype(float),
                         orphans=units["orphan_calls"].fillna(0) + units["orphan_results"].fillna(0))
    return (frame.groupby(list(by), observed=True, sort=True)
            .agg(units=("intact", "size"), tool_integrity=("intact", "mean"), orphans_per_unit=("orphans", "mean"))
            .reset_index())


HEADLINE_COLUMNS = ("units", "conversations", "retained_ratio", "retained_low", "retained_high", "needed_recall",
                    "needed_low", "needed_high", "believed_fit", "errors", "fact_recall", "p50_latency_ms",
                    "tool_integrity", "orphans_per_unit")


def pooled_ci(results: pd.DataFrame, kept: str, total: str, by: Sequence[str] = KEYS) -> pd.DataFrame:
    """A recall pooled per group (sum of `kept` over sum of `total`, one reference's rows) with its
    bootstrap interval over conversations: the `by` columns, ``mean``, ``low``, ``high``."""
    units = per_unit(results)
    columns = [*by, "mean", "low", "high"]
    if units.empty or total not in units:
        return pd.DataFrame(columns=columns)
    sums = (units.assign(k=units[kept].fillna(0), t=units[total].fillna(0))
            .groupby([*by, *CONVERSATION], observed=True, sort=True)[["k", "t"]].sum().reset_index())
    rows = [[*_key(key), *bootstrap_mean_ci(g["k"].to_numpy(), g["t"].to_numpy())]
            for key, g in sums.groupby(list(by), observed=True, sort=True)]
    return pd.DataFrame(rows, columns=columns)


def headline(results: pd.DataFrame, by: Sequence[str] = KEYS, **ci: float) -> pd.DataFrame:
    """The comparison table: per strategy variant x window x mode, retained ratio with its CI,
    needed-context recall pooled with its CI (per-turn units: final mode has no next action to
    grade by), believed and real fit per reference (``real_fit_<reference>``), tool integrity,
    regex fact recall, errors and median latency."""
    if results.empty:
        return pd.DataFrame(columns=[*by, *HEADLINE_COLUMNS])
    units = per_unit(results)
    base = (units.assign(err=(units["status"] != "ok").astype(int), fit=units["fits"].astype(float))
            .groupby(list(by), observed=True, sort=True)
            .agg(units=("err", "size"), errors=("err", "sum"), believed_fit=("fit", "mean"),
                 fact_recall=("fact_recall", "mean"), p50_latency_ms=("latency_ms", "median"))
            .reset_index())
    kept = retained_ci(results, by, **ci).rename(columns={"mean": "retained_ratio", "low": "retained_low",
                                                          "high": "retained_high"})
    out = base.merge(kept.drop(columns=["units"]), on=list(by), how="left")
    needed = pooled_ci(results, "needed_kept", "needed_total", by).rename(
        columns={"mean": "needed_recall", "low": "needed_low", "high": "needed_high"})
    out = out.merge(needed, on=list(by), how="left") if len(needed) else out.assign(
        needed_recall=np.nan, needed_low=np.nan, needed_high=np.nan)
    fits = fit_rates(results, by)
    if not fits.empty:
        wide = fits.pivot_table(index=list(by), columns="reference", values="real_fit", observed=True).reset_index()
        wide.columns = [c if c in by else f"real_fit_{c}" for c in wide.columns]
        out = out.merge(wide, on=list(by), how="left")
    out = out.merge(tool_integrity(results, by).drop(columns=["units"]), on=list(by), how="left")
    first = [*by, "units", "conversations", "retained_ratio", "retained_low", "retained_high", "needed_recall",
             "needed_low", "needed_high", "believed_fit"]
    return out[[c for c in first if c in out] + [c for c in out if c not in first]]


def pareto_front(x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """Mask of the points no other point beats: lower `x` (retained ratio) and higher `y` (recall)."""
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    order = np.lexsort((-ys, xs))
    mask = np.zeros(len(xs), bool)
    best = -np.inf
    for i in order:
        if np.isnan(xs[i]) or np.isnan(ys[i]):
            continue
        if ys[i] > best + _EPS:
            mask[i], best = True, ys[i]
    return mask


def pareto_points(results: pd.DataFrame, by: Sequence[str] = ("label", "counter", "window")) -> pd.DataFrame:
    """Mean retained ratio and fact recall per variant x window, with ``on_front`` marking the
    Pareto frontier (no other point keeps fewer tokens and more facts)."""
    units = per_unit(results)
    units = units[units["status"] == "ok"]
    points = (units.groupby(list(by), observed=True, sort=True)
              .agg(units=("retained_ratio", "size"), retained_ratio=("retained_ratio", "mean"),
                   fact_recall=("fact_recall", "mean"))
              .reset_index().dropna(subset=["retained_ratio", "fact_recall"]))
    points["on_front"] = pareto_front(points["retained_ratio"], points["fact_recall"])
    return points.reset_index(drop=True)


def estimator_table(rows: pd.DataFrame, by: Sequence[str] = ("counter", "reference")) -> pd.DataFrame:
    """Estimator error per group of `estimator_errors` rows: n, mean signed error %, MAPE %,
    p95 |error| % and the underestimate share (negative error: a strategy believes it fits)."""
    columns = [*by, "n", "mean_signed_error_pct", "mape_pct", "p95_abs_error_pct", "underestimate_share"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    return error_table(rows, list(by)).sort_values(list(by)).reset_index(drop=True)[columns]


def estimator_matrix(rows: pd.DataFrame, *, index: str = "counter", columns: str = "content_kind",
                     value: str = "mean_signed_error_pct") -> pd.DataFrame:
    """An `estimator_table` statistic as a matrix (e.g. estimator x content kind) for a heatmap."""
    table = estimator_table(rows, (index, columns))
    if table.empty:
        return pd.DataFrame()
    return table.pivot(index=index, columns=columns, values=value)


def near_window(results: pd.DataFrame, *, band: float = 0.1,
                by: Sequence[str] = ("counter", "reference")) -> pd.DataFrame:
    """How often a result the strategy filled to within `band` of the window really overflows.

    A counter that undercounts is harmless far below the window; it overflows the real window
    exactly when the strategy packs the context close to the limit it believes in.

    Returns:
        The `by` columns, ``units`` (results believed to fit with tokens_after >= (1 - band) x
        window), ``underestimate_rate`` (the reference counts more than the counter),
        ``overflow_rate`` (over the window under the reference) and ``mean_gap_pct`` (reference
        minus counter tokens, % of the counter's).
    """
    ok = results[(results["status"] == "ok") & results["fits"].astype(bool)].dropna(
        subset=["reference", "reference_tokens_after"])
    near = ok[ok["tokens_after"] >= (1 - band) * ok["window"]]
    columns = [*by, "units", "underestimate_rate", "overflow_rate", "mean_gap_pct"]
    if near.empty:
        return pd.DataFrame(columns=columns)
    gap = near["reference_tokens_after"] - near["tokens_after"]
    frame = near.assign(under=(gap > 0).astype(float), over=(~near["fits_reference"].astype(bool)).astype(float),
                        gap_pct=100 * gap / near["tokens_after"].clip(lower=1))
    return (frame.groupby(list(by), observed=True, sort=True)
            .agg(units=("under", "size"), underestimate_rate=("under", "mean"), overflow_rate=("over", "mean"),
                 mean_gap_pct=("gap_pct", "mean"))
            .reset_index()[columns])


def window_grid(results: pd.DataFrame, by: Sequence[str] = ("label", "counter", "dataset", "mode"), *,
                reference: str | None = None) -> pd.DataFrame:
    """Fact recall and real overflow per group and window, the input of `smallest_window`.

    A unit overflows when it exceeds the window under `reference`, or under any reference of the
    run when `reference` is None (the strict reading: it must fit every tokenizer measured).
    """
    ok = results[results["status"] == "ok"]
    if reference is not None:
        ok = ok[ok["reference"] == reference]
    keys = [*by, "window"]
    unit_keys = [*dict.fromkeys([*keys, *CONVERSATION, "unit"])]
    if ok.empty:
        return pd.DataFrame(columns=[*keys, "units", "fact_recall", "overflow_rate"])
    fits = ok["fits_reference"].astype("boolean").fillna(True)
    units = (ok.assign(fit_all=fits).groupby(unit_keys, observed=True, sort=False)
             .agg(fit_all=("fit_all", "min"), fact_recall=("fact_recall", "first")).reset_index())
    units["overflow"] = (~units["fit_all"].astype(bool)).astype(float)
    return (units.groupby(keys, observed=True, sort=True)
            .agg(units=("overflow", "size"), fact_recall=("fact_recall", "mean"), overflow_rate=("overflow", "mean"))
            .reset_index())


def smallest_window(results: pd.DataFrame, *, target_recall: float = 0.95, max_overflow: float = 0.0,
                    by: Sequence[str] = ("label", "counter", "dataset", "mode"),
                    reference: str | None = None) -> pd.DataFrame:
    """The smallest window tried that meets the target, per strategy variant and dataset.

    A window meets the target when mean fact recall >= `target_recall` and the real overflow rate
    <= `max_overflow` (see `window_grid`).

    Returns:
        The `by` columns, ``window`` (NA when no window tried meets it), ``fact_recall`` and
        ``overflow_rate`` at that window (else at the best-recall window), ``windows_tried`` and
        a readable ``verdict``.
    """
    grid = window_grid(results, by, reference=reference)
    columns = [*by, "window", "fact_recall", "overflow_rate", "windows_tried", "verdict"]
    rows = []
    for key, group in grid.groupby(list(by), observed=True, sort=True):
        group = group.sort_values("window")
        meets = group[(group["fact_recall"] >= target_recall - _EPS) & (group["overflow_rate"] <= max_overflow + _EPS)]
        tried = ", ".join(str(int(b)) for b in group["window"])
        if len(meets):
            hit = meets.iloc[0]
            verdict = f"meets the target at {int(hit['window']):,} tokens"
            rows.append([*_key(key), int(hit["window"]), hit["fact_recall"], hit["overflow_rate"], tried, verdict])
        else:
            best = group.sort_values(["fact_recall", "window"], ascending=[False, True], na_position="last").iloc[0]
            verdict = (f"no window tried meets it (best recall {_pct(best['fact_recall'])} at "
                       f"{int(best['window']):,}, overflow {_pct(best['overflow_rate'])})")
            rows.append([*_key(key), pd.NA, best["fact_recall"], best["overflow_rate"], tried, verdict])
    out = pd.DataFrame(rows, columns=columns)
    out["window"] = out["window"].astype("Int64")
    return out


def recommend_variant(chosen: pd.DataFrame) -> tuple[str, str] | None:
    """The (label, counter) to look at first in a `smallest_window` table: the most datasets
    meeting the target, then the smallest windows in total, then the best recall (``noop`` last: it
    never compresses)."""
    if chosen.empty:
        return None
    scored = (chosen.assign(met=chosen["window"].notna(), spend=chosen["window"].astype("Float64").fillna(1e12),
                            noop=chosen["label"] == "noop")
              .groupby(["label", "counter"]).agg(noop=("noop", "first"), met=("met", "sum"), spend=("spend", "sum"),
                                                 recall=("fact_recall", "mean"))
              .reset_index().sort_values(["noop", "met", "spend", "recall"], ascending=[True, False, True, False]))
    top = scored.iloc[0]
    return str(top["label"]), str(top["counter"])


def _key(key: object) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def _pct(value: float) -> str:
    return "n/a" if pd.isna(value) else f"{100 * value:.0f}%"


def per_turn(results: pd.DataFrame) -> pd.DataFrame:
    """The per-turn units (one reference), each with ``progress``: the share of its conversation's
    final history it had seen (the last call of a conversation is at 1.0)."""
    units = per_unit(results)
    units = units[(units["mode"] == "per-turn") & (units["status"] == "ok")]
    if units.empty:
        return units.assign(progress=pd.Series(dtype=float))
    total = units.groupby(["label", "counter", "window", *CONVERSATION], observed=True)["messages_in"].transform("max")
    return units.assign(progress=units["messages_in"] / total.clip(lower=1))


def drift_by_progress(results: pd.DataFrame, *, bins: int = 10,
                      by: Sequence[str] = ("label", "counter", "window")) -> pd.DataFrame:
    """Fact recall and retained ratio along a session, in `bins` slices of its length.

    Per-turn units only; ``progress_pct`` is the upper edge of the slice (10 = the first tenth
    of the conversation's messages). Recall that falls with progress is drift: facts stated
    early are lost as summaries are summarized again.
    """
    units = per_turn(results)
    columns = [*by, "progress_pct", "units", "conversations", "fact_recall", "retained_ratio"]
    if units.empty:
        return pd.DataFrame(columns=columns)
    step = np.ceil(units["progress"] * bins).clip(1, bins) * (100 // bins)
    conv = units["dataset"].astype(str) + "/" + units["seq"].astype(str)
    return (units.assign(progress_pct=step.astype(int), conv=conv)
            .groupby([*by, "progress_pct"], observed=True, sort=True)
            .agg(units=("conv", "size"), conversations=("conv", "nunique"), fact_recall=("fact_recall", "mean"),
                 retained_ratio=("retained_ratio", "mean"))
            .reset_index()[columns])


def drift_by_cycle(results: pd.DataFrame, by: Sequence[str] = ("label", "counter", "window")) -> pd.DataFrame:
    """Fact recall right after the k-th compaction of a session (per-turn units).

    A compaction is a call whose result lost more of the history than the previous call's did
    (more messages dropped or truncated) or that carries a new summary; the store keeps counts,
    not the messages, so this is the count-based reading of `ctxlab.metrics.drift`'s cycles.
    """
    units = per_turn(results)
    columns = [*by, "cycle", "conversations", "fact_recall"]
    if units.empty:
        return pd.DataFrame(columns=columns)
    keys = [*by, *CONVERSATION]
    units = units.sort_values([*keys, "turn"]).assign(
        lost=lambda d: d["messages_dropped"].fillna(0) + d["messages_truncated"].fillna(0),
        summary=lambda d: d["summary_tokens"].astype("Float64").fillna(-1))
    previous = units.groupby(keys, observed=True, sort=False)[["lost", "summary"]].shift()
    grew = units["lost"] > previous["lost"].fillna(0)
    new_summary = units["has_summary"].astype(bool) & (units["summary"] != previous["summary"].fillna(-1))
    units = units.assign(event=(grew | new_summary).astype(int))
    units["cycle"] = units.groupby(keys, observed=True, sort=False)["event"].cumsum()
    after = units[units["event"] == 1]
    conv = after["dataset"].astype(str) + "/" + after["seq"].astype(str)
    return (after.assign(conv=conv).groupby([*by, "cycle"], observed=True, sort=True)
            .agg(conversations=("conv", "nunique"), fact_recall=("fact_recall", "mean"))
            .reset_index()[columns])


SUMMARY_METRICS = ("rouge1", "rouge2", "rougeL", "ref_rouge1", "ref_rouge2", "ref_rougeL", "compression_ratio",
                   "summary_tokens")


def probe_columns(summaries: pd.DataFrame) -> list[str]:
    """Probe-QA score columns of a summaries frame (present only when a run judged probes)."""
    return [c for c in summaries.columns if c.startswith("probe")]


def summary_quality(summaries: pd.DataFrame, by: Sequence[str] = KEYS) -> pd.DataFrame:
    """Mean ROUGE (against the compacted messages and the reference summary), compression ratio,
    summary size and any probe scores, per strategy variant x window x mode."""
    if summaries.empty:
        return pd.DataFrame(columns=[*by, "summaries"])
    metrics = [c for c in (*SUMMARY_METRICS, *probe_columns(summaries)) if c in summaries]
    numeric = summaries[[*by, *metrics]].copy()
    for c in metrics:
        numeric[c] = pd.to_numeric(numeric[c], errors="coerce")
    out = numeric.groupby(list(by), observed=True, sort=True)[metrics].mean().reset_index()
    counts = numeric.groupby(list(by), observed=True, sort=True).size().rename("summaries").reset_index()
    return counts.merge(out, on=list(by))


def cost_table(results: pd.DataFrame, by: Sequence[str] = ("label", "counter", "mode")) -> pd.DataFrame:
    """What compression costs per strategy variant: LLM calls, tokens and dollars (cached calls
    are free and not counted), summary size, and the strategy's own latency."""
    units = per_unit(results)
    units = units[units["status"] == "ok"]
    if units.empty:
        return pd.DataFrame(columns=[*by, "units"])
    frame = units.assign(summary=units["summary_tokens"].astype("Float64"))
    out = (frame.groupby(list(by), observed=True, sort=True)
           .agg(units=("latency_ms", "size"), llm_calls=("llm_calls", "sum"),
                llm_input_tokens=("llm_input_tokens", "sum"), llm_output_tokens=("llm_output_tokens", "sum"),
                llm_cost_usd=("llm_cost_usd", "sum"), mean_summary_tokens=("summary", "mean"),
                p50_latency_ms=("latency_ms", "median"),
                p95_latency_ms=("latency_ms", lambda s: s.quantile(0.95)))
           .reset_index())
    out["cost_per_1k_units_usd"] = 1000 * out["llm_cost_usd"] / out["units"].clip(lower=1)
    return out


def pick_mode(results: pd.DataFrame, preferred: str = "final") -> str | None:
    """The mode to show by default: `preferred` when the run has it, else the first it has."""
    modes = sorted(results["mode"].dropna().unique()) if "mode" in results else []
    return preferred if preferred in modes else (modes[0] if modes else None)
