"""The verdict on one window's policies, as data every face renders the same way.

A `Verdict` says, for one dataset (or a run's every dataset) at one window: which policy to run,
the best by needed-context recall and the cheapest, each with the policies tied with it by ctxlab's
one rule (`ctxlab.analysis.ties`), what they cost, how many calls a provider would reject, and
whether anything needed compressing at all. `ctxlab recommend`, the demo, the report, the
dashboard's Which-policy page and notebook 01 all print a `Verdict` built by `decide` (its
evidence paragraph worded by `ctxlab.analysis.recommend.recommend`).

Further findings travel with it as optional `Finding` slots, rendered only when present:
``stand_in_gap`` (how kind ctxlab's offline summary was next to the agent's own summaries on
recorded compactions) and ``headroom`` (how much a policy could keep at best, in hindsight).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

import pandas as pd

from ctxlab.analysis.sessions import VARIANT
from ctxlab.analysis.tables import CONVERSATION
from ctxlab.analysis.ties import Ratio, choose, tied

EXCLUDED = ("noop",)  # the policy that never compresses: the baseline, not a choice


class Finding(NamedTuple):
    """A finding beside the verdict: a one-line ``headline``, an optional longer ``detail``, and
    ``warn`` when it says the verdict's numbers may mislead (faces show its detail as a warning,
    not collapsed)."""

    headline: str
    detail: str = ""
    warn: bool = False


class Choice(NamedTuple):
    """A policy in a verdict: its ``name`` (the label, with its counter in brackets when the label
    ran with several), pooled needed recall with its 95% interval, effective cost per session,
    and the policies tied with it (on recall for the best and the one to run, on cost for the cheapest)."""

    name: str
    label: str
    counter: str
    recall: float
    low: float
    high: float
    cost: float
    tied: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One dataset at one window: what to run, the best, the cheapest, and why (``evidence``).

    ``competing`` of ``policies`` competed (``competitors``: their names): those with no rejected
    call, or when every policy has some, those tied with the fewest (``rejected``: the fewest share,
    0 when some policy has none); ``cost`` is the measure costs are in (``effective_usd`` or
    ``effective_tokens``); ``peak_tokens`` is the largest call without compression.
    """

    dataset: str
    window: int
    sessions: int
    calls: int
    policies: int
    competing: int
    rejected: float
    cost: str
    peak_tokens: float
    best: Choice
    cheapest: Choice
    run: Choice
    evidence: str = ""
    stand_in_gap: Finding | None = None  # issue 28: ctxlab's offline summary against recorded agent summaries
    headroom: Finding | None = None  # issue 29: the most any policy could keep, in hindsight
    competitors: tuple[str, ...] = ()
    in_sample: tuple[str, ...] = ()  # learned policies shown but not judged: fitted on these sessions

    @property
    def needs_compression(self) -> bool:
        """Whether some call is over the window without compression (else every policy may send it whole)."""
        return bool(self.peak_tokens > self.window)

    def findings(self) -> list[tuple[str, Finding]]:
        """The optional findings present, titled, in the order faces show them."""
        slots = (("Stand-in gap", self.stand_in_gap), ("Headroom", self.headroom))
        return [(title, f) for title, f in slots if f is not None]


def decide(front: pd.DataFrame, sessions: pd.DataFrame, cost: str, *, exclude: Sequence[str] = EXCLUDED,
           dataset: str = "") -> Verdict | None:
    """The verdict on `front` (`ctxlab.analysis.recommend.frontier` rows of one window) from the
    `sessions` it pools; `cost` is the front's effective-cost column; ``evidence`` left empty (the
    caller words it: `ctxlab.analysis.recommend.recommend`). None without a policy that has a needed
    recall."""
    candidates = front[~front["label"].isin(list(exclude))].reset_index(drop=True)
    if candidates.empty:
        return None
    samples = aligned(sessions, candidates)
    quality = [Ratio.of(s["needed_kept"], s["needed_total"]) for s in samples]
    costs = candidates[cost].astype(float).tolist()
    chosen = choose(quality, costs, [Ratio.of(s["rejected"], s["calls"]) for s in samples])
    if chosen is None:
        return None
    cheapest = min(chosen.pool, key=lambda i: (costs[i], -quality[i].mean, i))
    spend = [Ratio.of(s[cost]) for s in samples]
    named = names(candidates)

    def pick(i: int, level: Sequence[int]) -> Choice:
        row = candidates.iloc[i]
        return Choice(named[i], str(row["label"]), str(row["counter"]), float(row["needed_recall"]),
                      float(row["needed_low"]), float(row["needed_high"]), costs[i],
                      tuple(named[j] for j in level if j != i))

    on_cost = [j for j in chosen.pool if j == cheapest or tied(spend[j], spend[cheapest])]
    first = candidates.iloc[chosen.pool[0]]
    return Verdict(dataset, int(first["window"]), int(candidates["sessions"].max()), int(first["calls"]),
                   len(candidates), len(chosen.pool), float(candidates["rejected_rate"].iloc[list(chosen.pool)].min()),
                   cost, float(front["peak_tokens"].max()), pick(chosen.best, chosen.level), pick(cheapest, on_cost),
                   pick(chosen.run, chosen.level), competitors=tuple(named[i] for i in chosen.pool))


def aligned(sessions: pd.DataFrame, variants: pd.DataFrame) -> list[pd.DataFrame]:
    """Per row of `variants`, its session rows on every session any of them has, in one order (the
    pairing the one rule needs); a session a variant lacks reads as zeros there (weight 0: it counts
    for the others only)."""
    keyed = sessions.set_index([*VARIANT, *CONVERSATION]).sort_index()
    per = [keyed.loc[tuple(v)] for v in variants[list(VARIANT)].itertuples(index=False)]
    union = per[0].index
    for frame in per[1:]:
        union = union.union(frame.index)
    return [frame.reindex(union, fill_value=0) for frame in per]


def names(variants: pd.DataFrame) -> list[str]:
    """Per row, its label alone, or ``label [counter]`` when the label ran with more than one counter."""
    counters = variants.groupby("label", observed=True)["counter"].nunique()
    return [f"{label} [{counter}]" if counters[label] > 1 else str(label)
            for label, counter in zip(variants["label"], variants["counter"], strict=True)]


__all__ = ["EXCLUDED", "Choice", "Finding", "Verdict", "aligned", "decide", "names"]
