"""The table of policies on the Pareto front that `recommend`, `replay --policies` and `tune` print:
its column headers and the recalls and rates shown as percentages; and the verdict below it."""

from __future__ import annotations

from typing import Any

from ctxlab.cli.common import console

FRONT_HEADERS = {"label": "policy", "counter": "counter", "needed_recall": "needed recall", "ci": "95% CI",
                 "in_context_recall": "in context", "non_regex_recall": "non-regex",
                 "instruction_survival": "instructions", "tokens_sent": "tokens sent / session",
                 "effective_tokens": "+ refetch", "fact_recall": "regex fact recall", "orphan_rate": "orphaned",
                 "overflow_rate": "over window", "limit_recall": "hindsight limit", "headroom_closed": "headroom closed",
                 "front": "front"}
KEY_WIDTH = len("stand-in gap:")  # the longest key of a verdict's lines, so their texts line up
PERCENTS = ("needed_recall", "needed_low", "needed_high", "in_context_recall", "non_regex_recall",
            "instruction_survival", "fact_recall", "orphan_rate", "overflow_rate", "limit_recall", "headroom_closed")


def percents(front: Any) -> Any:
    """The front's recalls and rates as percentages with one decimal, and ``ci`` the needed recall's
    95% interval, for printing."""
    ci = [f"{100 * low:.1f}-{100 * high:.1f}" if low == low else "-"
          for low, high in zip(front["needed_low"], front["needed_high"], strict=True)]
    return front.assign(ci=ci, **{c: front[c].map(lambda v: "-" if v != v else f"{100 * v:.1f}%")
                                  for c in PERCENTS if c in front})


def print_verdict(verdict: Any, *, evidence: bool = True) -> None:
    """The verdict's lines (`ctxlab.analysis.wording`, as every face prints them), the detail of its
    findings (a warning in yellow), then its evidence and the rule for a tie (unless `evidence` is
    False: the demo states the rule once above its verdicts)."""
    from ctxlab.analysis.wording import RULE, heading, lines

    out = console()
    out.print(f"\n[bold]{heading(verdict)}[/bold]", highlight=False)
    for line in lines(verdict):
        out.print(f"  {line.key + ':':<{KEY_WIDTH}} {line.text}", markup=False, highlight=False)
    for _, finding in verdict.findings():
        if finding.detail:
            out.print(f"  {finding.detail}", style="yellow" if finding.warn else "dim", markup=False, highlight=False)
    if evidence:
        out.print(f"\n{verdict.evidence} {RULE}", markup=False, highlight=False)


__all__ = ["FRONT_HEADERS", "PERCENTS", "percents", "print_verdict"]
