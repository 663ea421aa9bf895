"""What `ctxlab demo` ends with: a decision a newcomer can act on, read from the stored results.

Per dataset and window of a per-turn run, `verdicts` gives the verdict `ctxlab recommend`, the
report and the dashboard give on the same rows (`ctxlab.analysis.verdicts.stored`): the best
policy by needed-context recall and the cheapest (effective cost = dollars with prompt caching plus
refetch of what was lost), each with those tied with it by the one rule (zero inside the paired 95%
interval over sessions of the difference, `ctxlab.analysis.ties`), and the one to run, or that
nothing needs compressing at that window. `tune_example` runs ``ctxlab tune`` on a slice of the
bundled agent sessions so the demo can show a pick in the agent's own terms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ctxlab.analysis.verdict import Verdict

if TYPE_CHECKING:
    from ctxlab.tune.run import TuneOutcome
    from ctxlab.tune.snippets import Snippet

# The demo's tuner example: pi's two knobs (a 5 x 5 grid and the default) on the first sessions of the
# bundled agent data, at the demo's larger per-turn window. pi's defaults keep the newest 20,000
# tokens after compacting, more than this window, so 39% of its calls are over it; the pick is a
# setting worth pasting (measured on these 40 sessions: reserveTokens=2048, keepRecentTokens=3584,
# 1.9% of calls rejected, tied with the fewest, 1.7%; needed recall 95.6% against the default's
# 99.9%, whose calls a provider rejects 39% of). Codex's knob, searched here before, gave a pick tied with its
# default at a 2% saving: nothing to paste.
TUNE_SOURCE, TUNE_POLICY, TUNE_WINDOW, TUNE_SESSIONS = "sample:agent_sessions", "pi", 8000, 40


def verdicts(db: str, run_id: str, *, reference: str, price_model: str | None) -> list[Verdict]:
    """Per dataset and window of the per-turn run `run_id` in `db`, its verdict, as the report gives
    it (`ctxlab.analysis.verdicts.stored`: the stand-in gap included)."""
    from ctxlab import store
    from ctxlab.analysis.verdicts import stored

    with store.reading(db) as con:
        found = stored(con, run_id, reference, price_model=price_model)
    return found.verdicts if found is not None else []


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


__all__ = ["TuneExample", "tune_example", "verdicts"]
