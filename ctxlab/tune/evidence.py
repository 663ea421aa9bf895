"""The pick's evidence, in words: what it keeps and costs, what it ties with, the agent's default.

Each finding is said once; ties are named as ties (`ctxlab.tune.measures.tied`), never as wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxlab.tune.measures import Evaluation, Goal, Measure, tied

_LISTED = 3  # tied settings named one by one; the rest are counted


def evidence(evaluations: Sequence[Evaluation], goal: Goal, chosen: int, tied: Sequence[int], best: int,
             default: int | None) -> str:
    """The paragraph behind a pick (see `ctxlab.tune.pareto.pick` for the rule)."""
    e = evaluations[chosen]
    q, c = e.measures[goal.quality], e.measures[goal.cost]
    parts = [f"{describe(e)} keeps {_name(goal.quality)} {interval(q, goal.quality)} at {_name(goal.cost)} "
             f"{number(c.mean, goal.cost)} over {q.sessions} session{'s' * (q.sessions != 1)}."]
    if tied:
        named = "; ".join(f"{_default_mark(i, default)}{describe(evaluations[i])} "
                          f"({number(evaluations[i].measures[goal.cost].mean, goal.cost)})" for i in tied[:_LISTED])
        more = f" and {len(tied) - _LISTED} more" if len(tied) > _LISTED else ""
        lead = "the best quality" if best != chosen else "it"
        parts.append(f"Tied with {lead} (zero inside the interval of the difference in quality): {named}{more}; "
                     "this is the cheapest of the tied.")
    if goal.rejected is not None and e.measures[goal.rejected].mean > 0:
        parts.append(_rejected(evaluations, goal.rejected, chosen))
    parts.append(_versus_default(evaluations, goal, chosen, default))
    return " ".join(p for p in parts if p)


def _rejected(evaluations: Sequence[Evaluation], measure: str, chosen: int) -> str:
    """Every setting had rejected calls: the fewest share, and the pick's when it only ties with it."""
    fewest = min(m for e in evaluations if (m := e.measures[measure].mean) == m)  # NaN: not measured
    mine = evaluations[chosen].measures[measure].mean
    if mine <= fewest:
        return f"Every setting had rejected calls; this one the fewest ({number(mine, measure)})."
    return (f"Every setting had rejected calls; the fewest {number(fewest, measure)}, and this one's "
            f"{number(mine, measure)} ties with that (zero inside the interval of the difference).")


def _default_mark(row: int, default: int | None) -> str:
    # A grid point can write the same values as the default (Codex: unset is 90% of the window).
    return "the agent's default, " if row == default else ""


def _versus_default(evaluations: Sequence[Evaluation], goal: Goal, chosen: int, default: int | None) -> str:
    if default is None:
        return ""
    if default == chosen:
        return "It is the agent's default."
    d = evaluations[default]
    return (f"The agent's default ({describe(d)}) keeps {interval(d.measures[goal.quality], goal.quality)} at "
            f"{number(d.measures[goal.cost].mean, goal.cost)}: {versus(evaluations[chosen], d, goal)}.")


def versus(pick: Evaluation, default: Evaluation, goal: Goal) -> str:
    """The pick against the agent's default in a clause: a tie on quality or who keeps more (by the
    one rule), what the pick costs by comparison, and the calls a provider would reject when the
    default has more of them (its recall then counts calls that never get an answer)."""
    qd, qe = default.measures[goal.quality], pick.measures[goal.quality]
    verdict = ("a tie on quality" if tied(pick, default, goal.quality) else "the pick keeps more" if qe.mean > qd.mean
               else "the default keeps more")
    text = f"{verdict}, and the pick costs {_change(pick.measures[goal.cost].mean, default.measures[goal.cost].mean, goal.cost)}"
    if goal.rejected is not None:
        rd, re = default.measures[goal.rejected].mean, pick.measures[goal.rejected].mean
        if rd > re:
            text += (f"; a provider would reject {number(rd, goal.rejected)} of the default's calls, "
                     f"{number(re, goal.rejected)} of the pick's")
    return text


def _change(new: float, old: float, measure: str = "") -> str:
    if not old:
        return f"{number(new, measure)} against {number(old, measure)}"
    delta = (new - old) / old
    return "the same" if abs(delta) < 0.0005 else f"{abs(delta):.1%} {'less' if delta < 0 else 'more'}"


def describe(evaluation: Evaluation) -> str:
    """A setting in the agent's terms: ``name=value`` for each knob."""
    return ", ".join(f"{name}={written(value)}" for name, value in evaluation.setting.values.items()
                     if value is not None)


def written(value: Any) -> str:
    """A written value, short: Anthropic's ``{"type", "value"}`` as its value, tuples as ``(a, b)``."""
    if isinstance(value, dict) and "value" in value:
        return written(value["value"])
    if isinstance(value, tuple):
        return "(" + ", ".join(written(v) for v in value) + ")"
    return str(value)


def interval(m: Measure, measure: str = "") -> str:
    """``mean (95% CI low-high)``, or the mean alone for a point interval."""
    if m.low == m.high:
        return number(m.mean, measure)
    return f"{number(m.mean, measure)} (95% CI {number(m.low, measure)}-{number(m.high, measure)})"


# How the tuner's own measures read in a sentence (others keep their names and plain numbers).
_NAMES = {"needed_recall": "needed-context recall", "effective_usd": "$ per session with prompt caching + refetch",
          "effective_tokens": "tokens sent + refetch per session", "instruction_survival": "instruction survival"}
_PERCENT = ("needed_recall", "in_context_recall", "non_regex_recall", "instruction_survival", "rejected",
            "orphan_rate", "overflow_rate")


def _name(measure: str) -> str:
    return _NAMES.get(measure, measure)


def number(x: float, measure: str = "") -> str:
    """A measure's value: a percentage for the tuner's recalls and rates, dollars for
    ``effective_usd``; else three decimals under 10 and whole numbers with separators above."""
    if measure in _PERCENT:
        return f"{100 * x:.1f}%"
    if measure == "effective_usd":
        return f"${x:,.4f}"
    return f"{x:,.3f}" if abs(x) < 10 else f"{x:,.0f}"


__all__ = ["describe", "evidence", "interval", "number", "versus", "written"]
