"""What an objective reports and what the tuner compares: samples per session, and measures.

An objective reports, per measure, one `Sample` per session (a pooled ratio as ``value`` over
``weight``, such as needed strings kept over needed; a per-session amount with weight 1, such as
tokens sent). `Measure` is their pooled mean with a 95% percentile bootstrap interval, resampling
sessions (`ctxlab.analysis.tables.bootstrap_mean_ci`, seeded: the same samples give the same
interval). One session gives a point interval.

Two settings evaluated on the same sessions are compared *paired* (`compare`): the interval is
that of the difference of their pooled means, resampling sessions together, so a difference that
every session shows is not lost in how much the sessions differ from each other (on real logs the
sessions' costs span three orders of magnitude, and unpaired intervals of every setting overlap).
Zero inside that interval is a tie. Without samples (or on different sessions) the measures'
own intervals are compared: overlapping intervals tie.
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
    """An evaluated setting; ``cached`` when its samples came from the cache; ``samples`` per
    measure, one per session (for paired comparisons)."""

    setting: Setting
    measures: Mapping[str, Measure]
    cached: bool = False
    samples: Mapping[str, Sequence[Sample]] | None = None


_N_BOOT = 1000
_MAX_SESSIONS = 4000  # above this, a normal approximation of the per-session differences
_INDICES: dict[int, np.ndarray] = {}


def compare(a: Evaluation, b: Evaluation, measure: str) -> tuple[float, float, float]:
    """`a` minus `b` on `measure`: the difference of the means and its 95% interval, paired over
    sessions when both carry samples of the same sessions (see the module docstring), else the
    widest difference the two intervals allow (``a.low - b.high`` .. ``a.high - b.low``)."""
    ma, mb = a.measures[measure], b.measures[measure]
    sa, sb = (e.samples.get(measure) if e.samples is not None else None for e in (a, b))
    if sa is None or sb is None or len(sa) != len(sb) or len(sa) < 2:
        return ma.mean - mb.mean, ma.low - mb.high, ma.high - mb.low
    av, aw, bv, bw = (np.array([getattr(x, f) for x in side], float) for side in (sa, sb) for f in ("value", "weight"))
    k = len(av)
    if k > _MAX_SESSIONS:
        diff = av / np.maximum(aw, 1e-12) - bv / np.maximum(bw, 1e-12)
        half = 1.96 * diff.std(ddof=1) / np.sqrt(k)
        return ma.mean - mb.mean, ma.mean - mb.mean - half, ma.mean - mb.mean + half
    idx = _indices(k)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = av[idx].sum(axis=1) / aw[idx].sum(axis=1) - bv[idx].sum(axis=1) / bw[idx].sum(axis=1)
    boot = boot[np.isfinite(boot)]
    if not len(boot):
        return ma.mean - mb.mean, np.nan, np.nan
    low, high = np.quantile(boot, [0.025, 0.975])
    return ma.mean - mb.mean, float(low), float(high)


def _indices(k: int) -> np.ndarray:
    """The resampled session indices for `k` sessions (seeded, shared by every comparison)."""
    if k not in _INDICES:
        _INDICES[k] = np.random.default_rng(0).integers(0, k, size=(_N_BOOT, k))
    return _INDICES[k]


def tied(a: Evaluation, b: Evaluation, measure: str) -> bool:
    """Whether `a` and `b` tie on `measure` (zero inside the interval of their difference)."""
    _, low, high = compare(a, b, measure)
    return not (low > 0 or high < 0)


def higher(a: Evaluation, b: Evaluation, measure: str) -> bool:
    """Whether `a` is clearly higher than `b` on `measure` (the whole interval of a - b above zero)."""
    return compare(a, b, measure)[1] > 0


__all__ = ["Evaluation", "Goal", "Measure", "Sample", "compare", "higher", "tied"]
