"""Calibrating the estimator against what a provider billed, and checking it on held-out deltas.

Each usable delta of the agent logs (`ctxlab.datasets.logs.deltas`) is one observation whose
features are those of its messages and of the thinking its later prompt carries
(`ctxlab.tokens.calibrated.span_features`); thinking whose size the log records in the provider's
tokens (``Span.thinking_tokens``) needs no estimating, so the fit explains the rest of the delta
and every estimate adds it back. Real logs hold deltas that no model of the messages can
explain (content the log does not show, a prompt the agent rewrote), so the fit is robust
(`fit_observations(robust=True)`) and names those deltas as outliers.

A fit always explains its own data; what counts is how it predicts deltas it never saw. The deltas
are put in time order and cut into k contiguous folds; each fold is predicted by a fit on the
others (`heldout_mape`), beside the seed estimators' MAPE on the same deltas (`compare`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ctxlab.datasets.logs.deltas import Span, usable_spans
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.metrics.provider import estimate_span, span_id
from ctxlab.tokens import TokenCounter, get_counter
from ctxlab.tokens.calibrated import CalibratedCounter, Calibration, fit_observations, span_features

FOLDS = 5
MIN_PER_FOLD = 2


class Observations(NamedTuple):
    """Usable deltas in time order: their conversations and spans, features, counts and names;
    ``known`` is the part of each count the log sizes itself (`Span.thinking_tokens`)."""

    pairs: list[tuple[Conversation, Span]]
    rows: list[list[float]]
    actual: list[int]
    labels: list[str]
    known: list[int]

    @property
    def targets(self) -> list[int]:
        """What the features must explain: each count less its known part."""
        return [a - k for a, k in zip(self.actual, self.known, strict=True)]

    def part(self, chosen: slice) -> Observations:
        """The observations `chosen` selects, every field alike (a split by time, a fold)."""
        return Observations(self.pairs[chosen], self.rows[chosen], self.actual[chosen], self.labels[chosen],
                            self.known[chosen])


class Comparison(NamedTuple):
    """MAPE (%) per estimator on the same deltas; the new calibration's in-sample and held out."""

    train: dict[str, float]
    heldout: float | None
    n: int

    def best_seed(self, names: Sequence[str]) -> tuple[str, float]:
        """The estimator among `names` with the lowest MAPE, and that MAPE."""
        name = min((n for n in names if n in self.train), key=self.train.__getitem__)
        return name, self.train[name]


def observations(conversations: Iterable[Conversation], reference: str) -> Observations:
    """The usable deltas of the reference's model(s), in time order (see `time_key`).

    Raises:
        CtxlabError: no usable delta (the message names the models found).
    """
    pairs = sorted(usable_spans(list(conversations), reference), key=time_key)
    rows = [span_features(c.messages[s.start:s.end], s.thinking) for c, s in pairs]
    labels = [f"{c.id} {span_id(s)}" for c, s in pairs]
    return Observations(pairs, rows, [int(s.actual or 0) for _, s in pairs], labels, [s.thinking_tokens for _, s in pairs])


def time_key(pair: tuple[Conversation, Span]) -> tuple[float, str, int]:
    """When a delta happened: its first timestamped message (else the conversation's), then position."""
    conversation, span = pair
    stamps = [m.timestamp for m in conversation.messages[span.start:] if m.timestamp is not None]
    first = stamps[0] if stamps else next((m.timestamp for m in conversation.messages if m.timestamp), 0.0)
    return float(first or 0.0), conversation.id, span.start


def fit_provider_calibration(conversations: Iterable[Conversation] | Observations, reference: str, *,
                             fitted_on: str = "", folds: int = FOLDS) -> Calibration:
    """A robust calibration on the reference's provider deltas, with its k-fold held-out MAPE.

    Args:
        conversations: agent logs with ``meta.provider_calls`` (or their `observations`).
        reference: ``provider:<model>``, or ``provider:*`` for every model pooled.
        fitted_on: a description of the data, stored with the calibration.
        folds: time-ordered folds for `heldout_mape` (fewer when there are few deltas).

    Raises:
        CtxlabError: no usable delta.
    """
    data = conversations if isinstance(conversations, Observations) else observations(conversations, reference)
    fit = fit_observations(data.rows, data.targets, reference, 0, fitted_on, labels=data.labels, robust=True)
    return replace(fit, heldout_mape=heldout_mape(data, folds))


def heldout_mape(data: Observations, folds: int = FOLDS) -> float | None:
    """MAPE (%) of calibrations predicting each time-ordered fold from a fit on the other folds
    (None with fewer than ``2 * MIN_PER_FOLD`` deltas)."""
    n = len(data.actual)
    k = min(folds, n // MIN_PER_FOLD)
    if k < 2:
        return None
    x, y = np.asarray(data.rows, dtype=float), np.asarray(data.actual, dtype=float)
    targets = np.asarray(data.targets, dtype=float)
    errors = np.zeros(n)
    for block in np.array_split(np.arange(n), k):
        train = np.setdiff1d(np.arange(n), block)
        fit = fit_observations(x[train], targets[train], "held-out", 0, robust=True)
        counter = CalibratedCounter(fit)
        errors[block] = [abs(_estimate(counter, *data.pairs[i]) - y[i]) / y[i] for i in block]
    return float(errors.mean() * 100)


def compare(data: Observations, calibration: Calibration, counters: Sequence[str | TokenCounter]) -> Comparison:
    """MAPE (%) of the new calibration (in-sample, ``calibrated (new)``) and of each counter on the
    same deltas, with the calibration's held-out MAPE."""
    estimators = [CalibratedCounter(calibration, "calibrated (new)"), *(get_counter(c) for c in counters)]
    y = np.asarray(data.actual, dtype=float)
    if not len(y):
        raise CtxlabError("no deltas to compare estimators on")
    train = {est.name: float(np.mean([abs(_estimate(est, *p) - a) / a for p, a in zip(data.pairs, y, strict=True)])
                             * 100) for est in estimators}
    return Comparison(train, calibration.heldout_mape, len(y))


def _estimate(counter: TokenCounter, conversation: Conversation, span: Span) -> int:
    return estimate_span(counter, conversation, span)
