"""Tune an agent's own compaction settings on your sessions, and get them in the agent's terms.

    from ctxlab.tune import Goal, render_snippets, search
    result = search("pi", objective, window=64000, goal=Goal("needed_recall", "tokens_sent"))
    best = result.evaluations[result.pick.row].setting
    for snippet in render_snippets("pi", best.params, 64000):
        print(snippet.title, snippet.text, snippet.source, sep="\n")

Every module, by what it does:

- the knobs: `agents` (the knob table, read from the registered presets: each agent's module in
  ``ctxlab/strategies/presets/`` declares its knobs, their ranges, defaults and sources, and its
  snippet forms, as `ctxlab.strategies.policy.knobs` data: `knobs_for`, `tunable`);
- the agent's terms: `forms` (writing and reading settings.json, config.toml, YAML, environment
  variables, command lines and constructor calls) and `snippets` (a setting as snippets to paste,
  and back: `render_snippets`, `parse_snippet`);
- the search: `space` (a preset's searched knobs at a window, and its settings), `tuner` (a grid
  for up to two knobs, optuna's seeded TPE beyond, in `optimize`: `search`; `halving`, successive
  halving over stratified samples of the sessions for a whole history), `measures` (samples
  per session, means and intervals, the goal), `pareto` (the front and the pick) and `evidence`
  (the pick's evidence in words);
- the objective on real sessions: `sessions` (read once, numbered as the replay numbers them),
  `evaluate` (each setting replayed call by call through the replay's own per-unit code and scored
  by the grounded measures and effective cost; `forked` replays a setting's sessions in forked
  workers that keep their sessions prepared), `stored` (every evaluation a run in the store,
  reused on a rerun) and `run` (`ctxlab tune` as a function: `tune`, `evaluations_frame`);
- the faces: `live` (the dashboard's and notebook's live tuner), `widgets` (its notebook sliders),
  `speed` (how fast a knob change answers, for ``ctxlab bench``) and `reference` (docs/tuning.md's
  tables).

Names resolve lazily; optuna loads only when a search needs it. The names below are the public
surface; the rest is imported from its module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlab.registry import lazy_exports

_EXPORTS = {
    "knobs_for": "ctxlab.tune.agents", "tunable": "ctxlab.tune.agents",
    "Snippet": "ctxlab.tune.snippets", "parse_snippet": "ctxlab.tune.snippets",
    "render_snippets": "ctxlab.tune.snippets", "written_values": "ctxlab.tune.snippets",
    "Setting": "ctxlab.tune.space", "dimensions": "ctxlab.tune.space", "setting": "ctxlab.tune.space",
    "Goal": "ctxlab.tune.measures",
    "DEFAULT_TRIALS": "ctxlab.tune.tuner", "SearchResult": "ctxlab.tune.tuner", "search": "ctxlab.tune.tuner",
    "Sessions": "ctxlab.tune.sessions",
    "Evaluator": "ctxlab.tune.evaluate", "spec_text": "ctxlab.tune.evaluate",
    "TuneOutcome": "ctxlab.tune.run", "evaluations_frame": "ctxlab.tune.run", "front_frame": "ctxlab.tune.run",
    "tune": "ctxlab.tune.run",
}
__all__ = ["DEFAULT_TRIALS", "Evaluator", "Goal", "SearchResult", "Sessions", "Setting", "Snippet", "TuneOutcome",
           "dimensions", "evaluations_frame", "front_frame", "knobs_for", "parse_snippet", "render_snippets", "search",
           "setting", "spec_text", "tunable", "tune", "written_values"]

__getattr__ = lazy_exports("ctxlab.tune", _EXPORTS, globals())


if TYPE_CHECKING:
    from ctxlab.tune.agents import knobs_for, tunable
    from ctxlab.tune.evaluate import Evaluator, spec_text
    from ctxlab.tune.measures import Goal
    from ctxlab.tune.run import TuneOutcome, evaluations_frame, front_frame, tune
    from ctxlab.tune.sessions import Sessions
    from ctxlab.tune.snippets import Snippet, parse_snippet, render_snippets, written_values
    from ctxlab.tune.space import Setting, dimensions, setting
    from ctxlab.tune.tuner import DEFAULT_TRIALS, SearchResult, search
