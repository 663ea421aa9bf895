"""Next-action agreement per policy, from the rows of an agreement run (`ctxlab.store.agreement_rows`).

Each rate is pooled over the sampled calls that got an answer, with a percentile bootstrap
interval that resamples sessions (`bootstrap_mean_ci`): calls of one session are correlated, so
resampling calls would make the intervals look tighter than the data supports. No winner is named
here: whether two policies differ is the paired rule of `ctxlab.analysis.ties`, not whether these
intervals overlap.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ctxlab.analysis.tables import CONVERSATION, bootstrap_mean_ci

BASELINE = "noop"
COLUMNS = ("label", "counter", "sessions", "calls", "errors", "text_answers", "name_agreement", "name_low",
           "name_high", "arg_overlap", "overlap_low", "overlap_high", "arg_exact", "same_as_baseline",
           "tokens_sent", "model_calls", "input_tokens", "output_tokens", "cost_usd")


def agreement_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per policy: sessions, sampled calls, failed calls, the share of text answers, tool-name
    agreement and mean argument overlap (each with its interval), the share of exactly matched
    arguments, the share of calls where the model chose the same tool as with the full history
    (`BASELINE`, NaN without it), mean tokens sent, and the model's usage and cost (calls read from
    the cache count in the tokens and dollars they cost when made; `model_calls` counts the new ones).
    Sorted by tool-name agreement, best first."""
    if rows.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    rows = rows.assign(same=_same_as_baseline(rows))
    out = [_policy(label, group) for label, group in rows.groupby("label", sort=False)]
    return pd.DataFrame(out, columns=list(COLUMNS)).sort_values(
        ["name_agreement", "arg_overlap"], ascending=False, na_position="last").reset_index(drop=True)


def _policy(label: str, group: pd.DataFrame) -> dict[str, object]:
    answered = group[group["error"].isna()]
    name, name_low, name_high = _interval(answered, answered["name_match"].astype(float))
    overlap, overlap_low, overlap_high = _interval(answered, answered["arg_overlap"])
    return {
        "label": label, "counter": group["counter"].iloc[0],
        "sessions": group[list(CONVERSATION)].drop_duplicates().shape[0], "calls": len(group),
        "errors": int(group["error"].notna().sum()),
        "text_answers": float(answered["text_answer"].astype(float).mean()) if len(answered) else np.nan,
        "name_agreement": name, "name_low": name_low, "name_high": name_high, "arg_overlap": overlap,
        "overlap_low": overlap_low, "overlap_high": overlap_high,
        "arg_exact": float(answered["arg_exact"].astype(float).mean()) if len(answered) else np.nan,
        "same_as_baseline": float(answered["same"].astype(float).mean()) if answered["same"].notna().any() else np.nan,
        "tokens_sent": float(group["tokens_sent"].astype(float).mean()),
        "model_calls": int((group["cached"] == False).sum()),  # noqa: E712 (a column, not a bool)
        "input_tokens": int(group["input_tokens"].fillna(0).sum()),
        "output_tokens": int(group["output_tokens"].fillna(0).sum()),
        "cost_usd": float(group["cost_usd"].sum()) if group["cost_usd"].notna().any() else np.nan,
    }


def _interval(answered: pd.DataFrame, values: pd.Series) -> tuple[float, float, float]:
    """Mean of `values` (NaN left out) and its interval, resampling sessions."""
    frame = answered[list(CONVERSATION)].assign(value=values.astype(float)).dropna(subset=["value"])
    per_session = frame.groupby(list(CONVERSATION))["value"].agg(["sum", "count"])
    return bootstrap_mean_ci(per_session["sum"].to_numpy(), per_session["count"].to_numpy())


def _same_as_baseline(rows: pd.DataFrame) -> pd.Series:
    """Per row: did the model choose the same tool (or, both times, text) as at the same call with
    the full history? NaN where the baseline was not run or either call failed."""
    keys = [*CONVERSATION, "call"]
    base = rows[(rows["label"] == BASELINE) & rows["error"].isna()]
    if base.empty:
        return pd.Series(np.nan, index=rows.index)
    chosen = base.set_index(keys)["proposed_name"].fillna("(text)")
    joined = rows.join(chosen.rename("baseline_name"), on=keys)
    same = joined["proposed_name"].fillna("(text)") == joined["baseline_name"]
    return same.astype(float).where(joined["baseline_name"].notna() & rows["error"].isna())
