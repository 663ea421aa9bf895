"""Which context policy to run on a user's own sessions: the Pareto front of needed-context recall
against effective cost, and the verdict with its evidence.

Input is a per-turn replay (`ctxlab.analysis.frames.results`): one unit per provider call, each
compressed before the call as the agent would, graded by what the agent's recorded next action
used (`ctxlab.metrics.grounded`). `ctxlab.analysis.sessions.session_rows` sums it per session and
variant; `frontier` pools those rows per variant, with a bootstrap interval over sessions
(`ctxlab.analysis.tables.bootstrap_mean_ci`). *Effective cost* is tokens sent plus refetch tokens,
or with a price model, dollars with prompt caching plus the refetch tokens at the uncached input
price. `recommend` decides with ctxlab's one rule for a tie (`ctxlab.analysis.ties`). Regex fact
recall (`ctxlab.metrics.facts`) stays a secondary column. Beside each variant: the hindsight limit at
its own tokens and the share of the headroom it closes (`ctxlab.analysis.limits`), which the
verdict carries for the policy to run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ctxlab.analysis.evidence import evidence
from ctxlab.analysis.in_sample import fitted_here
from ctxlab.analysis.limits import LIMIT_COLUMNS, headroom_finding, pooled_limit
from ctxlab.analysis.sessions import READS, RECALLS, VARIANT, session_rows
from ctxlab.analysis.tables import CONVERSATION, bootstrap_mean_ci, pareto_front
from ctxlab.analysis.verdict import EXCLUDED, Verdict, decide

# Recalls that also get a 95% interval over sessions (``<name>_low``, ``<name>_high``).
BOUNDED = ("in_context_recall", "non_regex_recall")
SESSIONS_PER_READ = 40  # about 8,000 calls x 31 policies of the generated history: some 100 MB of units
POOLED = [r for r in RECALLS if r != "needed_recall"]
FRONT_COLUMNS = [*VARIANT, "sessions", "calls", "tokens_sent", "refetch_tokens", "effective_tokens", "needed_recall",
                 "needed_low", "needed_high", *POOLED, *(f"{b}_{end}" for b in BOUNDED for end in ("low", "high")),
                 "orphan_rate", "overflow_rate", "failed_rate", "rejected_rate", "peak_tokens", *LIMIT_COLUMNS,
                 "on_front"]


class Policies(NamedTuple):
    """One window's policies: the front (`frontier`), the per-session rows it pools
    (`ctxlab.analysis.sessions.session_rows`) and the verdict (`recommend`; None without data)."""

    front: pd.DataFrame
    sessions: pd.DataFrame
    verdict: Verdict | None


def frontier(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None,
             input_price: float | None = None, *, sessions: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per variant (`FRONT_COLUMNS`): sessions, calls, mean tokens sent, refetch and effective
    tokens per session, needed-context recall pooled over calls with its interval over sessions,
    the other `RECALLS` pooled, the share of calls orphaned, over the window, failed and rejected
    (any of those), the largest call without compression (``peak_tokens``), and ``on_front`` (no
    other variant has a lower effective cost and a higher needed recall). Sorted by tokens sent.

    With `costs` (`ctxlab.store.session_costs` rows of ONE price model) and that model's uncached
    `input_price` (USD per token), also the mean session ``cost_usd``, ``refetch_usd``,
    ``effective_usd`` and ``on_cost_front``: the front by dollars, where prompt caching can reorder it.
    `sessions`: the `session_rows` of the same arguments, when already at hand.
    """
    if sessions is None:
        sessions = session_rows(results, reference, costs, input_price)
    rows = [_pooled(key, group) for key, group in sessions.groupby(list(VARIANT), observed=True, sort=True)]
    front = pd.DataFrame(rows, columns=FRONT_COLUMNS[:-1])
    front["on_front"] = pareto_front(front["effective_tokens"], front["needed_recall"]) if len(front) else []
    if costs is not None:
        dollars = (sessions.groupby(list(VARIANT), observed=True)[["cost_usd", "effective_usd"]].mean()
                   .reset_index())
        front = front.merge(dollars, on=list(VARIANT), how="left")
        front["refetch_usd"] = front["effective_usd"] - front["cost_usd"]
        front["on_cost_front"] = pareto_front(front["effective_usd"], front["needed_recall"]) if len(front) else []
    return front.sort_values("tokens_sent", ignore_index=True)


def _pooled(key: tuple, group: pd.DataFrame) -> list:
    recall, low, high = bootstrap_mean_ci(group["needed_kept"].to_numpy(), group["needed_total"].to_numpy())
    calls = int(group["calls"].sum())
    sent, refetch = float(group["tokens_sent"].mean()), float(group["refetch_tokens"].mean())
    rates = [group[c].sum() / max(calls, 1) for c in ("orphaned", "overflowed", "failed", "rejected")]
    return [*key, len(group), calls, sent, refetch, sent + refetch, recall, low, high,
            *(_share(group, *RECALLS[r]) for r in POOLED),
            *(bound for b in BOUNDED for bound in _bounds(group, *RECALLS[b])), *rates,
            float(group["peak_tokens"].max()), *pooled_limit(group, recall)]


