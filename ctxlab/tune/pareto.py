"""The Pareto front of evaluated settings, and the pick with its evidence.

Measures are means with intervals over sessions (`ctxlab.tune.measures`). Two settings are tied on
a measure by ctxlab's one rule (`ctxlab.analysis.ties`): zero inside the paired interval over
sessions of their difference. A setting is dominated when another is no worse on quality and cost
(tied or better) and clearly better on one; the front is every setting nothing dominates (a
setting without a quality or a cost is left out). The pick is `ctxlab.analysis.ties.choose`, the
function `ctxlab recommend` picks with: among settings with no rejected call (or, if every setting
has some, those tied with the fewest), the best quality and every setting tied with it; of those,
the cheapest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ctxlab.analysis.ties import Ratio, choose, contest
from ctxlab.tune.evidence import evidence
from ctxlab.tune.measures import Evaluation, Goal, higher, ratio, tied


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
    chosen = choose([_ratio(e, goal, goal.quality) for e in evaluations],
                    [e.measures[goal.cost].mean for e in evaluations],
                    [_ratio(e, goal, goal.rejected) for e in evaluations])
    if chosen is None:
        return None
    others = tuple(i for i in chosen.level if i != chosen.run)
    return Pick(chosen.run, others, evidence(evaluations, goal, chosen.run, others, chosen.best, default))


def _ratio(e: Evaluation, goal: Goal, measure: str | None) -> Ratio:
    """A measure's per-session samples; a setting without a quality (no needed string) reads as NaN,
    and every setting as no rejected call when the goal counts none."""
    if measure is None:
        return Ratio.of([0.0])
    return ratio(e, measure) if _scored(e, goal) else Ratio.of([np.nan], [1.0])


def contenders(evaluations: Sequence[Evaluation], goal: Goal,
               same: Callable[[Evaluation, Evaluation, str], bool] = tied) -> list[int]:
    """The settings the pick chooses among (`ctxlab.analysis.ties.contest`): the best quality
    (first) and every one `same` as it on quality, among those that compete on rejected calls by
    the same test (the paired tie by default, as `pick`; `ctxlab.tune.halving` passes a wider
    one); empty without a scored setting."""
    rejected = [e.measures[goal.rejected].mean if goal.rejected else 0.0 for e in evaluations]
    found = contest([e.measures[goal.quality].mean for e in evaluations],
                    [e.measures[goal.cost].mean for e in evaluations], rejected,
                    lambda i, j: goal.rejected is not None and same(evaluations[i], evaluations[j], goal.rejected))
    if found is None:
        return []
    pool, best = found
    return [best, *(i for i in pool if i != best and same(evaluations[i], evaluations[best], goal.quality))]


def _scored(e: Evaluation, goal: Goal) -> bool:
    """Whether a setting has a quality and a cost to compare (a session set without any needed
    string has no quality)."""
    return not (np.isnan(e.measures[goal.quality].mean) or np.isnan(e.measures[goal.cost].mean))


__all__ = ["FrontPoint", "Pick", "contenders", "dominates", "front", "pick"]
