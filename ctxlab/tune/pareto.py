"""The Pareto front of evaluated settings, and the pick with its evidence.

Measures are means with intervals over sessions (`ctxlab.tune.measures`). Ties follow the
grounded-measures issue: two settings whose intervals overlap are tied on that measure. A setting is dominated when another is no worse on quality and cost (the intervals
overlap or it is better) and clearly better on one (its interval is wholly better); the front is
every setting nothing dominates (a setting without a quality or a cost is left out). The pick: among settings with no rejected call (or, if none, the
fewest), the best quality and every setting tied with it; of those, the cheapest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ctxlab.tune.evidence import evidence
from ctxlab.tune.measures import Evaluation, Goal


class FrontPoint(NamedTuple):
    """A setting on the front (``row``: its index in the evaluations) and those tied with it on both axes."""

    row: int
    ties: tuple[int, ...]


class Pick(NamedTuple):
    """The setting to run (``row``: its index in the evaluations), those tied with it on quality, and
    why, in words."""

    row: int
    tied: tuple[int, ...]
    evidence: str


def dominates(a: Evaluation, b: Evaluation, goal: Goal) -> bool:
    """Whether `a` is no worse than `b` on quality and cost and clearly better on one."""
    qa, qb, ca, cb = a.measures[goal.quality], b.measures[goal.quality], a.measures[goal.cost], b.measures[goal.cost]
    quality_worse, cost_worse = qa.high < qb.low, ca.low > cb.high
    return not quality_worse and not cost_worse and (qa.low > qb.high or ca.high < cb.low)


def front(evaluations: Sequence[Evaluation], goal: Goal) -> tuple[FrontPoint, ...]:
    """The settings no other dominates, cheapest first, each with those tied with it."""
    scored = [i for i, e in enumerate(evaluations) if _scored(e, goal)]
    on = [i for i in scored if not any(dominates(evaluations[o], evaluations[i], goal) for o in scored if o != i)]
    on.sort(key=lambda i: (evaluations[i].measures[goal.cost].mean, -evaluations[i].measures[goal.quality].mean, i))
    return tuple(FrontPoint(i, tuple(j for j in on if j != i and _tied(evaluations[i], evaluations[j], goal)))
                 for i in on)


def _tied(a: Evaluation, b: Evaluation, goal: Goal) -> bool:
    return (a.measures[goal.quality].overlaps(b.measures[goal.quality])
            and a.measures[goal.cost].overlaps(b.measures[goal.cost]))


def pick(evaluations: Sequence[Evaluation], goal: Goal, default: int | None = None) -> Pick | None:
    """The setting to run (see the module docstring); None without evaluations.

    Args:
        evaluations: the evaluated settings.
        goal: the measures.
        default: the index of the agent's default setting, compared in the evidence.
    """
    pool = _pool(evaluations, goal)
    if not pool:
        return None
    best = max(pool, key=lambda i: (evaluations[i].measures[goal.quality].mean, -i))
    top = evaluations[best].measures[goal.quality]
    tied = [i for i in pool if evaluations[i].measures[goal.quality].overlaps(top)]
    chosen = min(tied, key=lambda i: (evaluations[i].measures[goal.cost].mean,
                                      -evaluations[i].measures[goal.quality].mean, i))
    others = tuple(i for i in tied if i != chosen)
    return Pick(chosen, others, evidence(evaluations, goal, chosen, others, best, default))


def _scored(e: Evaluation, goal: Goal) -> bool:
    """Whether a setting has a quality and a cost to compare (a session set without any needed
    string has no quality)."""
    return not (np.isnan(e.measures[goal.quality].mean) or np.isnan(e.measures[goal.cost].mean))


def _pool(evaluations: Sequence[Evaluation], goal: Goal) -> list[int]:
    scored = [i for i, e in enumerate(evaluations) if _scored(e, goal)]
    if goal.rejected is None or not scored:
        return scored
    rejected = {i: evaluations[i].measures[goal.rejected].mean for i in scored}
    fewest = min(rejected.values())
    return [i for i in scored if rejected[i] == fewest]


__all__ = ["FrontPoint", "Pick", "dominates", "front", "pick"]
