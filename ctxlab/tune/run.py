"""`ctxlab tune` as a function: search a preset's knobs over sessions at a window, score every
setting by the grounded measures and effective cost, store the evaluations, and lay them out.

    sessions = Sessions.load(["~/.claude/projects/my-repo"])
    outcome = tune(sessions, "pi", window=64_000, price_model="claude-sonnet-4-5", db="ctxlab.duckdb")
    table = evaluations_frame(outcome)          # one row per evaluated setting: knobs, measures, front, pick

The objective is `ctxlab.tune.evaluate.Evaluator` (the replay's own per-unit code; each setting's
numbers are those of ``ctxlab recommend --strategy <its spec>``); the goal is needed-context
recall against effective cost (dollars with prompt caching plus refetch when a price model is
given, else tokens sent plus refetch), settings without rejected calls (orphaned or over the
window) first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import pandas as pd

from ctxlab.errors import CtxlabError
from ctxlab.replay.config import DEFAULT_COUNTER
from ctxlab.tune.agents import knobs_for
from ctxlab.tune.evaluate import Evaluator
from ctxlab.tune.evidence import written
from ctxlab.tune.measures import Goal
from ctxlab.tune.sessions import Sessions
from ctxlab.tune.stored import StoreCache, save
from ctxlab.tune.tuner import DEFAULT_TRIALS, SearchResult, search

QUALITY = "needed_recall"
REJECTED = "rejected"


class TuneOutcome(NamedTuple):
    """A search with what it took: settings replayed now and read back, runs written, its id."""

    result: SearchResult
    evaluator: Evaluator
    replayed: int
    reused: int
    written: int
    search_id: str | None
    seconds: float


def goal(evaluator: Evaluator) -> Goal:
    """Needed recall against the evaluator's effective cost, rejected calls first."""
    return Goal(QUALITY, evaluator.cost, REJECTED)


def tune(sessions: Sessions, preset: str, *, window: int, price_model: str | None = None,
         reference: str = DEFAULT_COUNTER, knobs: Sequence[str] | None = None, trials: int = DEFAULT_TRIALS,
         method: str = "auto", seed: int = 0, db: str | None = None, evaluator: Evaluator | None = None,
         write: bool = True) -> TuneOutcome:
    """Search `preset`'s knobs over `sessions` at `window` tokens.

    Args:
        sessions: the sessions (`Sessions.load`).
        preset: a registered preset with knobs (`ctxlab.tune.tunable`).
        window: the context window (tokens).
        price_model: bill calls by this litellm model with prompt caching (the cost is then dollars).
        reference: the tokenizer that counts what is sent.
        knobs: the knobs to search (the agent's names; default every searchable one).
        trials: the optimizer's budget beyond two knobs.
        method: ``auto``, ``grid`` or ``optuna``.
        seed: the optimizer's seed.
        db: the store: stored evaluations are reused, new ones written after the search.
        evaluator: an evaluator to reuse (its evaluations are kept across searches).
        write: with `db`, write the new evaluations and the search's record.

    Raises:
        CtxlabError: no sessions, a preset with nothing to tune, an evaluator for another window.
        UnknownNameError: an unknown preset or knob.
    """
    knobs_for(preset)  # an unknown preset, or one without knobs, fails here, named
    if not sessions.items:
        raise CtxlabError("no sessions to tune on (the sources held no conversation)")
    evaluator = evaluator or Evaluator(sessions, window=window, reference=reference, price_model=price_model)
    if (evaluator.window, evaluator.price_model) != (window, price_model):
        raise CtxlabError("the evaluator is for another window or price model")
    cache = StoreCache(db, evaluator) if db else None
    before = len(evaluator.pending)
    started = time.perf_counter()
    result = search(preset, evaluator, window=window, goal=goal(evaluator), knobs=knobs, trials=trials, method=method,
                    seed=seed, cache=cache, scope=evaluator.scope)
    seconds = time.perf_counter() - started
    replayed = len(evaluator.pending) - before
    written, search_id = 0, None
    if db and write:
        options = {"knobs": list(knobs) if knobs else None, "trials": trials if result.method != "grid" else None,
                   "seed": seed if result.method != "grid" else None}
        written, search_id = save(db, evaluator, result, options=options, wall_s=seconds)
    return TuneOutcome(result, evaluator, replayed, cache.hits if cache else 0, written, search_id, seconds)


def evaluations_frame(outcome: TuneOutcome) -> pd.DataFrame:
    """One row per evaluated setting, in search order: ``evaluation``, each knob as the agent writes
    it, the setting's `ctxlab.analysis.recommend.frontier` columns (``label`` is its spec), and
    ``on_front``, ``ties`` (evaluations tied with it on both axes), ``default`` and ``pick``."""
    result, scored = outcome.result, outcome.evaluator.scored
    front = {p.row: p.ties for p in result.front}
    pick = result.pick.row if result.pick is not None else None
    rows: list[dict[str, Any]] = []
    for i, e in enumerate(result.evaluations):
        knobs = {name: written(value) for name, value in e.setting.values.items()}
        rows.append({"evaluation": i, **knobs, **scored[e.setting.key].row, "on_front": i in front,
                     "ties": tuple(front.get(i, ())), "default": i == result.default, "pick": i == pick,
                     "cached": e.cached})
    return pd.DataFrame(rows)


def front_frame(outcome: TuneOutcome) -> pd.DataFrame:
    """The front's settings, cheapest first (the order `ctxlab.tune.pareto.front` gives)."""
    frame = evaluations_frame(outcome)
    return frame.iloc[[p.row for p in outcome.result.front]].reset_index(drop=True)


__all__ = ["QUALITY", "REJECTED", "TuneOutcome", "evaluations_frame", "front_frame", "goal", "tune"]
