"""The Pareto front of evaluated settings, and the pick with its evidence.

Measures are means with intervals over sessions (`ctxlab.tune.measures`). Ties follow the
grounded-measures issue: two settings are tied on a measure when the interval of their difference
holds zero (`ctxlab.tune.measures.compare`: paired over the sessions both were evaluated on; for
evaluations without samples, when their intervals overlap). A setting is dominated when another
is no worse on quality and cost (tied or better) and clearly better on one; the front is
every setting nothing dominates (a setting without a quality or a cost is left out). The pick: among settings with no rejected call (or, if none, the
fewest), the best quality and every setting tied with it; of those, the cheapest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ctxlab.tune.evidence import evidence
from ctxlab.tune.measures import Evaluation, Goal, higher, tied


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
    """Whether `a` is no worse than `b` on quality and cost and clearly better on one
    (`ctxlab.tune.measures.compare`: paired over sessions when the evaluations carry samples)."""
    quality_worse, cost_worse = higher(b, a, goal.quality), higher(a, b, goal.cost)
    return not quality_worse and not cost_worse and (higher(a, b, goal.quality) or higher(b, a, goal.cost))


def front(evaluations: Sequence[Evaluation], goal: Goal) -> tuple[FrontPoint, ...]:
    """The settings no other dominates, cheapest first, each with those tied with it."""
    scored = [i for i, e in enumerate(evaluations) if _scored(e, goal)]
    on = [i for i in scored if not any(dominates(evaluations[o], evaluations[i], goal) for o in scored if o != i)]
    on.sort(key=lambda i: (evaluations[i].measures[goal.cost].mean, -evaluations[i].measures[goal.quality].mean, i))
    return tuple(FrontPoint(i, tuple(j for j in on if j != i and _tied(evaluations[i], evaluations[j], goal)))
                 for i in on)


def _tied(a: Evaluation, b: Evaluation, goal: Goal) -> bool:
    return tied(a, b, goal.quality) and tied(a, b, goal.cost)


def pick(evaluations: Sequence[Evaluation], goal: Goal, default: int | None = None) -> Pick | None:
    """The setting to run (see the module docstring); None without evaluations.

    Args:
        evaluations: the evaluated settings.
        goal: the measures.
        default: the index of the agent's default setting, compared in the evidence.
    """
    level = contenders(evaluations, goal)
    if not level:
        return None
    best = level[0]
    chosen = min(level, key=lambda i: (evaluations[i].measures[goal.cost].mean,
                                       -evaluations[i].measures[goal.quality].mean, i))
    others = tuple(i for i in level if i != chosen)
    return Pick(chosen, others, evidence(evaluations, goal, chosen, others, best, default))


def contenders(evaluations: Sequence[Evaluation], goal: Goal,
               same: Callable[[Evaluation, Evaluation, str], bool] = tied) -> list[int]:
    """The settings the pick chooses among: the best quality (first) and every setting `same` as it
    on quality (paired tie by default), among those with the fewest rejected calls; empty without a
    scored setting."""
    pool = _pool(evaluations, goal)
    if not pool:
        return []
    best = max(pool, key=lambda i: (evaluations[i].measures[goal.quality].mean, -i))
    return [best, *(i for i in pool if i != best and same(evaluations[i], evaluations[best], goal.quality))]


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


__all__ = ["FrontPoint", "Pick", "contenders", "dominates", "front", "pick"]
