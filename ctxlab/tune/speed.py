"""How fast a knob change answers: the live tuner's measurement behind ``ctxlab bench``.

A knob change re-evaluates one setting over the chosen sessions (`ctxlab.tune.evaluate.Evaluator`),
with what no setting changes already kept per session (counts, needs: built once, timed apart as
the cold start). For a preset in the knob table, the changes walk its grid (the diagonal for
more than two knobs: every knob moves at once), over the knobs with something to search at the
window (a knob whose span starts above the window stays at the preset's value); a policy without
agent knobs, or none searchable at this window, moves the one knob every policy has, the window.
Each change is a setting not evaluated before, so nothing is read from a cache. Wall time and CPU
time are both reported: the evaluation runs in one thread, so on an idle machine they agree; on a
shared machine wall time grows with the others' load, CPU time does not.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.strategies.policy.knobs import Tuning
from ctxlab.tune.agents import knobs_for, tunable
from ctxlab.tune.evaluate import Evaluator, spec_text
from ctxlab.tune.live import LiveTuner
from ctxlab.tune.sessions import Sessions
from ctxlab.tune.space import Dimension, dimensions, setting

GOAL_S = 2.0  # the bar: a knob change answers in 2 s or less (median)
CHANGES = 5
WINDOW_STEPS = (0.6, 0.7, 0.8, 0.9, 1.1)  # a policy without agent knobs: these shares of the window


class Timing(NamedTuple):
    """The knob changes of one policy: how many, and wall / CPU seconds (median, p90, slowest)."""

    policy: str
    changes: int
    median_s: float
    p90_s: float
    max_s: float
    cpu_median_s: float
    cpu_p90_s: float = 0.0

    @property
    def meets(self) -> bool:
        """Whether the median wall time is within the goal."""
        return self.median_s <= GOAL_S

    @property
    def meets_cpu(self) -> bool:
        """Whether the median CPU time is within the goal (what an idle machine's wall time would be)."""
        return self.cpu_median_s <= GOAL_S


def searchable(entry: Tuning, window: int) -> tuple[Dimension, ...]:
    """The knobs of `entry` with something to search at `window` (each tried alone, so one knob
    whose span starts above the window does not hide the others)."""
    found: list[Dimension] = []
    for knob in entry.knobs:
        if knob.searched is None or knob.kind not in ("int", "float"):
            continue
        try:
            found += dimensions(entry, window, [knob.name])
        except CtxlabError:
            continue
    return tuple(found)


def changes(policy: str, window: int, n: int = CHANGES) -> list[tuple[str, int]]:
    """`n` settings of `policy` a user could move to, as (strategy spec, window) pairs (fewer when
    the knobs' grids or constraints allow fewer distinct settings)."""
    entry = knobs_for(policy) if policy in tunable() else None
    dims = searchable(entry, window) if entry is not None else ()
    if entry is None or not dims:
        return [(policy, int(window * share)) for share in WINDOW_STEPS[:n]]
    out = []
    for i in range(n):
        numbers = {d.name: d.grid(n)[min(i, len(d.grid(n)) - 1)] for d in dims}
        candidate = setting(policy, window, numbers)
        if not entry.violations(candidate.values):
            out.append((spec_text(policy, candidate.params), window))
    return list(dict.fromkeys(out))


def time_policy(sessions: Sessions, policy: str, window: int, *, reference: str, price_model: str | None,
                n: int = CHANGES) -> Timing:
    """Evaluate `n` settings of `policy` one after another, as a user moving a knob would."""
    walls, cpus = [], []
    evaluators: dict[int, Evaluator] = {}
    for label, at in changes(policy, window, n):
        evaluator = evaluators.setdefault(at, Evaluator(sessions, window=at, reference=reference,
                                                        price_model=price_model))
        wall, cpu = time.perf_counter(), time.process_time()
        evaluator.evaluate(label)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        evaluator.pending.clear()  # nothing is stored while sliding
    if not walls:
        raise CtxlabError(f"{policy}: no setting to time at a window of {window:,} tokens")
    return Timing(policy, len(walls), statistics.median(walls), p90(walls), max(walls), statistics.median(cpus),
                  p90(cpus))


def knob_values(policy: str, window: int, n: int = CHANGES) -> list[dict[str, float]]:
    """The knob positions of `changes` as the Tuning page's sliders give them (agent names)."""
    dims = searchable(knobs_for(policy), window)
    return [{d.name: d.grid(n)[min(i, len(d.grid(n)) - 1)] for d in dims} for i in range(n)]


def time_live(tuner: LiveTuner, policy: str, window: int, *, n: int = CHANGES) -> Timing:
    """Move `policy`'s knobs `n` times on a live tuner, as the Tuning page does: each answer comes
    from the tuner's stratified sample (`LiveTuner.sample` sessions), nothing refined meanwhile."""
    walls, cpus = [], []
    for values in knob_values(policy, window, n):
        wall, cpu = time.perf_counter(), time.process_time()
        tuner.point(policy, window, values)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return Timing(policy, len(walls), statistics.median(walls), p90(walls), max(walls), statistics.median(cpus),
                  p90(cpus))


def p90(values: Sequence[float]) -> float:
    """The 90th percentile by the nearest rank (the slowest of five changes, the 9th of ten)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def prepare(sessions: Sessions, reference: str) -> float:
    """Seconds to build what every setting reuses (counts per message, what each action needed)."""
    started = time.perf_counter()
    sessions.prepared(reference)
    return time.perf_counter() - started


def live(sessions: Sessions, policies: Sequence[str], window: int, *, reference: str, price_model: str | None,
         echo: Callable[[str], None] = print) -> Iterator[Timing]:
    """Time the knob changes of every policy over `sessions` at `window`."""
    for policy in policies:
        echo(f"  knob changes of {policy} ...")
        yield time_policy(sessions, policy, window, reference=reference, price_model=price_model)


__all__ = ["CHANGES", "GOAL_S", "Timing", "changes", "knob_values", "live", "p90", "prepare", "searchable",
           "time_live", "time_policy"]
