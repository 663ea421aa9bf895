"""Search a preset's knobs: a grid for up to two, an optimizer beyond; the front and the pick.

`search` evaluates the preset's default setting first (the agent's default, except where the
knob table notes otherwise, as for LangChain's summarization trigger), then either every point of the grid (`ctxlab.tune.space.GRID_POINTS`
per knob, settings the source forbids skipped) or `trials` settings proposed by optuna's seeded
multi-objective TPE sampler (`ctxlab.tune.optimize`). Every evaluation is kept, in order; the
result carries the front and the pick (`ctxlab.tune.pareto`).

The objective is any callable that replays a `Setting` over the sessions and returns, per
measure name, one `ctxlab.tune.measures.Sample` per session. A cache (`EvaluationCache`) keyed
by `Setting.key` lets a rerun reuse stored evaluations: a hit skips the objective. `MemoryCache`
keeps them in a dict; the store can provide its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Protocol

from ctxlab.errors import CtxlabError
from ctxlab.strategies import get_strategy
from ctxlab.tune.agents import knobs_for
from ctxlab.tune.measures import Evaluation, Goal, Measure, Sample
from ctxlab.tune.pareto import FrontPoint, Pick, front, pick
from ctxlab.tune.space import GRID_POINTS, Dimension, Setting, dimensions, setting

DEFAULT_TRIALS = 40
MAX_GRID_KNOBS = 2
Samples = Mapping[str, Sequence[Sample]]


class Objective(Protocol):
    """Evaluates a setting: per measure name, one sample per session."""

    def __call__(self, setting: Setting) -> Samples: ...


class EvaluationCache(Protocol):
    """Stored samples by setting key (`ctxlab.tune.space.Setting.key`)."""

    def get(self, key: str) -> Samples | None: ...

    def put(self, key: str, samples: Samples) -> None: ...


class MemoryCache:
    """An `EvaluationCache` in a dict (one process; a store-backed one survives it)."""

    def __init__(self) -> None:
        self.entries: dict[str, Samples] = {}

    def get(self, key: str) -> Samples | None:
        return self.entries.get(key)

    def put(self, key: str, samples: Samples) -> None:
        self.entries[key] = samples

    def __len__(self) -> int:
        return len(self.entries)


class SearchResult(NamedTuple):
    """Every evaluated setting (the default first), the front, the pick and how they were searched."""

    preset: str
    window: int
    method: str
    goal: Goal
    evaluations: tuple[Evaluation, ...]
    front: tuple[FrontPoint, ...]
    pick: Pick | None
    default: int = 0
    searched: tuple[str, ...] = ()  # the knobs the search moved (the others stay at the preset's values)


def search(preset: str, objective: Objective, *, window: int, goal: Goal, knobs: Sequence[str] | None = None,
           trials: int = DEFAULT_TRIALS, grid_points: int = GRID_POINTS, method: str = "auto", seed: int = 0,
           cache: EvaluationCache | None = None, scope: str = "") -> SearchResult:
    """Search `preset`'s knobs at `window` tokens.

    Args:
        preset: a preset with knobs (`ctxlab.tune.agents.tunable`).
        objective: evaluates a setting (see the module docstring).
        window: the context window (tokens) the settings are for.
        goal: which measures are quality, cost and (optionally) rejected calls.
        knobs: the knobs to search (agent names; default every searchable one).
        trials: settings the optimizer proposes (cache hits included; the grid ignores it).
        grid_points: values per knob on the grid.
        method: ``grid``, ``optuna``, or ``auto`` (grid for up to two knobs).
        seed: the optimizer's seed.
        cache: stored evaluations to reuse and to add to.
        scope: what else the objective depends on (sessions, price model), part of every key.

    Raises:
        CtxlabError: a method that cannot run, an objective missing a goal measure, or a
            setting the preset rejects.
        UnknownNameError: an unknown preset or knob.
    """
    entry = knobs_for(preset)
    dims = dimensions(entry, window, knobs)
    chosen = _method(method, dims)
    run = _Run(objective, goal, cache)
    run.evaluate(setting(preset, window, {}, scope))
    if chosen == "grid":
        for numbers in grid(dims, grid_points):
            candidate = setting(preset, window, numbers, scope)
            if not entry.violations(candidate.values):
                run.evaluate(candidate)
    else:
        from ctxlab.tune.optimize import optimize

        optimize(dims, lambda numbers: _proposal(run, entry.violations, preset, window, numbers, scope),
                 trials=trials, seed=seed)
    evaluations = tuple(run.evaluations)
    return SearchResult(preset, window, chosen, goal, evaluations, front(evaluations, goal),
                        pick(evaluations, goal, default=0), searched=tuple(d.name for d in dims))


def _method(method: str, dims: Sequence[Dimension]) -> str:
    if method not in ("auto", "grid", "optuna"):
        raise CtxlabError(f"unknown search method {method!r} (valid: auto, grid, optuna)")
    if method == "auto":
        return "grid" if len(dims) <= MAX_GRID_KNOBS else "optuna"
    return method


def grid(dims: Sequence[Dimension], points: int) -> list[dict[str, float]]:
    combos: list[dict[str, float]] = [{}]
    for dim in dims:
        combos = [{**combo, dim.name: x} for combo in combos for x in dim.grid(points)]
    return combos


def _proposal(run: _Run, violations: Callable[[Mapping[str, object]], list[str]], preset: str, window: int,
              numbers: Mapping[str, float], scope: str) -> tuple[float, float] | None:
    """An optimizer proposal evaluated: (quality, cost) means, None when the source forbids it."""
    candidate = setting(preset, window, numbers, scope)
    if violations(candidate.values):
        return None
    measures = run.evaluate(candidate).measures
    return measures[run.goal.quality].mean, measures[run.goal.cost].mean


class _Run:
    """The evaluations of one search, by key: a setting proposed twice is evaluated once."""

    def __init__(self, objective: Objective, goal: Goal, cache: EvaluationCache | None) -> None:
        self.objective, self.goal, self.cache = objective, goal, cache
        self.evaluations: list[Evaluation] = []
        self.by_key: dict[str, Evaluation] = {}

    def evaluate(self, candidate: Setting) -> Evaluation:
        if candidate.key in self.by_key:
            return self.by_key[candidate.key]
        stored = self.cache.get(candidate.key) if self.cache is not None else None
        samples = stored if stored is not None else self._run(candidate)
        evaluation = Evaluation(candidate, self._measures(samples, candidate), cached=stored is not None,
                                samples=samples)
        self.evaluations.append(evaluation)
        self.by_key[candidate.key] = evaluation
        return evaluation

    def _run(self, candidate: Setting) -> Samples:
        get_strategy(candidate.preset, **candidate.params)  # a setting the preset rejects fails here, named
        samples = self.objective(candidate)
        if self.cache is not None:
            self.cache.put(candidate.key, samples)
        return samples

    def _measures(self, samples: Samples, candidate: Setting) -> dict[str, Measure]:
        needed = [m for m in (self.goal.quality, self.goal.cost, self.goal.rejected) if m is not None]
        missing = [m for m in needed if m not in samples]
        if missing:
            raise CtxlabError(f"the objective returned no {', '.join(missing)} for {candidate.key}")
        return {name: Measure.of(values) for name, values in samples.items()}


__all__ = ["DEFAULT_TRIALS", "EvaluationCache", "MAX_GRID_KNOBS", "MemoryCache", "Objective", "SearchResult",
           "grid", "search"]
