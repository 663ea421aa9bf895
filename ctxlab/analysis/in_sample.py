"""A learned policy is never judged on the sessions it was fitted on.

A need model records the sessions it was fitted on (``about.trained_on``, written by `ctxlab learn`
as ``source (conversation id)``). Where the sessions a verdict pools include any of them, that
policy is shown but does not compete: its numbers there are in-sample. The shipped model was
fitted on the bundled agent sessions and ../shared/reallogs, so on those it never competes.
Sessions are matched by conversation id (the source path differs by where a log is read from);
a coincidence of ids errs towards not judging.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.registry import parse_spec
from ctxlab.strategies import get_strategy
from ctxlab.strategies.spec import STRATEGIES


def fitted_here(labels: Iterable[str], conversation_ids: Iterable[str]) -> tuple[str, ...]:
    """The `labels` whose need model was fitted on any of `conversation_ids`, in their order."""
    judged = {str(c) for c in conversation_ids}
    return tuple(label for label in labels if judged & fitted_on(label))


def fitted_on(label: str) -> frozenset[str]:
    """The conversation ids the model of the policy `label` was fitted on (none without a model,
    or when its model file cannot be read here)."""
    name, params = parse_spec(label)
    if name not in STRATEGIES or not hasattr(STRATEGIES.get(name), "need_model"):
        return frozenset()  # only a policy with a need model is fitted on sessions
    try:
        strategy: Any = get_strategy(name, **params)  # a learned policy: it has the model
        model = strategy.need_model
    except (CtxlabError, ValueError, TypeError):
        return frozenset()
    return frozenset(_conversation_id(s) for s in model.about.get("trained_on", ()))


def _conversation_id(session: str) -> str:
    """``source (id)`` -> ``id`` (an id may itself hold parentheses: the last `` (`` splits)."""
    head, sep, tail = str(session).rpartition(" (")
    return tail[:-1] if sep and tail.endswith(")") else str(session)


__all__ = ["fitted_here", "fitted_on"]
