"""Learning a keep-policy from a user's own sessions (`ctxlab learn`), judged on their later ones.

- `split`: sessions ordered by start time, the earliest share trained on, the rest judged;
- `examples`: at sampled calls, every old tool output's history-only features
  (`ctxlab.strategies.mechanics.need`) and whether it held a string the agent soon needed that the
  newest messages did not;
- `fit`: a seeded logistic regression, written as JSON (`ctxlab.strategies.mechanics.need_model`);
- `judge`, `verdicts`: the `learned` policy with that model, `recommended`'s curve of settings, the
  anchors and the agent's own policy replayed call by call over the later sessions, and the tables
  that compare them at equal tokens, beside the hindsight limit (`ctxlab.metrics.limit`);
- `run`, `record`: `learn` end to end, and its record in the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlab.registry import lazy_exports

_EXPORTS = {"LearnOutcome": "ctxlab.learn.outcome", "learn": "ctxlab.learn.run", "WINDOWS": "ctxlab.learn.run",
            "Split": "ctxlab.learn.split", "split_sessions": "ctxlab.learn.split", "started": "ctxlab.learn.split",
            "Examples": "ctxlab.learn.examples", "session_examples": "ctxlab.learn.examples",
            "fit_model": "ctxlab.learn.fit", "ranking": "ctxlab.learn.fit", "importances": "ctxlab.learn.fit"}
__all__ = ["WINDOWS", "Examples", "LearnOutcome", "Split", "fit_model", "importances", "learn", "ranking",
           "session_examples", "split_sessions", "started"]

__getattr__ = lazy_exports("ctxlab.learn", _EXPORTS, globals())

if TYPE_CHECKING:
    from ctxlab.learn.examples import Examples, session_examples
    from ctxlab.learn.fit import fit_model, importances, ranking
    from ctxlab.learn.outcome import LearnOutcome
    from ctxlab.learn.run import WINDOWS, learn
    from ctxlab.learn.split import Split, split_sessions, started
