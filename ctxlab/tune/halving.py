"""Successive halving over sessions: a knob search that answers on a user's whole history.

Evaluating every setting on every session costs the number of settings times a full replay (a
grid of 26 settings over 100,000 calls: about an hour). Successive halving evaluates all the
candidates on a small stratified sample of the sessions, keeps the best third, evaluates those on
three times as many sessions, and so on until the last rung holds every session: the settings a
rung finds dominated stop early, and the pick is chosen among settings evaluated on all sessions
(re-checked there before it is printed). The agent's default is carried to the last rung whatever
its rank, so the pick is always shown beside it on the same sessions.

The sessions are taken in a stratified order (`stratified_order`): sorted by their number of calls
and visited in bit-reversed rank order, so every prefix spreads evenly over short and long sessions
and each rung's sample holds the one before it (a setting's replayed sessions are reused, so a
survivor costs one full replay however many rungs it passes). A rung keeps the settings on its
contenders (the pick's own rule, `ctxlab.tune.pareto.contenders`: the best quality on the rung's
sessions and every setting whose interval overlaps it, so a setting is pruned only when the sample
already shows it clearly worse), then its front, then the best by needed recall, to a third of the
rung (at least one).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Protocol

from ctxlab.tune.measures import Evaluation, Goal, Measure
from ctxlab.tune.pareto import contenders, front, pick
from ctxlab.tune.sessions import Sessions
from ctxlab.tune.space import Setting
from ctxlab.tune.tuner import Samples, SearchResult


class PartialObjective(Protocol):
    """Evaluates a setting on the first `sessions` sessions of the order: per measure, one sample each."""

    def __call__(self, setting: Setting, sessions: int, /) -> Samples: ...

ETA = 3  # each rung keeps a third of the settings on three times the sessions
MIN_SESSIONS = 8  # the first rung's sample is never smaller (paired intervals need a few sessions)
HALVING_FROM = 48  # below this many sessions a search evaluates every setting on all of them


class Rung(NamedTuple):
    """One rung: how many sessions of the order it evaluates on and the settings it kept."""

    sessions: int
    calls: int
    evaluated: int
    kept: int


def stratified_order(sessions: Sessions) -> list[int]:
    """Session indices whose every prefix is a sample stratified by session length (see above)."""
    calls = [sessions.calls_of(i) for i in range(len(sessions))]
    by_size = sorted(range(len(calls)), key=lambda i: (calls[i], i))
    bits = max(1, (len(calls) - 1).bit_length())
    ranks = sorted(range(len(calls)), key=lambda r: int(f"{r:0{bits}b}"[::-1], 2))
    return [by_size[r] for r in ranks]


def rung_sizes(calls: Sequence[int], settings: int, eta: int = ETA, min_sessions: int = MIN_SESSIONS) -> list[int]:
    """Prefix lengths of the rungs for `settings` candidates over sessions of `calls` (in order):
    rung k of K holds about ``total / eta ** (K - k)`` calls, the last every session."""
    total, n = sum(calls), len(calls)
    rungs = max(0, math.ceil(math.log(max(settings, 1), eta) - 1e-9))
    cumulative, sizes = 0, []
    targets = [total / eta ** (rungs - k) for k in range(rungs)]
    for m, c in enumerate(calls, start=1):
        cumulative += c
        while targets and cumulative >= targets[0]:
            targets.pop(0)
            sizes.append(max(m, min(min_sessions, n)))
    sizes = sorted({s for s in sizes if s < n})
    return [*sizes, n]


def survivors(evaluations: Sequence[Evaluation], goal: Goal, keep: int) -> list[int]:
    """The indices of the settings a rung passes on: every setting the pick could still choose
    (`contenders` with overlapping intervals: wider than the paired tie the pick uses, because a
    paired interval on a sample can exclude zero where every session would not), then the rung's
    front, then the best by quality, to at least `keep`."""
    on = {p.row for p in front(evaluations, goal)}
    level = set(contenders(evaluations, goal, same=_overlapping))

    def rank(i: int) -> tuple[bool, float, float, float]:
        m = evaluations[i].measures
        rejected = m[goal.rejected].mean if goal.rejected else 0.0
        quality = m[goal.quality].mean
        return (i not in on, rejected, -quality if quality == quality else math.inf, m[goal.cost].mean)

    return sorted(level | set(sorted(range(len(evaluations)), key=rank)[:max(1, keep)]))


def _overlapping(a: Evaluation, b: Evaluation, measure: str) -> bool:
    """Whether the 95% intervals overlap: a guard against pruning on a sample, not a tie (a tie is
    `ctxlab.analysis.ties`' paired rule, which the final pick uses)."""
    x, y = a.measures[measure], b.measures[measure]
    return bool(x.low <= y.high and y.low <= x.high)


# Called with every candidate's latest evaluation, the indices evaluated on every session so far and
# how many candidates are still to be.
FirstPick = Callable[[list[Evaluation], list[int], int], None]


def halving(candidates: Sequence[Setting], objective: PartialObjective, order: Sequence[int], calls: Sequence[int],
            goal: Goal, *, eta: int = ETA, on_first: FirstPick | None = None) -> tuple[list[Evaluation], list[Rung], list[int]]:
    """Successive halving of `candidates` (the default first) with `objective(setting, sessions=n)`
    evaluating a setting on the first n sessions of `order` (`calls` per session, in that order).

    On the last rung the leader of the rung before (its pick) and the default are evaluated on
    every session first: `on_first` then gets a first pick, re-checked on every session, while the
    other contenders still run (not called when no other is left).

    Returns:
        every candidate's last evaluation (in candidate order), the rungs, and the indices of the
        candidates evaluated on every session.
    """
    sizes = rung_sizes([calls[i] for i in order], len(candidates), eta)
    alive = list(range(len(candidates)))
    latest: dict[int, Evaluation] = {}
    rungs: list[Rung] = []
    for level, n in enumerate(sizes):
        last = level == len(sizes) - 1
        early = _first(alive, latest, goal) if last and on_first is not None and latest else []
        rest = [i for i in alive if i not in early]
        for i in early:
            latest[i] = _evaluated(candidates[i], objective, n)
        if on_first is not None and early and rest:
            on_first([latest[i] for i in range(len(candidates))], early, len(rest))
        for i in rest:
            latest[i] = _evaluated(candidates[i], objective, n)
        if last:
            break
        kept = survivors([latest[i] for i in alive], goal, math.ceil(len(alive) / eta))
        carried = sorted({alive[k] for k in kept} | ({0} if 0 in alive else set()))
        rungs.append(Rung(n, sum(calls[i] for i in order[:n]), len(alive), len(carried)))
        alive = carried
    rungs.append(Rung(len(order), sum(calls), len(alive), len(alive)))
    return [latest[i] for i in range(len(candidates))], rungs, alive


def _evaluated(candidate: Setting, objective: PartialObjective, sessions: int) -> Evaluation:
    samples = objective(candidate, sessions)
    return Evaluation(candidate, {k: Measure.of(v) for k, v in samples.items()}, samples=samples)


def _first(alive: list[int], latest: Mapping[int, Evaluation], goal: Goal) -> list[int]:
    """The default and the leader of the rung before (what its pick names): the candidates a first
    pick is chosen from, in candidate order."""
    chosen = pick([latest[i] for i in alive], goal, default=alive.index(0) if 0 in alive else None)
    leader = alive[chosen.row] if chosen is not None else alive[0]
    return sorted({leader} | ({0} if 0 in alive else set()))


def halving_result(preset: str, window: int, goal: Goal, evaluations: Sequence[Evaluation], full: Sequence[int],
                   searched: tuple[str, ...]) -> SearchResult:
    """The search result: the front and the pick among the settings evaluated on every session."""
    last = [evaluations[i] for i in full]
    points = front(last, goal)
    chosen = pick(last, goal, default=full.index(0) if 0 in full else None)
    from ctxlab.tune.pareto import FrontPoint, Pick

    mapped_front = tuple(FrontPoint(full[p.row], tuple(full[t] for t in p.ties)) for p in points)
    mapped_pick = Pick(full[chosen.row], tuple(full[t] for t in chosen.tied), chosen.evidence) if chosen else None
    return SearchResult(preset, window, "halving", goal, tuple(evaluations), mapped_front, mapped_pick, default=0,
                        searched=searched)


__all__ = ["ETA", "HALVING_FROM", "FirstPick", "MIN_SESSIONS", "PartialObjective", "Rung", "halving", "halving_result", "rung_sizes",
           "stratified_order", "survivors"]
