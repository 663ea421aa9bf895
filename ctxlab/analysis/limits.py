"""The hindsight limit beside each policy of a front, and the headroom a verdict carries.

Beside each variant's needed recall: the **hindsight limit** at its own tokens (`ctxlab.metrics.limit`:
a bound that uses the future, never a policy; horizon the next call), pooled like needed recall from
the units' ``limit_kept``, and the **share of the headroom closed**: from what every policy keeps
by sending the newest messages (``newest_share``) to the limit. Runs stored before the limit existed
have neither (NaN). `headroom_finding` is what a verdict says of it (its ``headroom`` slot), so
every face that prints a verdict says it in the same words.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ctxlab.analysis.verdict import Choice, Finding

LIMIT_COLUMNS = ["limit_recall", "newest_share", "headroom_closed"]
# What every face says beside the limit's figures (one wording, `ctxlab.metrics.limit`).
LIMIT_NOTE = ("Hindsight limit: the most of the next call's needed strings any text of the policy's tokens per "
              "call could hold, knowing what that call uses (it uses the future: a bound, never a policy; "
              "horizon: the next call). A call's needed strings take a few dozen tokens, so it is every needed "
              "string unless a policy sends little beyond the pinned messages: 100% says the policy lost strings "
              "by what it chose to send, not for want of tokens. Headroom closed: the share of the way from what "
              "sending the newest messages keeps (newest) to the limit that the policy covers.")


def pooled_limit(group: pd.DataFrame, recall: float) -> tuple[float, float, float]:
    """For one variant's `ctxlab.analysis.sessions.session_rows`: the hindsight limit pooled at its
    own tokens, the share of needed strings the newest messages hold, and the share of the headroom
    between the two that `recall` closes (NaN for runs stored without the limit)."""
    from ctxlab.metrics.limit import headroom_closed

    needed = group["needed_total"].sum()
    if not needed or group["limit_missing"].sum():
        return np.nan, np.nan, np.nan
    limit, newest = group["limit_kept"].sum() / needed, 1 - group["old_total"].sum() / needed
    closed = headroom_closed(recall, limit, newest)
    return float(limit), float(newest), np.nan if closed is None else float(closed)


def limit_reading(front: pd.DataFrame) -> str:
    """Where the hindsight limit binds at one window's `front` (`ctxlab.metrics.limit.reading`, by
    variant name); empty for a front without the limit."""
    from ctxlab.metrics.limit import reading

    if "limit_recall" not in front or front.empty:
        return ""
    labels = front["label"].astype(str)  # with its counter where the label ran with several
    shown = labels.where(~labels.duplicated(keep=False), labels + " [" + front["counter"].astype(str) + "]")
    return reading(dict(zip(shown, front["limit_recall"].astype(float), strict=True)))


def headroom_finding(front: pd.DataFrame, run: Choice) -> Finding | None:
    """The verdict's headroom: the hindsight limit at the tokens of the policy to run (`run`, a row
    of `front`), what it keeps, and the share of the headroom from the newest messages it closes;
    the detail says where the limit binds at this window (faces state `LIMIT_NOTE` once beside it).
    None for a front without the limit."""
    rows = front[(front["label"] == run.label) & (front["counter"] == run.counter)]
    if rows.empty or "limit_recall" not in rows or rows["limit_recall"].isna().iloc[0]:
        return None
    row = rows.iloc[0]
    closed = row["headroom_closed"]
    closes = (f", closing {100 * closed:.0f}% of the headroom from what the newest messages keep "
              f"({100 * row['newest_share']:.1f}%)" if closed == closed else "")
    return Finding(f"hindsight limit at {run.name}'s tokens {100 * row['limit_recall']:.1f}%; it keeps "
                   f"{100 * run.recall:.1f}%{closes}", limit_reading(front))


__all__ = ["LIMIT_COLUMNS", "LIMIT_NOTE", "headroom_finding", "limit_reading", "pooled_limit"]
