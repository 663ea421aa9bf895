"""The optimizer behind `ctxlab.tune.tuner` for more than two knobs: optuna's TPE sampler, seeded,
on two objectives (maximize quality, minimize cost), so its proposals spread along the front.

TPE rather than NSGA-II: with tens of trials NSGA-II (population 50 by default) would
not finish its first generation, while TPE models the trials so far from its tenth on. Each knob
is suggested on its step (``suggest_int``/``suggest_float`` with ``step``), so a proposal is a
setting the grid could name and the cache can recognise. A proposal the agent's source forbids
(a constraint between knobs) is pruned; it counts as a trial. Trials run one at a time,
so the same seed and objective give the same proposals.

optuna is imported here only (0.25-0.45 s on these machines), when a search needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ctxlab.tune.space import Dimension

Score = Callable[[Mapping[str, float]], "tuple[float, float] | None"]


def optimize(dims: Sequence[Dimension], score: Score, *, trials: int, seed: int) -> None:
    """Run `trials` optuna trials over `dims`.

    Args:
        dims: the knobs, with their spans and steps.
        score: evaluates a proposal (knob name -> number) to (quality, cost); None when the agent's
            source forbids it.
        trials: the number of trials, pruned ones included.
        seed: the sampler's seed.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(directions=["maximize", "minimize"], sampler=optuna.samplers.TPESampler(seed=seed))

    def objective(trial: Any) -> tuple[float, float]:
        result = score({d.name: _suggest(trial, d) for d in dims})
        if result is None:
            raise optuna.TrialPruned("a setting the agent's source forbids")
        return result

    study.optimize(objective, n_trials=trials)


def _suggest(trial: Any, dim: Dimension) -> float:
    if dim.knob.kind == "int":
        return float(trial.suggest_int(dim.name, int(dim.low), int(dim.high), step=max(1, int(dim.knob.step))))
    return float(trial.suggest_float(dim.name, dim.low, dim.high, step=dim.knob.step or None))


__all__ = ["Score", "optimize"]
