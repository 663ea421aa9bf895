"""Which context policy to run on a user's own sessions: the Pareto front of fact recall against
what is sent, and a recommendation with its evidence.

Input is a per-turn replay (`ctxlab.analysis.frames.results`): one unit per provider call, each
compressed before the call as the agent would. Per session and variant this sums what every call
sends (under the reference tokenizer: a real count, not the strategy's own estimate), pools the
facts the calls kept (recall over all calls, so a policy that forgets early and remembers late is
not flattered), and counts the calls a provider would reject: an orphan tool result or call is a
400, a prompt over the window is a 400 too. Sessions are then averaged per variant, with a
bootstrap interval for recall over sessions (`ctxlab.analysis.tables.bootstrap_mean_ci`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ctxlab.analysis.tables import CONVERSATION, bootstrap_mean_ci, pareto_front

VARIANT = ("label", "counter", "budget")
# Recall within this of the best counts as a tie; the cheaper policy then wins.
RECALL_TIE = 0.005
FRONT_COLUMNS = [*VARIANT, "sessions", "calls", "tokens_sent", "fact_recall", "recall_low", "recall_high",
                 "orphan_rate", "overflow_rate", "on_front"]


class Recommendation(NamedTuple):
    """The variant to run and why, in one readable paragraph."""

    label: str
    counter: str
    budget: int
    evidence: str


def session_rows(results: pd.DataFrame, reference: str) -> pd.DataFrame:
    """One row per variant x session: calls, tokens sent, facts kept and total, rejected calls.

    Args:
        results: rows of the `results` view (per-turn units; one row per unit and reference).
        reference: the tokenizer that counts what is sent and decides overflow.
    """
    units = results[(results["reference"] == reference) & (results["mode"] == "per-turn")]
    if units.empty:
        return pd.DataFrame(columns=[*VARIANT, *CONVERSATION, "calls", "tokens_sent", "facts_kept", "facts_total",
                                     "rejected", "orphaned", "overflowed"])
    ok = units["status"] == "ok"
    orphaned = ok & ((units["orphan_calls"].fillna(0) > 0) | (units["orphan_results"].fillna(0) > 0))
    overflowed = ok & ~units["fits_reference"].astype("boolean").fillna(True).astype(bool)
    frame = units.assign(
        sent=units["reference_tokens_after"].where(ok, units["reference_tokens_before"]).fillna(0),
        kept=units["facts_kept"].fillna(0), total=units["facts_total"].fillna(0),
        orphaned=orphaned.astype(int), overflowed=overflowed.astype(int),
        rejected=(orphaned | overflowed | ~ok).astype(int))
    return (frame.groupby([*VARIANT, *CONVERSATION], observed=True, sort=True)
            .agg(calls=("unit", "size"), tokens_sent=("sent", "sum"), facts_kept=("kept", "sum"),
                 facts_total=("total", "sum"), rejected=("rejected", "sum"), orphaned=("orphaned", "sum"),
                 overflowed=("overflowed", "sum"))
            .reset_index())


def frontier(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per variant: sessions, calls, mean tokens sent per session, pooled fact recall with its
    interval, the share of calls with orphaned tool pairs and over the window, and ``on_front``
    (no other variant sends fewer tokens and keeps more facts). Sorted by tokens sent.

    With `costs` (`ctxlab.store.session_costs` rows of ONE price model), also the mean session
    ``cost_usd`` and ``on_cost_front``: the front by dollars, where prompt caching can reorder it.
    """
    sessions = session_rows(results, reference)
    rows = []
    for key, group in sessions.groupby(list(VARIANT), observed=True, sort=True):
        recall, low, high = bootstrap_mean_ci(group["facts_kept"].to_numpy(), group["facts_total"].to_numpy())
        calls = int(group["calls"].sum())
        rows.append([*key, len(group), calls, float(group["tokens_sent"].mean()), recall, low, high,
                     group["orphaned"].sum() / max(calls, 1), group["overflowed"].sum() / max(calls, 1)])
    front = pd.DataFrame(rows, columns=FRONT_COLUMNS[:-1])
    front["on_front"] = pareto_front(front["tokens_sent"], front["fact_recall"]) if len(front) else []
    if costs is not None:
        dollars = costs.groupby(list(VARIANT), observed=True)["cost_usd"].mean().rename("cost_usd").reset_index()
        front = front.merge(dollars, on=list(VARIANT), how="left")
        front["on_cost_front"] = pareto_front(front["cost_usd"], front["fact_recall"]) if len(front) else []
    return front.sort_values("tokens_sent", ignore_index=True)


