"""A verdict's paragraph: each finding once, in plain words (`ctxlab.analysis.verdict`).

A policy replayed with several counters is several rows of a front; the paragraph names each by
the verdict's names (``label [counter]``), and other policies once, by their best row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from ctxlab.analysis.verdict import Choice, Verdict

TIE_RULE = "zero inside the paired 95% interval over sessions of the difference"
LISTED = 3  # policies named one by one in a list; the rest are counted


def evidence(v: Verdict, front: pd.DataFrame, exclude: Sequence[str]) -> str:
    """Why `v.run`: what it keeps and costs, what it ties with, what the others would give."""
    row = _row(front, v.run)
    text = [] if v.needs_compression else [nothing_to_compress(v) + " "]
    text.append(_claim(row, v.run, v.cost))
    others = [n for n in v.run.tied if n != v.best.name]
    listed = ", ".join(others[:LISTED]) + (f" and {len(others) - LISTED} more" if len(others) > LISTED else "")
    if v.best.name != v.run.name:
        also = f" and with {listed}" if others else ""
        text.append(f" {v.best.name} keeps the most ({pct(v.best.recall)}), but {v.run.name} ties with it{also} "
                    f"({TIE_RULE}) and is the cheapest of the tied by {_cost_name(v.cost)}.")
    elif others:
        text.append(f" It ties with {listed} ({TIE_RULE}) and is the cheapest of the tied by {_cost_name(v.cost)}.")
    if v.rejected > 0:
        text.append(_rejected(v, row))
    text += _others(v, front, exclude)
    text.append(f" Its regex fact recall (ctxlab's own extractors) is {pct(row['fact_recall'])}.")
    baseline = front[front["label"].isin(list(exclude))]
    if len(baseline):
        b = baseline.iloc[0]
        text.append(f" Without compression ({b['label']}) a session would send {b['tokens_sent']:,.0f} tokens, "
                    f"{pct(b['overflow_rate'])} of calls over the window.")
    return "".join(text)


def nothing_to_compress(v: Verdict) -> str:
    """The sentence for a window every call fits without compression."""
    return (f"Nothing needs compressing here: every call fits the {v.window:,}-token window whole (the largest is "
            f"{v.peak_tokens:,.0f} tokens), so no policy is needed; the comparison below only ranks noise.")


def _others(v: Verdict, front: pd.DataFrame, exclude: Sequence[str]) -> list[str]:
    """The best cheaper policy outside the tie (among those that competed), and richer ones a
    provider would reject."""
    out = []
    level = {v.run.name, *v.run.tied}
    from ctxlab.analysis.verdict import names

    named = pd.Series(names(front), index=front.index)
    rows = front.assign(competed=named.isin(v.competitors))
    rest = _by_label(rows[~rows["label"].isin([*exclude, v.run.label]) & rows["needed_recall"].notna()
                          & ~named.isin(level)])
    competed = rest["competed"].astype(bool)
    cheaper = rest[(rest[v.cost] < v.run.cost) & competed]  # one that did not compete is no choice
    if len(cheaper):
        c = cheaper.sort_values("needed_recall", ascending=False).iloc[0]
        out.append(f" The best cheaper policy, {c['label']}, costs {_share(c[v.cost], v.run.cost)} of that and keeps "
                   f"{pct(c['needed_recall'])}.")
    richer = rest[(rest["needed_recall"] > v.run.recall) & ~competed]
    named = [f"{r['label']} ({pct(r['needed_recall'])}; {rejections(r)})" for _, r in richer.head(LISTED).iterrows()]
    more = f"; {len(richer) - LISTED} more in the table" if len(richer) > LISTED else ""
    if len(richer) == 1:
        out.append(f" {named[0].replace(' (', ' keeps more (', 1)}, but a provider would reject those calls.")
    elif len(richer):
        out.append(f" {len(richer)} policies keep more but a provider would reject some of their calls: "
                   f"{', '.join(named)}{more}.")
    return out


def _rejected(v: Verdict, row: pd.Series) -> str:
    """Every policy had rejected calls: the fewest share, and this one's when it only ties with it."""
    if row["rejected_rate"] <= v.rejected:
        return f" Every policy had calls a provider would reject; this one the fewest ({pct(v.rejected)} of calls)."
    return (f" Every policy had calls a provider would reject; the fewest {pct(v.rejected)} of calls, and this "
            f"one's {pct(row['rejected_rate'])} ties with that ({TIE_RULE}).")


def _claim(row: pd.Series, run: Choice, cost: str) -> str:
    money = f", ${run.cost:,.4f} per session with prompt caching and refetch" if cost == "effective_usd" else ""
    return (f"{run.name} keeps {pct(run.recall)} of the strings the agent's next action used from earlier in the "
            f"session (95% CI {pct(run.low)}-{pct(run.high)} over {int(row['sessions'])} sessions; "
            f"{pct(row['in_context_recall'])} with the line they stood on), sending {row['tokens_sent']:,.0f} tokens "
            f"per session plus {row['refetch_tokens']:,.0f} to fetch back what it lost{money}.")


def rejections(row: pd.Series) -> str:
    """The reasons a front row's calls are rejected, as shares of its calls."""
    parts = [f"{pct(row[c])} {name}" for c, name in (("orphan_rate", "orphaned"), ("overflow_rate", "over the window"),
                                                     ("failed_rate", "failed")) if row.get(c, 0) > 0]
    return ", ".join(parts)


def _row(front: pd.DataFrame, choice: Choice) -> pd.Series:
    return front[(front["label"] == choice.label) & (front["counter"] == choice.counter)].iloc[0]


def _by_label(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per label: its best (highest needed recall)."""
    return (rows.sort_values("needed_recall", ascending=False, na_position="last")
            .drop_duplicates("label").reset_index(drop=True))


def _cost_name(cost: str) -> str:
    return "dollars (prompt caching plus refetch)" if cost == "effective_usd" else "tokens sent plus refetch"


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal ("n/a" for none)."""
    return "n/a" if value is None or np.isnan(value) else f"{100 * value:.1f}%"


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"


__all__ = ["TIE_RULE", "evidence", "nothing_to_compress", "pct", "rejections"]
