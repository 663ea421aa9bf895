"""How a `ctxlab.analysis.verdict.Verdict` reads: the same short lines on every face (the demo, `ctxlab
recommend`, the report, the dashboard, the notebooks), so a verdict a user reads is the same everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ctxlab.analysis.evidence import TIE_RULE, pct

if TYPE_CHECKING:
    from ctxlab.analysis.verdict import Choice, Verdict

LISTED = 4  # tied policies named one by one; the rest are counted
RULE = f"Tied: {TIE_RULE} (docs/quality.md)."


class Line(NamedTuple):
    """One line of a verdict: what it is about (``run``, ``best recall``...) and what it says."""

    key: str
    text: str


def heading(v: Verdict) -> str:
    """``dataset, N-token window (S sessions, C calls; who competed)``."""
    where = f"{v.dataset}, " if v.dataset else ""
    return f"{where}{v.window:,}-token window ({v.sessions} sessions, {v.calls:,} calls; {competing(v)})"


def competing(v: Verdict) -> str:
    """Which policies competed: those no provider would reject a call of, or those tied with the
    fewest rejected; and the learned ones not judged, fitted on these sessions."""
    held = (f"; not judged: {', '.join(v.in_sample)} (its need model was fitted on these sessions)"
            if v.in_sample else "")
    if v.rejected == 0:
        return (f"{v.competing} of {v.policies} policies never send a call a provider would reject"
                + (" (an orphaned tool pair, a prompt over the window, a failed compression); only those compete"
                   if v.competing < v.policies else "") + held)
    return (f"every policy sends calls a provider would reject; the {v.competing} tied with the fewest "
            f"({pct(v.rejected)} of calls) compete{held}")


def lines(v: Verdict) -> list[Line]:
    """What to run, the best by recall, the cheapest, then any further findings the verdict carries."""
    if not v.needs_compression:
        run = (f"no policy needed: every call fits the {v.window:,}-token window whole (the largest is "
               f"{v.peak_tokens:,.0f} tokens), so nothing needs compressing")
    else:
        tied = " (the cheapest of those tied with the best on recall)" if v.run.name != v.best.name else ""
        run = f"{v.run.name}{tied}: {recall(v.run)}, {cost(v.run, v.cost)}"
    if v.best.tied and len(v.best.tied) == v.competing - 1:
        best = f"all {v.competing} tie (highest: {v.best.name} {recall(v.best)})"
    else:
        best = f"{v.best.name} {recall(v.best)}, {cost(v.best, v.cost)}{ties(v.best, 'recall')}"
    out = [Line("run", run), Line("best recall", best),
           Line("cheapest", f"{v.cheapest.name} {cost(v.cheapest, v.cost)}, recall {recall(v.cheapest)}"
                            f"{ties(v.cheapest, 'cost')}")]
    return out + [Line(title.lower(), f.headline) for title, f in v.findings()]


def ties(choice: Choice, on: str, listed: int = LISTED) -> str:
    """``; tied on <on>: a, b, c +2 more`` (empty without ties)."""
    names = list(choice.tied)
    more = f" +{len(names) - listed} more" if len(names) > listed else ""
    return f"; tied on {on}: {', '.join(names[:listed])}{more}" if names else ""


def recall(choice: Choice) -> str:
    """Needed recall with its 95% interval: ``91.2% [88.0-94.1]``."""
    bounds = f" [{100 * choice.low:.1f}-{100 * choice.high:.1f}]" if choice.low != choice.high else ""
    return f"{pct(choice.recall)}{bounds}"


def cost(choice: Choice, measure: str) -> str:
    """Effective cost per session: dollars, or tokens sent plus refetch."""
    if measure == "effective_usd":
        return f"${choice.cost:,.4f}/session"
    return f"{choice.cost:,.0f} tokens + refetch/session"


__all__ = ["RULE", "Line", "competing", "cost", "heading", "lines", "recall", "ties"]