def recommend(front: pd.DataFrame, *, exclude: Sequence[str] = ("noop",)) -> Recommendation | None:
    """The variant to run: among those no provider would reject (no orphaned pair, nothing over
    the window), the best fact recall, the fewest tokens sent on a tie (within `RECALL_TIE`).
    When every variant has rejected calls, the fewest rejected calls first. None for no data."""
    candidates = front[~front["label"].isin(exclude) & front["fact_recall"].notna()]
    if candidates.empty:
        return None
    rejected = candidates["orphan_rate"] + candidates["overflow_rate"]
    clean = candidates[rejected == 0]
    pool = clean if len(clean) else candidates[rejected == rejected.min()]
    best_recall = pool["fact_recall"].max()
    tied = pool[pool["fact_recall"] >= best_recall - RECALL_TIE]
    pick = tied.sort_values(["tokens_sent", "fact_recall"], ascending=[True, False]).iloc[0]
    return Recommendation(str(pick["label"]), str(pick["counter"]), int(pick["budget"]),
                          _evidence(pick, front, exclude, clean_found=len(clean) > 0))


def _evidence(pick: pd.Series, front: pd.DataFrame, exclude: Sequence[str], *, clean_found: bool) -> str:
    others = front[~front["label"].isin([pick["label"], *exclude]) & front["fact_recall"].notna()]
    text = (f"{pick['label']} keeps {_pct(pick['fact_recall'])} of the facts (95% CI {_pct(pick['recall_low'])}-"
            f"{_pct(pick['recall_high'])}) sending {pick['tokens_sent']:,.0f} tokens per session over "
            f"{int(pick['sessions'])} sessions.")
    if not clean_found:
        text += (f" Every policy had calls a provider would reject; this one the fewest "
                 f"({_pct(pick['orphan_rate'] + pick['overflow_rate'])} of calls).")
    if len(others):
        richer = others[others["fact_recall"] > pick["fact_recall"] + RECALL_TIE]
        cheaper = others[others["tokens_sent"] < pick["tokens_sent"]]
        if len(cheaper):
            c = cheaper.sort_values("fact_recall", ascending=False).iloc[0]
            text += (f" The best cheaper policy, {c['label']}, sends {_share(c['tokens_sent'], pick['tokens_sent'])} "
                     f"of that and keeps {_pct(c['fact_recall'])}.")
        for _, r in richer.iterrows():
            text += (f" {r['label']} keeps more ({_pct(r['fact_recall'])}) but has "
                     f"{_pct(r['orphan_rate'])} orphaned and {_pct(r['overflow_rate'])} overflowing calls.")
    baseline = front[front["label"].isin(exclude)]
    if len(baseline):
        b = baseline.iloc[0]
        text += (f" Without compression ({b['label']}) a session would send {b['tokens_sent']:,.0f} tokens, "
                 f"{_pct(b['overflow_rate'])} of calls over the window.")
    return text


def _pct(value: float) -> str:
    return "n/a" if value is None or np.isnan(value) else f"{100 * value:.1f}%"


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"


__all__ = ["FRONT_COLUMNS", "RECALL_TIE", "Recommendation", "frontier", "recommend", "session_rows"]
