"""What an objective reports and what the tuner compares: samples per session, and measures.

An objective reports, per measure, one `Sample` per session (a pooled ratio as ``value`` over
``weight``, such as needed strings kept over needed; a per-session amount with weight 1, such as
tokens sent). `Measure` is their pooled mean with a 95% percentile bootstrap interval, resampling
sessions (`ctxlab.analysis.tables.bootstrap_mean_ci`, seeded: the same samples give the same
interval). One session gives a point interval.

Two settings evaluated on the same sessions are compared by ctxlab's one rule for a tie
(`ctxlab.analysis.ties`): the paired 95% interval over sessions of the difference of their pooled
means; zero inside it is a tie. `ctxlab recommend`, the demo's verdict and the report use the same
function, so they name the same pick and the same ties on the same sessions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ctxlab.analysis.tables import bootstrap_mean_ci
from ctxlab.analysis.ties import Difference, Ratio, difference
from ctxlab.errors import CtxlabError
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


def ratio(evaluation: Evaluation, measure: str) -> Ratio:
    """The per-session samples of `measure` as a `ctxlab.analysis.ties.Ratio`.

    Raises:
        CtxlabError: an evaluation without samples (the paired rule needs them).
    """
    samples = evaluation.samples.get(measure) if evaluation.samples is not None else None
    if samples is None:
        raise CtxlabError(f"{evaluation.setting.key}: no per-session samples of {measure} to compare paired")
    return Ratio.of([s.value for s in samples], [s.weight for s in samples])


def compare(a: Evaluation, b: Evaluation, measure: str) -> Difference:
    """`a` minus `b` on `measure`: the difference of the means and its paired 95% interval over
    sessions (`ctxlab.analysis.ties.difference`).

    Raises:
        CtxlabError: evaluations without samples, or of different numbers of sessions.
    """
    ra, rb = ratio(a, measure), ratio(b, measure)
    if len(ra.value) != len(rb.value):
        raise CtxlabError(f"{a.setting.key} and {b.setting.key} were evaluated on different sessions "
                          f"({len(ra.value)} and {len(rb.value)})")
    return difference(ra, rb)


def tied(a: Evaluation, b: Evaluation, measure: str) -> bool:
    """Whether `a` and `b` tie on `measure` (zero inside the paired interval of their difference)."""
    return compare(a, b, measure).tie


def higher(a: Evaluation, b: Evaluation, measure: str) -> bool:
    """Whether `a` is clearly higher than `b` on `measure` (the whole interval of a - b above zero)."""
    return compare(a, b, measure).low > 0


__all__ = ["Evaluation", "Goal", "Measure", "Sample", "compare", "higher", "ratio", "tied"]
