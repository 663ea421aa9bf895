"""The table of policies on the Pareto front that `recommend`, `replay --policies` and `tune` print:
its column headers and the recalls and rates shown as percentages."""

from __future__ import annotations

from typing import Any

FRONT_HEADERS = {"label": "policy", "counter": "counter", "needed_recall": "needed recall", "ci": "95% CI",
                 "in_context_recall": "in context", "non_regex_recall": "non-regex",
                 "instruction_survival": "instructions", "tokens_sent": "tokens sent / session",
                 "effective_tokens": "+ refetch", "fact_recall": "regex fact recall", "orphan_rate": "orphaned",
                 "overflow_rate": "over window", "limit_recall": "hindsight limit", "headroom_closed": "headroom closed",
                 "front": "front"}
PERCENTS = ("needed_recall", "needed_low", "needed_high", "in_context_recall", "non_regex_recall",
            "instruction_survival", "fact_recall", "orphan_rate", "overflow_rate", "limit_recall", "headroom_closed")


def percents(front: Any) -> Any:
    """The front's recalls and rates as percentages with one decimal, and ``ci`` the needed recall's
    95% interval, for printing."""
    ci = [f"{100 * low:.1f}-{100 * high:.1f}" if low == low else "-"
          for low, high in zip(front["needed_low"], front["needed_high"], strict=True)]
    return front.assign(ci=ci, **{c: front[c].map(lambda v: "-" if v != v else f"{100 * v:.1f}%")
                                  for c in PERCENTS if c in front})


__all__ = ["FRONT_HEADERS", "PERCENTS", "percents"]
