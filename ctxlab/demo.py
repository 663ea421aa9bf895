"""What `ctxlab demo` ends with: a decision a newcomer can act on, read from the stored results.

Per dataset and window of a per-turn run, every policy (strategy variant, ``noop`` left out) is
scored as the tuner scores a setting (`ctxlab.tune.evaluate.score`: needed-context recall pooled
over each session's calls, effective cost = dollars with prompt caching plus refetch of what was
lost, or tokens sent plus refetch without a price model), and compared as the tuner compares
(`ctxlab.tune.measures`: 95% intervals over sessions; two policies tie when the paired interval of
their difference holds zero). Only policies no provider would reject a call of (no orphaned tool
pair, nothing over the window) compete; when every policy has rejected calls, those with the
fewest. A `Verdict` names the best by the grounded measures with those tied with it, the cheapest
with those tied with it, and the one to run (`ctxlab.tune.pareto.pick`: the cheapest of those
tied on recall). `tune_example` runs ``ctxlab tune`` on a small slice of the bundled agent
sessions so the demo can show a pick in the agent's own terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from ctxlab.tune.measures import Evaluation, Goal, Measure, tied
from ctxlab.tune.pareto import pick
from ctxlab.tune.space import Setting

if TYPE_CHECKING:
    from ctxlab.tune.run import TuneOutcome
    from ctxlab.tune.snippets import Snippet

QUALITY, REJECTED = "needed_recall", "rejected"
EXCLUDED = ("noop",)  # the policy that never compresses: the baseline, not a choice
# The demo's tuner example: Codex's one knob (a grid of five and the default) on the first sessions
# of the bundled agent data, at the demo's larger per-turn window.
TUNE_SOURCE, TUNE_POLICY, TUNE_WINDOW, TUNE_SESSIONS = "sample:agent_sessions", "codex", 8000, 40


class Choice(NamedTuple):
    """A policy with its recall and cost over sessions, and the policies tied with it."""

    label: str
    recall: Measure
    cost: Measure
    tied: tuple[str, ...]


class Verdict(NamedTuple):
    """One dataset at one window: the best by recall, the cheapest, and the one to run.

    ``competing`` policies had the fewest rejected calls (``rejected``: their share of calls, 0 when
    some policy has none) out of ``policies`` scored."""

    dataset: str
    window: int
    sessions: int
    calls: int
    policies: int
    competing: int
    rejected: float
    best: Choice
    cheapest: Choice
    run: Choice
    cost: str


def evaluations(results: pd.DataFrame, costs: pd.DataFrame | None, reference: str,
                input_price: float | None) -> list[Evaluation]:
    """One `Evaluation` per policy (label and counter) of `results` (one dataset, one window), named
    by its label (with its counter when the label ran with more than one), ``noop`` left out."""
    from ctxlab.tune.evaluate import score

    out = []
    counted = results.groupby("label", observed=True)["counter"].nunique()
    for (label, counter), rows in results.groupby(["label", "counter"], observed=True, sort=True):
        if label in EXCLUDED:
            continue
        priced = None if costs is None else costs[(costs["label"] == label) & (costs["counter"] == counter)]
        scored = score(rows, priced, reference, input_price)
        measures = {name: Measure.of(samples) for name, samples in scored.samples.items()}
        name = f"{label} [{counter}]" if counted[label] > 1 else str(label)  # a label run with two counters
        setting = Setting(name, int(rows["window"].iloc[0]), {}, {}, f"{label}|{counter}")
        out.append(Evaluation(setting, measures, samples=scored.samples))
    return out


def verdict(found: Sequence[Evaluation], goal: Goal, dataset: str, window: int) -> Verdict | None:
    """The verdict over `found` (see the module docstring); None when no policy has a recall."""
    chosen = pick(found, goal)
    if chosen is None:
        return None
    rejected = min(e.measures[REJECTED].mean for e in found if _scored(e, goal))
    pool = [e for e in found if _scored(e, goal) and e.measures[REJECTED].mean == rejected]
    best = max(pool, key=lambda e: e.measures[goal.quality].mean)
    cheapest = min(pool, key=lambda e: (e.measures[goal.cost].mean, -e.measures[goal.quality].mean))
    first = pool[0].measures[goal.quality]
    return Verdict(dataset, window, first.sessions, _calls(pool[0]), len(found), len(pool), rejected,
                   _choice(best, pool, goal.quality, goal), _choice(cheapest, pool, goal.cost, goal),
                   _choice(found[chosen.row], pool, goal.quality, goal), goal.cost)


def _scored(e: Evaluation, goal: Goal) -> bool:
    return not (pd.isna(e.measures[goal.quality].mean) or pd.isna(e.measures[goal.cost].mean))


def _calls(e: Evaluation) -> int:
    return int(sum(s.weight for s in (e.samples or {}).get(REJECTED, ())))


def _choice(e: Evaluation, pool: Sequence[Evaluation], measure: str, goal: Goal) -> Choice:
    ties = tuple(o.setting.preset for o in pool if o is not e and tied(o, e, measure))
    return Choice(e.setting.preset, e.measures[goal.quality], e.measures[goal.cost], ties)


def verdicts(db: str, run_id: str, *, reference: str, price_model: str | None) -> list[Verdict]:
    """Per dataset and window of the per-turn run `run_id` in `db`, its verdict."""
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.cost import input_price

    with store.reading(db) as con:
        results = frames.results(con, run_id, mode="per-turn")
        costs = store.session_costs(con, run_id) if price_model else None
    if costs is not None:
        costs = costs[costs["price_model"] == price_model]
    goal = Goal(QUALITY, "effective_usd" if price_model else "effective_tokens", REJECTED)
    price = input_price(price_model) if price_model else None
    out = []
    for (dataset, window), rows in results.groupby(["dataset", "window"], observed=True, sort=True):
        priced = None if costs is None else costs[(costs["dataset"] == dataset) & (costs["window"] == window)]
        found = verdict(evaluations(rows, priced, reference, price), goal, str(dataset), int(window))
        if found is not None:
            out.append(found)
    return out


class TuneExample(NamedTuple):
    """The tuner on a slice: the command that reproduces it, its outcome and the pick's snippets."""

    command: str
    outcome: TuneOutcome
    snippets: tuple[Snippet, ...]


def tune_example(db: str, *, price_model: str | None, reference: str, sessions: int = TUNE_SESSIONS) -> TuneExample:
    """``ctxlab tune`` over the first `sessions` bundled agent sessions (every setting stored in `db`)."""
    from ctxlab.tune import Sessions, render_snippets
    from ctxlab.tune.run import tune

    loaded = Sessions.load([TUNE_SOURCE], limit=sessions)
    outcome = tune(loaded, TUNE_POLICY, window=TUNE_WINDOW, price_model=price_model, reference=reference, db=db)
    result = outcome.result
    chosen = result.evaluations[result.pick.row].setting if result.pick is not None else None
    snippets = render_snippets(TUNE_POLICY, chosen.params, TUNE_WINDOW) if chosen is not None else ()
    price = f" --price-model {price_model}" if price_model else ""
    command = (f"ctxlab tune {TUNE_SOURCE} --policy {TUNE_POLICY} --window {TUNE_WINDOW}{price} "
               f"--limit {sessions} --db {db}")
    return TuneExample(command, outcome, snippets)


__all__ = ["EXCLUDED", "Choice", "TuneExample", "Verdict", "evaluations", "tune_example", "verdict", "verdicts"]