def _bounds(group: pd.DataFrame, kept: str, total: str) -> tuple[float, float]:
    _, low, high = bootstrap_mean_ci(group[kept].to_numpy(), group[total].to_numpy())
    return low, high


def _share(group: pd.DataFrame, kept: str, total: str) -> float:
    of = group[total].sum()
    return float(group[kept].sum() / of) if of else np.nan


def recommend(front: pd.DataFrame, sessions: pd.DataFrame, *, exclude: Sequence[str] = EXCLUDED,
              dataset: str = "", conversation_ids: Sequence[str] = ()) -> Verdict | None:
    """The verdict on one window's policies (`ctxlab.analysis.verdict.decide`): the one to run is
    the cheapest of those tied with the best needed recall, among the policies that compete on
    rejected calls (`ctxlab.analysis.ties.contest`); ties by the one rule (`ctxlab.analysis.ties`).
    With its evidence and, where something needs compressing, the headroom (`ctxlab.analysis.limits`).
    None without data.

    Args:
        front: `frontier` rows of one window.
        sessions: the `session_rows` it pools.
        exclude: labels that are baselines, not choices.
        dataset: what the sessions are, for the verdict ("" for every dataset of the run).
        conversation_ids: the sessions' conversation ids: a learned policy fitted on any of them is
            shown but does not compete (`ctxlab.analysis.in_sample`).
    """
    in_sample = fitted_here([str(label) for label in front["label"].unique()], conversation_ids) if len(front) else ()
    exclude = (*exclude, *in_sample)
    verdict = decide(front, sessions, cost_column(front), exclude=exclude, dataset=dataset)
    if verdict is None:
        return None
    headroom = headroom_finding(front, verdict.run) if verdict.needs_compression else None
    said = evidence(verdict, front, exclude)
    if in_sample:
        said += (f" Not judged here: {', '.join(in_sample)} (its need model was fitted on some of these sessions, "
                 "so its numbers here are in-sample; docs/learned.md).")
    return dataclasses.replace(verdict, evidence=said, headroom=headroom, in_sample=in_sample)


def policies(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None,
             input_price: float | None = None, *, dataset: str = "") -> Policies:
    """The front, its session rows and the verdict of one window's per-turn `results` (every face
    that shows a recommendation calls this, so they all say the same)."""
    sessions = session_rows(results, reference, costs, input_price)
    front = frontier(results, reference, costs, input_price, sessions=sessions)
    ids = results["conversation_id"].unique().tolist() if "conversation_id" in results else []
    return Policies(front, sessions, recommend(front, sessions, dataset=dataset, conversation_ids=ids))


def stored_policies(con: Any, run_id: str, reference: str, costs: pd.DataFrame | None = None,
                    input_price: float | None = None, *, per_read: int = SESSIONS_PER_READ) -> Policies:
    """`policies` of a stored run's per-turn units (one window), read `per_read` sessions at a time.

    A session's units are all in one read, so summing each read's `session_rows` gives the run's;
    the main process holds one read's units, never the run's (3 million at a user's whole history),
    and only the columns `session_rows` uses (`READS`).
    """
    from ctxlab.analysis import frames

    done = frames.conversations(con, run_id)
    reads = [("", (0, -1))]  # no units: one empty read, so the frames have their columns
    for dataset in dict.fromkeys(d for d, _, _ in done):
        seqs = [s for d, s, _ in done if d == dataset]
        reads += [(dataset, (seqs[i], seqs[min(i + per_read, len(seqs)) - 1])) for i in range(0, len(seqs), per_read)]
    reads = reads[1:] or reads
    parts = [session_rows(frames.unit_results(con, run_id, reference, READS, dataset=dataset, seqs=seqs), reference,
                          costs, input_price) for dataset, seqs in reads]
    sessions = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    sessions = sessions.sort_values([*VARIANT, *CONVERSATION], kind="stable", ignore_index=True)
    front = frontier(sessions, reference, costs, input_price, sessions=sessions)
    return Policies(front, sessions, recommend(front, sessions, conversation_ids=[c for _, _, c in done]))


def by_dataset(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None,
               input_price: float | None = None) -> list[Policies]:
    """`policies` per dataset and window of per-turn `results` (`costs`: of ONE price model)."""
    out = []
    turns = results[results["mode"] == "per-turn"]
    for (dataset, window), rows in turns.groupby(["dataset", "window"], observed=True, sort=True):
        priced = None if costs is None else costs[(costs["dataset"] == dataset) & (costs["window"] == window)]
        out.append(policies(rows, reference, priced, input_price, dataset=str(dataset)))
    return out


def verdicts(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None,
             input_price: float | None = None) -> list[Verdict]:
    """Per dataset and window of per-turn `results`, its verdict (`costs`: of ONE price model)."""
    return [p.verdict for p in by_dataset(results, reference, costs, input_price) if p.verdict is not None]


def cost_column(front: pd.DataFrame) -> str:
    """The effective cost a front is judged by: dollars when it has them, else tokens."""
    return "effective_usd" if "effective_usd" in front and front["effective_usd"].notna().any() else "effective_tokens"


__all__ = ["BOUNDED", "FRONT_COLUMNS", "Policies", "by_dataset", "cost_column", "frontier", "policies", "recommend",
           "session_rows", "stored_policies", "verdicts"]
