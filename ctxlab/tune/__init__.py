"""Tune an agent's own compaction settings on your sessions, and get them in the agent's terms.

    from ctxlab.tune import Goal, render_snippets, search
    result = search("pi", objective, window=64000, goal=Goal("needed_recall", "tokens_sent"))
    best = result.evaluations[result.pick.row].setting
    for snippet in render_snippets("pi", best.params, 64000):
        print(snippet.title, snippet.text, snippet.source, sep="\n")

- `knobs`, `agents` — the knob table: per preset, each user-facing knob's name in the agent, the
  ctxlab parameters it sets, its range in the agent's source and the one searched, its default,
  and the file and commit (or documentation page) that define them (`KNOBS`, `knobs_for`).
- `convert`, `forms`, `snippets` — a setting in the agent's own terms (settings.json, config.toml,
  a constructor, environment variables, a request body) and back (`render_snippets`, `parse_snippet`).
- `space`, `measures`, `pareto`, `tuner`, `optimize` — the search: a grid for up to two knobs,
  optuna's seeded TPE beyond; every evaluation kept, cached by a canonical key; the Pareto front
  of quality against cost with ties named, and the pick with its evidence (`search`).
- `sessions`, `evaluate`, `stored`, `run` — the objective on real sessions: each setting replayed
  call by call through the replay's own per-unit code and scored by the grounded measures and
  effective cost (`Sessions`, `Evaluator`); every evaluation a run in the store, reused on a rerun
  (`StoreCache`, `save`); `ctxlab tune` as a function (`tune`, `evaluations_frame`).

Names resolve lazily; optuna loads only when a search needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlab.registry import lazy_exports

_EXPORTS = {
    "AgentKnobs": "ctxlab.tune.knobs", "Constraint": "ctxlab.tune.knobs", "Form": "ctxlab.tune.knobs",
    "Knob": "ctxlab.tune.knobs", "Ref": "ctxlab.tune.knobs", "Span": "ctxlab.tune.knobs", "W": "ctxlab.tune.knobs",
    "KNOBS": "ctxlab.tune.agents", "knobs_for": "ctxlab.tune.agents",
    "Snippet": "ctxlab.tune.snippets", "parse_snippet": "ctxlab.tune.snippets",
    "render_snippets": "ctxlab.tune.snippets", "written_values": "ctxlab.tune.snippets",
    "GRID_POINTS": "ctxlab.tune.space", "Dimension": "ctxlab.tune.space", "Setting": "ctxlab.tune.space",
    "dimensions": "ctxlab.tune.space", "setting": "ctxlab.tune.space", "setting_key": "ctxlab.tune.space",
    "Evaluation": "ctxlab.tune.measures", "Goal": "ctxlab.tune.measures", "Measure": "ctxlab.tune.measures",
    "Sample": "ctxlab.tune.measures",
    "FrontPoint": "ctxlab.tune.pareto", "Pick": "ctxlab.tune.pareto", "front": "ctxlab.tune.pareto",
    "pick": "ctxlab.tune.pareto",
    "DEFAULT_TRIALS": "ctxlab.tune.tuner", "EvaluationCache": "ctxlab.tune.tuner",
    "MemoryCache": "ctxlab.tune.tuner", "Objective": "ctxlab.tune.tuner", "SearchResult": "ctxlab.tune.tuner",
    "search": "ctxlab.tune.tuner",
    "Item": "ctxlab.tune.sessions", "Sessions": "ctxlab.tune.sessions",
    "Evaluator": "ctxlab.tune.evaluate", "Scored": "ctxlab.tune.evaluate", "spec_text": "ctxlab.tune.evaluate",
    "StoreCache": "ctxlab.tune.stored", "save": "ctxlab.tune.stored",
    "TuneOutcome": "ctxlab.tune.run", "evaluations_frame": "ctxlab.tune.run", "front_frame": "ctxlab.tune.run",
    "tune": "ctxlab.tune.run",
}
__all__ = ["DEFAULT_TRIALS", "GRID_POINTS", "KNOBS", "AgentKnobs", "Constraint", "Dimension", "Evaluation",
           "EvaluationCache", "Evaluator", "Form", "FrontPoint", "Goal", "Item", "Knob", "Measure", "MemoryCache",
           "Objective", "Pick", "Ref", "Sample", "Scored", "SearchResult", "Sessions", "Setting", "Snippet", "Span",
           "StoreCache", "TuneOutcome", "W", "dimensions", "evaluations_frame", "front", "front_frame", "knobs_for",
           "parse_snippet", "pick", "render_snippets", "save", "search", "setting", "setting_key", "spec_text", "tune",
           "written_values"]

__getattr__ = lazy_exports("ctxlab.tune", _EXPORTS, globals())


if TYPE_CHECKING:
    from ctxlab.tune.agents import KNOBS, knobs_for
    from ctxlab.tune.evaluate import Evaluator, Scored, spec_text
    from ctxlab.tune.knobs import AgentKnobs, Constraint, Form, Knob, Ref, Span, W
    from ctxlab.tune.measures import Evaluation, Goal, Measure, Sample
    from ctxlab.tune.pareto import FrontPoint, Pick, front, pick
    from ctxlab.tune.run import TuneOutcome, evaluations_frame, front_frame, tune
    from ctxlab.tune.sessions import Item, Sessions
    from ctxlab.tune.snippets import Snippet, parse_snippet, render_snippets, written_values
    from ctxlab.tune.space import GRID_POINTS, Dimension, Setting, dimensions, setting, setting_key
    from ctxlab.tune.stored import StoreCache, save
    from ctxlab.tune.tuner import DEFAULT_TRIALS, EvaluationCache, MemoryCache, Objective, SearchResult, search
