"""How kind ctxlab's offline stand-in is, measured on the compactions agents recorded (issue 28).

Every summarizing policy's verdict rests on the offline summary ctxlab writes in its place. At
each recorded compaction (`ctxlab.replay.compaction_grading`) the agent's own summary and the
stand-ins are graded on the same needed strings, so the stand-in's needed recall minus the
agent's says how kind it is:

- `gap_table`: per candidate, pooled over compactions, with a 95% bootstrap interval of the paired
  difference that resamples compactions;
- `per_compaction`: per compaction and candidate, the interval resampling the calls;
- `own_preset_gap`: the figure a verdict carries: at each compaction, the stand-in of the agent's
  own preset (Claude Code's compactions against `claude_code`, pi's against `pi`), pooled.

Rows are `CompactionGradeRow`s (as a DataFrame); compactions whose calls needed nothing only the
summarized part held say nothing about recall and are left out of every figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ctxlab.analysis.tables import bootstrap_mean_ci
from ctxlab.replay.compaction_grading import AGENT, OWN_PRESET, Graded

KIND_POINTS = 0.10  # a stand-in kinder than this (the tolerance of issue 28's check) is flagged in verdicts
_KEYS = ["conversation_id", "compaction"]


class StandinGap(NamedTuple):
    """The stand-in against the agents' own summaries on recorded compactions, pooled.

    Attributes:
        source: where the compactions come from (the user's logs, or the shipped measurement).
        compactions: compactions graded (with needed strings).
        standin_recall, agent_recall: needed recall pooled over them.
        gap, low, high: stand-in minus agents, with its 95% interval over compactions.
        standin_tokens, agent_tokens: mean summary tokens.
    """

    source: str
    compactions: int
    standin_recall: float
    agent_recall: float
    gap: float
    low: float
    high: float
    standin_tokens: float
    agent_tokens: float

    @property
    def kinder(self) -> bool:
        """Whether the stand-in keeps much more than the agents did (more than `KIND_POINTS`)."""
        return self.gap > KIND_POINTS

    def line(self) -> str:
        """What a verdict on a summarizing policy carries, in one line."""
        plural = "s" if self.compactions != 1 else ""
        text = (f"{self.compactions} recorded compaction{plural} ({self.source}): stand-in "
                f"{100 * self.standin_recall:.0f}%, "
                f"agents' own summaries {100 * self.agent_recall:.0f}% of the strings only the summary could keep "
                f"({self.standin_tokens:,.0f} vs {self.agent_tokens:,.0f} summary tokens)")
        if self.kinder:
            text += (f"; the stand-in is kinder by {100 * self.gap:.0f} points "
                     f"[{100 * self.low:.0f}-{100 * self.high:.0f}], so summarizing policies' recall is overstated")
        return text


def summarizing(label: str) -> bool:
    """Whether the policy `label` names writes a summary (offline, the stand-in): its verdict carries
    the stand-in's kindness."""
    from ctxlab.strategies import get_strategy

    try:
        strategy = get_strategy(label)
    except Exception:  # a label that is no spec (a merged label of a report): not a policy to flag
        return False
    middle = getattr(strategy, "middle", None)
    return middle == "summarize" if middle is not None else hasattr(strategy, "summarizer")


def paired(rows: pd.DataFrame, candidate: str) -> pd.DataFrame:
    """Per compaction: the agent's and `candidate`'s counts side by side (needed > 0, no errors)."""
    ok = rows[rows["error"].isna() & (rows["needed"].fillna(0) > 0)]
    cols = [*_KEYS, "needed", "needed_kept", "needed_in_context", "summary_tokens"]
    agent = ok.loc[ok["candidate"] == AGENT, [*cols, "agent"]]
    other = ok.loc[ok["candidate"] == candidate, cols]
    return agent.merge(other, on=[*_KEYS, "needed"], suffixes=("_agent", "_standin"))


def _gap(both: pd.DataFrame, source: str) -> StandinGap | None:
    if both.empty:
        return None
    needed = both["needed"].to_numpy(float)
    diff = (both["needed_kept_standin"] - both["needed_kept_agent"]).to_numpy(float)
    gap, low, high = bootstrap_mean_ci(diff, needed)
    return StandinGap(source, len(both), float(both["needed_kept_standin"].sum() / needed.sum()),
                      float(both["needed_kept_agent"].sum() / needed.sum()), float(gap), float(low), float(high),
                      float(both["summary_tokens_standin"].mean()), float(both["summary_tokens_agent"].mean()))


def gap_table(rows: pd.DataFrame, source: str = "") -> pd.DataFrame:
    """Per candidate (every stand-in in `rows`), its `StandinGap` as a row, best-matching first."""
    candidates = [c for c in dict.fromkeys(rows["candidate"]) if c != AGENT]
    found = [(c, _gap(paired(rows, c), source)) for c in candidates]
    table = pd.DataFrame([{"candidate": c, **g._asdict()} for c, g in found if g is not None])
    return table.sort_values("gap", key=abs, ignore_index=True) if not table.empty else table


def own_preset_gap(rows: pd.DataFrame, source: str) -> StandinGap | None:
    """The stand-in of each compaction's own agent preset against the agent, pooled (None when no
    compaction of an agent with a preset needed anything)."""
    parts = [paired(rows[rows["agent"] == agent], preset) for agent, preset in OWN_PRESET.items()]
    both = pd.concat([p for p in parts if not p.empty], ignore_index=True) if any(
        not p.empty for p in parts) else pd.DataFrame()
    return _gap(both, source)


def per_compaction(graded: Sequence[Graded]) -> pd.DataFrame:
    """Per compaction and stand-in: both recalls and sizes, and the stand-in minus the agent with a
    95% interval resampling the compaction's calls (paired: the same needed strings)."""
    out = []
    agent = None
    for g in graded:
        if g.row.candidate == AGENT:
            agent = g
            continue
        if agent is None or g.grade is None or agent.grade is None or not agent.grade.needed:
            continue
        needed = np.array([n for n, _ in agent.grade.per_call], float)
        diff = np.array([k for _, k in g.grade.per_call], float) - np.array([k for _, k in agent.grade.per_call])
        gap, low, high = bootstrap_mean_ci(diff, needed)
        out.append({"conversation_id": g.row.conversation_id, "compaction": g.row.compaction, "agent": g.row.agent,
                    "candidate": g.row.candidate, "needed": agent.grade.needed,
                    "agent_recall": agent.grade.needed_recall, "standin_recall": g.grade.needed_recall,
                    "agent_in_context": agent.grade.in_context_recall, "standin_in_context": g.grade.in_context_recall,
                    "agent_non_regex": agent.grade.non_regex_recall, "standin_non_regex": g.grade.non_regex_recall,
                    "agent_tokens": agent.row.summary_tokens, "standin_tokens": g.row.summary_tokens,
                    "gap": gap, "low": low, "high": high})
    return pd.DataFrame(out)


__all__ = ["KIND_POINTS", "StandinGap", "gap_table", "own_preset_gap", "paired", "per_compaction", "summarizing"]
