"""Which context policy to run on a user's own sessions: the Pareto front of needed-context recall
against effective cost, and a recommendation with its evidence.

Input is a per-turn replay (`ctxlab.analysis.frames.results`): one unit per provider call, each
compressed before the call as the agent would, graded by what the agent's recorded next action
used (`ctxlab.metrics.grounded`). Per session and variant this sums what every call sends (under the
reference tokenizer: a real count), the refetch tokens of the needed strings it lost, and pools the
needed strings over the calls (so a policy that forgets early and remembers late is not flattered);
it counts the calls a provider would reject (an orphan tool result or call, a prompt over the
window: both a 400). Sessions are then averaged per variant, with a bootstrap interval over sessions
(`ctxlab.analysis.tables.bootstrap_mean_ci`). *Effective cost* is tokens sent plus refetch tokens,
or with a price model, dollars with prompt caching plus the refetch tokens at the uncached input
price. Regex fact recall (`ctxlab.metrics.facts`) stays a secondary column.

Beside each variant's needed recall: the **hindsight limit** at its own tokens (`ctxlab.metrics.limit`:
a bound that uses the future, never a policy; horizon the next call), pooled like needed recall from
the units' ``limit_kept``, and the **share of the headroom closed**: from what every policy keeps
by sending the newest messages (``newest_share``) to the limit. Runs stored before the limit existed
have neither (NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ctxlab.analysis.tables import CONVERSATION, bootstrap_mean_ci, pareto_front

VARIANT = ("label", "counter", "window")
# Summed per session from the per-turn units (kept / total pairs pool into recalls).
SUMS = {"facts_kept": "facts_kept", "facts_total": "facts_total", "needed_kept": "needed_kept",
        "needed_total": "needed_total", "needed_kept_in_context": "framed_kept",
        "needed_old_kept": "old_kept", "needed_old_total": "old_total", "needed_regex_kept": "regex_kept",
        "needed_regex_total": "regex_total", "refetch_tokens": "refetch_tokens",
        "instructions_kept": "instructions_kept", "instructions_total": "instructions_total",
        "limit_kept": "limit_kept"}
# Pooled recalls of the front: column -> (kept, total) session sums.
RECALLS = {"in_context_recall": ("framed_kept", "needed_total"), "old_recall": ("old_kept", "old_total"),
           "non_regex_recall": ("non_regex_kept", "non_regex_total"),
           "instruction_survival": ("instructions_kept", "instructions_total"),
           "fact_recall": ("facts_kept", "facts_total")}
# Recalls that also get a 95% interval over sessions (``<name>_low``, ``<name>_high``).
BOUNDED = ("in_context_recall", "non_regex_recall")
LIMIT_COLUMNS = ["limit_recall", "newest_share", "headroom_closed"]
# What `frontier` reads of a unit (`ctxlab.analysis.frames.front_input`; a history has millions of them).
FRONT_INPUT = (*CONVERSATION, "unit", *VARIANT, "mode", "reference", "status", "reference_tokens_before",
               "reference_tokens_after", "fits_reference", "orphan_calls", "orphan_results", *SUMS)
# What every face says beside the limit's figures (one wording, `ctxlab.metrics.limit`).
LIMIT_NOTE = ("Hindsight limit: the most of the next call's needed strings any text of the policy's tokens per "
              "call could hold, knowing what that call uses (it uses the future: a bound, never a policy; "
              "horizon: the next call). A call's needed strings take a few dozen tokens, so it is every needed "
              "string unless a policy sends little beyond the pinned messages: 100% says the policy lost strings "
              "by what it chose to send, not for want of tokens. Headroom closed: the share of the way from what "
              "sending the newest messages keeps (newest) to the limit that the policy covers.")


def limit_reading(front: pd.DataFrame) -> str:
    """Where the hindsight limit binds at one window's `front` (`ctxlab.metrics.limit.reading`, by
    variant name); empty for a front without the limit."""
    from ctxlab.metrics.limit import reading

    if "limit_recall" not in front or front.empty:
        return ""
    labels = front["label"].astype(str)  # with its counter where the label ran with several
    shown = labels.where(~labels.duplicated(keep=False), labels + " [" + front["counter"].astype(str) + "]")
    return reading(dict(zip(shown, front["limit_recall"].astype(float), strict=True)))


FRONT_COLUMNS = [*VARIANT, "sessions", "calls", "tokens_sent", "refetch_tokens", "effective_tokens", "needed_recall",
                 "needed_low", "needed_high", *RECALLS, *(f"{b}_{end}" for b in BOUNDED for end in ("low", "high")),
                 "orphan_rate", "overflow_rate", *LIMIT_COLUMNS, "on_front"]


class Recommendation(NamedTuple):
    """The variant to run and why, in one readable paragraph."""

    label: str
    counter: str
    window: int
    evidence: str


def session_rows(results: pd.DataFrame, reference: str) -> pd.DataFrame:
    """One row per variant x session: calls, tokens sent, the `SUMS` (needed strings kept and
    total, refetch tokens, facts, instructions), rejected calls.

    Args:
        results: rows of the `results` view (per-turn units; one row per unit and reference).
        reference: the tokenizer that counts what is sent and decides overflow.
    """
    units = results[(results["reference"] == reference) & (results["mode"] == "per-turn")]
    if units.empty:
        return pd.DataFrame(columns=[*VARIANT, *CONVERSATION, "calls", "tokens_sent", *SUMS.values(), "rejected",
                                     "orphaned", "overflowed", "limit_missing"])
    ok = units["status"] == "ok"
    orphaned = ok & ((units["orphan_calls"].fillna(0) > 0) | (units["orphan_results"].fillna(0) > 0))
    overflowed = ok & ~units["fits_reference"].astype("boolean").fillna(True).astype(bool)
    frame = units.assign(
        sent=units["reference_tokens_after"].where(ok, units["reference_tokens_before"]).fillna(0),
        orphaned=orphaned.astype(int), overflowed=overflowed.astype(int),
        rejected=(orphaned | overflowed | ~ok).astype(int),
        **{name: _column(units, source) for source, name in SUMS.items()},
        limit_missing=units["limit_kept"].isna().astype(int) if "limit_kept" in units else 1)
    return (frame.groupby([*VARIANT, *CONVERSATION], observed=True, sort=True)
            .agg(calls=("unit", "size"), tokens_sent=("sent", "sum"), **{n: (n, "sum") for n in SUMS.values()},
                 rejected=("rejected", "sum"), orphaned=("orphaned", "sum"), overflowed=("overflowed", "sum"),
                 limit_missing=("limit_missing", "sum"))
            .reset_index())


def _column(units: pd.DataFrame, name: str) -> pd.Series:
    return units[name].fillna(0) if name in units else pd.Series(0, index=units.index)


def frontier(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None,
             input_price: float | None = None) -> pd.DataFrame:
    """Per variant (`FRONT_COLUMNS`): sessions, calls, mean tokens sent, refetch and effective
    tokens per session, needed-context recall pooled over calls with its interval over sessions,
    the other recalls pooled (in context, old-only, non-regex, instruction survival, regex fact
    recall), the share of calls orphaned or over the window, and ``on_front`` (no other variant
    has a lower effective cost and a higher needed recall). Sorted by tokens sent.

    With `costs` (`ctxlab.store.session_costs` rows of ONE price model) and that model's uncached
    `input_price` (USD per token), also the mean session ``cost_usd``, ``refetch_usd``,
    ``effective_usd`` and ``on_cost_front``: the front by dollars, where prompt caching can reorder it.
    """
    sessions = session_rows(results, reference).assign(
        non_regex_kept=lambda d: d["needed_kept"] - d["regex_kept"],
        non_regex_total=lambda d: d["needed_total"] - d["regex_total"])
    rows = []
    for key, group in sessions.groupby(list(VARIANT), observed=True, sort=True):
        recall, low, high = bootstrap_mean_ci(group["needed_kept"].to_numpy(), group["needed_total"].to_numpy())
        calls = int(group["calls"].sum())
        sent, refetch = float(group["tokens_sent"].mean()), float(group["refetch_tokens"].mean())
        rows.append([*key, len(group), calls, sent, refetch, sent + refetch, recall, low, high,
                     *(_share(group, *pair) for pair in RECALLS.values()),
                     *(bound for b in BOUNDED for bound in _bounds(group, *RECALLS[b])),
                     group["orphaned"].sum() / max(calls, 1), group["overflowed"].sum() / max(calls, 1),
                     *_limit(group, recall)])
    front = pd.DataFrame(rows, columns=FRONT_COLUMNS[:-1])
    front["on_front"] = pareto_front(front["effective_tokens"], front["needed_recall"]) if len(front) else []
    if costs is not None:
        dollars = costs.groupby(list(VARIANT), observed=True)["cost_usd"].mean().rename("cost_usd").reset_index()
        front = front.merge(dollars, on=list(VARIANT), how="left")
        front["refetch_usd"] = front["refetch_tokens"] * (input_price or 0.0)
        front["effective_usd"] = front["cost_usd"] + front["refetch_usd"]
        front["on_cost_front"] = pareto_front(front["effective_usd"], front["needed_recall"]) if len(front) else []
    return front.sort_values("tokens_sent", ignore_index=True)


def _limit(group: pd.DataFrame, recall: float) -> tuple[float, float, float]:
    """The hindsight limit pooled at the variant's own tokens, the share of needed strings the newest
    messages hold, and the share of the headroom between the two that `recall` closes (NaN for runs
    stored without the limit)."""
    from ctxlab.metrics.limit import headroom_closed

    needed = group["needed_total"].sum()
    if not needed or group["limit_missing"].sum():
        return np.nan, np.nan, np.nan
    limit, newest = group["limit_kept"].sum() / needed, 1 - group["old_total"].sum() / needed
    closed = headroom_closed(recall, limit, newest)
    return float(limit), float(newest), np.nan if closed is None else float(closed)


def _bounds(group: pd.DataFrame, kept: str, total: str) -> tuple[float, float]:
    _, low, high = bootstrap_mean_ci(group[kept].to_numpy(), group[total].to_numpy())
    return low, high


def _share(group: pd.DataFrame, kept: str, total: str) -> float:
    of = group[total].sum()
    return float(group[kept].sum() / of) if of else np.nan


def recommend(front: pd.DataFrame, *, exclude: Sequence[str] = ("noop",)) -> Recommendation | None:
    """The variant to run: among those no provider would reject (no orphaned pair, nothing over
    the window), the best needed-context recall; every variant whose interval overlaps the best's
    ties with it, and the cheapest of the tied wins (effective dollars when the front has them,
    else effective tokens). When every variant has rejected calls, the fewest rejected calls
    first. None without data."""
    candidates = front[~front["label"].isin(exclude) & front["needed_recall"].notna()]
    if candidates.empty:
        return None
    rejected = candidates["orphan_rate"] + candidates["overflow_rate"]
    clean = candidates[rejected == 0]
    pool = clean if len(clean) else candidates[rejected == rejected.min()]
    best = pool.sort_values(["needed_recall", "effective_tokens"], ascending=[False, True]).iloc[0]
    tied = pool[pool["needed_high"] >= best["needed_low"]]
    cost = cost_column(front)
    pick = tied.sort_values([cost, "needed_recall"], ascending=[True, False]).iloc[0]
    from ctxlab.analysis.evidence import evidence

    text = evidence(pick, best, tied, front, exclude, cost=cost, clean_found=len(clean) > 0)
    return Recommendation(str(pick["label"]), str(pick["counter"]), int(pick["window"]), text)


def cost_column(front: pd.DataFrame) -> str:
    """The effective cost a front is judged by: dollars when it has them, else tokens."""
    return "effective_usd" if "effective_usd" in front and front["effective_usd"].notna().any() else "effective_tokens"


__all__ = ["FRONT_COLUMNS", "FRONT_INPUT", "LIMIT_COLUMNS", "LIMIT_NOTE", "limit_reading", "Recommendation", "cost_column", "frontier", "recommend", "session_rows"]
