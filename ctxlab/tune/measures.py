"""What an objective reports and what the tuner compares: samples per session, and measures.

An objective reports, per measure, one `Sample` per session (a pooled ratio as ``value`` over
``weight``, such as needed strings kept over needed; a per-session amount with weight 1, such as
tokens sent). `Measure` is their pooled mean with a 95% percentile bootstrap interval, resampling
sessions (`ctxlab.analysis.tables.bootstrap_mean_ci`, seeded: the same samples give the same
interval). One session gives a point interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ctxlab.analysis.tables import bootstrap_mean_ci
from ctxlab.tune.space import Setting


class Sample(NamedTuple):
    """One session's value of a measure: ``value`` over ``weight`` units (1 for a plain amount)."""

    value: float
    weight: float = 1.0


class Measure(NamedTuple):
    """A measure over sessions: pooled mean and its 95% interval (`low`, `high`)."""

    mean: float
    low: float
    high: float
    sessions: int

    @classmethod
    def of(cls, samples: Sequence[Sample]) -> Measure:
        sums = np.array([s.value for s in samples], float)
        weights = np.array([s.weight for s in samples], float)
        mean, low, high = bootstrap_mean_ci(sums, weights)
        return cls(float(mean), float(low), float(high), len(samples))

    def overlaps(self, other: Measure) -> bool:
        return bool(self.low <= other.high and other.low <= self.high)


class Goal(NamedTuple):
    """The measures to maximize (`quality`) and minimize (`cost`), and optionally the share of
    calls a provider would reject (`rejected`: settings without any come first)."""

    quality: str
    cost: str
    rejected: str | None = None


class Evaluation(NamedTuple):
    """An evaluated setting; ``cached`` when its samples came from the cache."""

    setting: Setting
    measures: Mapping[str, Measure]
    cached: bool = False


__all__ = ["Evaluation", "Goal", "Measure", "Sample"]
