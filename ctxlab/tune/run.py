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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from ctxlab.errors import CtxlabError
from ctxlab.replay.config import DEFAULT_COUNTER
from ctxlab.tune.agents import knobs_for
from ctxlab.tune.evaluate import Evaluator, spec_text
from ctxlab.tune.evidence import written
from ctxlab.tune.halving import HALVING_FROM, halving, halving_result, stratified_order
from ctxlab.tune.measures import Evaluation, Goal, Sample
from ctxlab.tune.sessions import Sessions
from ctxlab.tune.space import GRID_POINTS, Setting, dimensions, setting
from ctxlab.tune.stored import StoreCache, save
from ctxlab.tune.tuner import DEFAULT_TRIALS, SearchResult, grid, search

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
         write: bool = True, halving: bool | None = None, workers: int = 1,
         on_first_pick: Callable[[SearchResult, int], None] | None = None) -> TuneOutcome:
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
        halving: successive halving over sessions (`ctxlab.tune.halving`) instead of evaluating
            every setting on every session; by default from `HALVING_FROM` sessions on.
        workers: without `evaluator`, replay each setting's sessions in this many forked processes
            (`ctxlab.tune.forked`; stopped when the search ends).
        on_first_pick: with halving, called with a first pick as soon as it rests on every session
            beside the default (the leader of the rung before: `ctxlab.tune.halving`), and how many
            other contenders are still being evaluated on every session; the returned result may pick
            one of them instead. Not called when none is left.

    Raises:
        CtxlabError: no sessions, a preset with nothing to tune, an evaluator for another window.
        UnknownNameError: an unknown preset or knob.
    """
    knobs_for(preset)  # an unknown preset, or one without knobs, fails here, named
    if not sessions.items:
        raise CtxlabError("no sessions to tune on (the sources held no conversation)")
    own = evaluator is None
    evaluator = evaluator or Evaluator(sessions, window=window, reference=reference, price_model=price_model,
                                       workers=workers)
    if (evaluator.window, evaluator.price_model) != (window, price_model):
        raise CtxlabError("the evaluator is for another window or price model")
    cache = StoreCache(db, evaluator) if db else None
    before = len(evaluator.pending)
    started = time.perf_counter()
    try:
        if halving if halving is not None else len(sessions) >= HALVING_FROM:
            result = halved(preset, evaluator, window=window, goal=goal(evaluator), knobs=knobs, cache=cache,
                            on_first_pick=on_first_pick)
        else:
            result = search(preset, evaluator, window=window, goal=goal(evaluator), knobs=knobs, trials=trials,
                            method=method, seed=seed, cache=cache, scope=evaluator.scope)
    finally:
        if own:
            evaluator.close()
    seconds = time.perf_counter() - started
    replayed = len(evaluator.pending) - before
    written, search_id = 0, None
    if db and write:
        options = {"knobs": list(knobs) if knobs else None, "trials": trials if result.method != "grid" else None,
                   "seed": seed if result.method != "grid" else None}
        written, search_id = save(db, evaluator, result, options=options, wall_s=seconds)
    return TuneOutcome(result, evaluator, replayed, cache.hits if cache else 0, written, search_id, seconds)


def halved(preset: str, evaluator: Evaluator, *, window: int, goal: Goal, knobs: Sequence[str] | None = None,
           cache: StoreCache | None = None,
           on_first_pick: Callable[[SearchResult, int], None] | None = None) -> SearchResult:
    """`preset`'s grid (the default first) searched by successive halving over the sessions
    (`ctxlab.tune.halving`); a setting stored in `cache` counts as evaluated on every session;
    `on_first_pick` as `tune` says."""
    entry = knobs_for(preset)
    dims = dimensions(entry, window, knobs)
    candidates = [setting(preset, window, {}, evaluator.scope)]
    for numbers in grid(dims, GRID_POINTS):
        candidate = setting(preset, window, numbers, evaluator.scope)
        if not entry.violations(candidate.values) and candidate.key not in {c.key for c in candidates}:
            candidates.append(candidate)
    evaluator.order = stratified_order(evaluator.sessions)

    def objective(candidate: Setting, sessions: int) -> Mapping[str, Sequence[Sample]]:
        stored = cache.get(candidate.key) if cache is not None else None
        if stored is not None:
            return stored
        return evaluator.evaluate(spec_text(preset, candidate.params), candidate.key, candidate, sessions).samples

    searched = tuple(d.name for d in dims)

    def first(evaluations: list[Evaluation], full: list[int], pending: int) -> None:
        assert on_first_pick is not None
        on_first_pick(halving_result(preset, window, goal, evaluations, full, searched), pending)

    calls = [evaluator.sessions.calls_of(i) for i in range(len(evaluator.sessions))]
    evaluations, _, full = halving(candidates, objective, evaluator.order, calls, goal,
                                   on_first=first if on_first_pick is not None else None)
    return halving_result(preset, window, goal, evaluations, full, searched)


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
        row = scored[e.setting.key].row if e.setting.key in scored else outcome.evaluator.partial[e.setting.key].row
        rows.append({"evaluation": i, **knobs, **row, "on_front": i in front,
                     "ties": tuple(front.get(i, ())), "default": i == result.default, "pick": i == pick,
                     "cached": e.cached})
    return pd.DataFrame(rows)


def front_frame(outcome: TuneOutcome) -> pd.DataFrame:
    """The front's settings, cheapest first (the order `ctxlab.tune.pareto.front` gives)."""
    frame = evaluations_frame(outcome)
    return frame.iloc[[p.row for p in outcome.result.front]].reset_index(drop=True)


__all__ = ["QUALITY", "REJECTED", "TuneOutcome", "evaluations_frame", "front_frame", "goal", "tune"]
