"""Fitting the need model: a standardized logistic regression (scikit-learn), seeded, written as JSON.

Why a logistic regression rather than gradient-boosted trees (LightGBM): a user has few long
sessions (the shared real logs have one long session on the training side of a time split), and
a linear model over a score of history-only features generalizes from them where trees memorize;
its coefficients on standardized features are the importances `docs/learned.md` shows; and the
fitted model is a mean, a scale and a coefficient per feature and an intercept, so the policy
scores outputs with a dot product in plain Python, no library at inference and nothing to execute
when a shared file is read (`ctxlab.strategies.mechanics.need_model`). lbfgs is deterministic; `SEED` fixes the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from ctxlab.errors import CtxlabError
from ctxlab.learn.examples import Examples
from ctxlab.strategies.mechanics.need import FEATURES
from ctxlab.strategies.mechanics.need_model import NeedModel

SEED = 0
C = 1.0  # L2 strength (scikit-learn's default): the features are few and standardized


class Ranking(NamedTuple):
    """How well a score ranks outputs by need on some examples: ROC AUC of the model and of recency
    alone (newest first), and the examples' count and positive share."""

    auc: float | None
    recency_auc: float | None
    examples: int
    positive: float


def fit_model(examples: Examples, about: Mapping[str, Any]) -> NeedModel:
    """Fit the model on `examples`; `about` is recorded in the file (label, horizon, sessions).

    Raises:
        CtxlabError: no example, or labels of one value only (nothing to tell apart).
    """
    from sklearn.linear_model import LogisticRegression

    x, y = np.asarray(examples.rows, float), np.asarray(examples.labels, int)
    if len(y) == 0 or y.min() == y.max():
        kind = "no old tool output" if len(y) == 0 else f"only {'positive' if len(y) and y[0] else 'negative'} labels"
        raise CtxlabError(f"nothing to learn from: the training sessions give {kind} (they need no string an old "
                          "tool output alone holds); give more or longer sessions")
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    model = LogisticRegression(C=C, max_iter=2000, random_state=SEED).fit((x - mean) / scale, y)
    return NeedModel(FEATURES, tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, model.coef_[0])),
                     float(model.intercept_[0]), dict(about))


def ranking(model: NeedModel, examples: Examples) -> Ranking:
    """The model's ROC AUC on `examples` beside recency's (None where one label only)."""
    from sklearn.metrics import roc_auc_score

    y = np.asarray(examples.labels, int)
    if len(y) == 0:
        return Ranking(None, None, 0, 0.0)
    if y.min() == y.max():
        return Ranking(None, None, len(y), float(y.mean()))
    age = FEATURES.index("age_calls")
    recency = -np.asarray(examples.rows, float)[:, age]
    return Ranking(float(roc_auc_score(y, model.predict(examples.rows))), float(roc_auc_score(y, recency)), len(y),
                   float(y.mean()))


def importances(model: NeedModel) -> list[tuple[str, float]]:
    """Each feature's coefficient on the standardized scale, largest effect first."""
    return sorted(zip(model.features, model.coef, strict=True), key=lambda pair: -abs(pair[1]))


__all__ = ["C", "SEED", "Ranking", "fit_model", "importances", "ranking"]
