"""The one rule for a tie, and the pick it decides: every face that names a winner uses it
(`ctxlab recommend` and ``--vs-anchors``, `ctxlab tune`, the demo's verdict, the report, the
dashboard's pages, the notebooks).

Two policies (or settings) measured on the same sessions are compared *paired*: each bootstrap
resample of the sessions gives the difference of their pooled values (a ratio such as needed
strings kept over needed, or an amount such as tokens sent, weight 1 per session), so a
difference every session shows is not lost in how much the sessions differ from each other (on
real logs their costs span three orders of magnitude). Zero inside the 95% percentile interval of
the difference is a **tie**; a whole interval above zero is clearly higher. A read-off between two
settings (`ctxlab.analysis.dominance`) is a weighted sum of ratios: `paired` takes any linear
combination, resampled together.

Sessions where every compared ratio has weight 0 (nothing needed there) say nothing and are left
out, as in `ctxlab.analysis.tables.bootstrap_mean_ci`. Resamples are seeded and shared by every
comparison of k sessions, so the same samples give the same verdict. One session gives a point
difference; above `MAX_SESSIONS` a normal approximation of the per-session differences stands in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

N_BOOT = 1000
MAX_SESSIONS = 4000
_INDICES: dict[int, np.ndarray] = {}


class Ratio(NamedTuple):
    """Per session (aligned by position across the ratios compared): summed values and the units
    they are over (1 per session for a plain amount)."""

    value: np.ndarray
    weight: np.ndarray

    @classmethod
    def of(cls, value: Sequence[float] | np.ndarray, weight: Sequence[float] | np.ndarray | None = None) -> Ratio:
        """A ratio from per-session values and weights (all 1 when None)."""
        v = np.asarray(value, float)
        return cls(v, np.ones_like(v) if weight is None else np.asarray(weight, float))

    @property
    def mean(self) -> float:
        """The pooled value: total over total weight (NaN without weight)."""
        total = self.weight.sum()
        return float(self.value.sum() / total) if total else float("nan")


class Difference(NamedTuple):
    """A difference of pooled values and its paired 95% interval."""

    mean: float
    low: float
    high: float

    @property
    def tie(self) -> bool:
        """Zero inside the interval (an undefined interval is a tie: nothing tells them apart)."""
        return not (self.low > 0 or self.high < 0)


def paired(terms: Sequence[tuple[float, Ratio]]) -> Difference:
    """The sum of coefficient x pooled ratio over `terms`, with its paired 95% interval (the
    sessions resampled together; see the module docstring)."""
    coefs = np.array([c for c, _ in terms], float)
    values = np.stack([r.value for _, r in terms])
    weights = np.stack([r.weight for _, r in terms])
    keep = (weights > 0).any(axis=0)
    values, weights = values[:, keep], weights[:, keep]
    mean = _combine(coefs, values.sum(axis=1), weights.sum(axis=1))
    k = values.shape[1]
    if k < 2:
        return Difference(mean, mean, mean)
    if k > MAX_SESSIONS:
        per = coefs @ (values / np.maximum(weights, 1e-12))
        half = 1.96 * per.std(ddof=1) / np.sqrt(k)
        return Difference(mean, mean - half, mean + half)
    idx = _indices(k)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = coefs @ (values[:, idx].sum(axis=2) / weights[:, idx].sum(axis=2))
    boot = boot[np.isfinite(boot)]
    if not len(boot):
        return Difference(mean, np.nan, np.nan)
    low, high = np.quantile(boot, [0.025, 0.975])
    return Difference(mean, float(low), float(high))


def _combine(coefs: np.ndarray, sums: np.ndarray, totals: np.ndarray) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(coefs @ (sums / totals))


def _indices(k: int) -> np.ndarray:
    """The resampled session indices for `k` sessions (seeded, shared by every comparison)."""
    if k not in _INDICES:
        _INDICES[k] = np.random.default_rng(0).integers(0, k, size=(N_BOOT, k))
    return _INDICES[k]


def difference(a: Ratio, b: Ratio) -> Difference:
    """`a` minus `b`, paired over their sessions."""
    return paired(((1.0, a), (-1.0, b)))


def tied(a: Ratio, b: Ratio) -> bool:
    """Whether `a` and `b` tie: zero inside the paired interval of their difference."""
    return difference(a, b).tie


def higher(a: Ratio, b: Ratio) -> bool:
    """Whether `a` is clearly higher than `b`: the whole paired interval of ``a - b`` above zero."""
    return difference(a, b).low > 0


def contest(quality: Sequence[float], cost: Sequence[float], rejected: Sequence[float],
            same: Callable[[int, int], bool]) -> tuple[tuple[int, ...], int] | None:
    """Who competes in `choose` and the best of them by pooled `quality`; None when no candidate
    has a quality and a cost.

    Of the candidates with both, those with no rejected call (`rejected`: their share) compete when
    there are any: a rejected call is a request a provider answers with an error. Otherwise the one
    with the fewest competes with every candidate `same` as it on rejected calls (positions; a tie
    by the one rule in `choose`), so a call or two of noise does not outweigh the rest.
    """
    scored = [i for i, q in enumerate(quality) if not (np.isnan(q) or np.isnan(cost[i]))]
    if not scored:
        return None
    fewest = min(scored, key=lambda i: (rejected[i], i))
    if rejected[fewest] == 0:
        pool = tuple(i for i in scored if rejected[i] == 0)
    else:
        pool = tuple(i for i in scored if i == fewest or same(i, fewest))
    return pool, min(pool, key=lambda i: (-quality[i], cost[i], i))


class Choice(NamedTuple):
    """What `choose` decided, as positions in its inputs: the one to run, the best quality, those
    tied with the best on quality (the best included), and those that competed."""

    run: int
    best: int
    level: tuple[int, ...]
    pool: tuple[int, ...]


def choose(quality: Sequence[Ratio], cost: Sequence[float], rejected: Sequence[Ratio]) -> Choice | None:
    """The one to run: among the candidates that compete (`contest`: none rejected, when some
    candidate has no rejected call, else those tied with the fewest on the share of calls rejected,
    `rejected`), the best pooled quality and every candidate tied with it (`tied`); of those, the
    cheapest (lowest `cost`). Candidates without a quality or a cost are left out; None when none
    is left.

    Ties between equal numbers go to higher quality, then lower cost, then the earlier position.
    """
    found = contest([q.mean for q in quality], cost, [r.mean for r in rejected],
                    lambda i, j: tied(rejected[i], rejected[j]))
    if found is None:
        return None
    pool, best = found
    level = tuple(i for i in pool if i == best or tied(quality[i], quality[best]))
    run = min(level, key=lambda i: (cost[i], -quality[i].mean, i))
    return Choice(run, best, level, pool)


__all__ = ["MAX_SESSIONS", "N_BOOT", "Choice", "Difference", "Ratio", "choose", "contest", "difference", "higher", "paired",
           "tied"]
