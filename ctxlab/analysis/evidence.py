"""The recommendation's paragraph: each finding once, in plain words (`ctxlab.analysis.recommend`).

A policy replayed with several counters is several rows of a front; the paragraph names each
policy once, by its best row (highest needed-context recall).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def evidence(pick: pd.Series, best: pd.Series, tied: pd.DataFrame, front: pd.DataFrame, exclude: Sequence[str], *,
             cost: str, clean_found: bool) -> str:
    """Why `pick` (the cheapest of `tied`, the variants whose interval overlaps `best`'s)."""
    text = [_claim(pick, cost)]
    others = _by_label(tied[~tied["label"].isin([pick["label"], best["label"]])])
    if len(others) or best["label"] != pick["label"]:
        names = ", ".join(str(label) for label in others["label"])
        many = f"{len(others)} other polic{'y' if len(others) == 1 else 'ies'}" + (f" ({names})" if names else "")
        if best["label"] != pick["label"]:
            text.append(f" {best['label']} keeps the most ({_pct(best['needed_recall'])}), but its 95% interval "
                        f"overlaps those of {pick['label']} and {many}: a tie, and {pick['label']} is the cheapest of "
                        f"the tied by {_cost_name(cost)}.")
        else:
            text.append(f" Its 95% interval overlaps those of {many}: a tie, and it is the cheapest of the tied by "
                        f"{_cost_name(cost)}.")
    if not clean_found:
        text.append(f" Every policy had calls a provider would reject; this one the fewest "
                    f"({_pct(pick['orphan_rate'] + pick['overflow_rate'])} of calls).")
    rest = _by_label(front[~front["label"].isin([pick["label"], *exclude, *tied["label"]])
                           & front["needed_recall"].notna()])
    cheaper = rest[rest[cost] < pick[cost]]
    if len(cheaper):
        c = cheaper.sort_values("needed_recall", ascending=False).iloc[0]
        text.append(f" The best cheaper policy, {c['label']}, costs {_share(c[cost], pick[cost])} of that and keeps "
                    f"{_pct(c['needed_recall'])}.")
    richer = rest[(rest["needed_recall"] > pick["needed_recall"]) & (rest["orphan_rate"] + rest["overflow_rate"] > 0)]
    for _, r in richer.iterrows():
        text.append(f" {r['label']} keeps more ({_pct(r['needed_recall'])}) but a provider would reject some of its "
                    f"calls: {_rejections(r)}.")
    text.append(f" Its regex fact recall (ctxlab's own extractors) is {_pct(pick['fact_recall'])}.")
    baseline = front[front["label"].isin(exclude)]
    if len(baseline):
        b = baseline.iloc[0]
        text.append(f" Without compression ({b['label']}) a session would send {b['tokens_sent']:,.0f} tokens, "
                    f"{_pct(b['overflow_rate'])} of calls over the window.")
    return "".join(text)


def _claim(pick: pd.Series, cost: str) -> str:
    money = (f", ${pick['effective_usd']:,.4f} per session with prompt caching and refetch" if cost == "effective_usd"
             else "")
    return (f"{pick['label']} keeps {_pct(pick['needed_recall'])} of the strings the agent's next action used from "
            f"earlier in the session (95% CI {_pct(pick['needed_low'])}-{_pct(pick['needed_high'])} over "
            f"{int(pick['sessions'])} sessions; {_pct(pick['in_context_recall'])} with the line they stood on), "
            f"sending {pick['tokens_sent']:,.0f} tokens per session plus {pick['refetch_tokens']:,.0f} to fetch back "
            f"what it lost{money}.")


def _rejections(row: pd.Series) -> str:
    parts = [f"{_pct(row[c])} {name}" for c, name in (("orphan_rate", "orphaned"), ("overflow_rate", "over the window"))
             if row[c] > 0]
    return ", ".join(parts)


def _by_label(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per label: its best (highest needed recall)."""
    return (rows.sort_values("needed_recall", ascending=False, na_position="last")
            .drop_duplicates("label").reset_index(drop=True))


def _cost_name(cost: str) -> str:
    return "dollars (prompt caching plus refetch)" if cost == "effective_usd" else "tokens sent plus refetch"


def _pct(value: float | None) -> str:
    return "n/a" if value is None or np.isnan(value) else f"{100 * value:.1f}%"


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"


__all__ = ["evidence"]
