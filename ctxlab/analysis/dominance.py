"""Does a candidate policy beat the anchors at their own cost? Recall compared at equal tokens sent.

A candidate measured at several settings of its knob is a curve of fact recall against mean tokens
sent per session (rows of `ctxlab.analysis.recommend.frontier`), its settings ordered by tokens
sent. Each anchor preset is one point. The candidate's recall at an anchor's tokens is read off the
curve, linearly between the two settings around it, and compared with the anchor's recall:

- ``wins``: more than `RECALL_TIE` above; ``ties``: within it; ``loses``: more than it below;
- ``out of range``: the anchor sends fewer tokens than the candidate's cheapest setting or more
  than its dearest (no extrapolation). ``dominated`` then still says whether some setting sends
  no more and keeps at least as much (an anchor that overflows the window sends more than any
  setting that fits it).

Every setting is a point of the curve, even one that keeps fewer facts than a cheaper one (where
the curve dips, so does the candidate's recall); settings at the same tokens count as the best.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ctxlab.analysis.recommend import RECALL_TIE
from ctxlab.replay.config import DEFAULT_COUNTER, SEED, ReplayConfig

ANCHORS = ("pi", "codex", "langchain_trim", "langchain_summarization", "langchain_clear_tool_uses", "openhands",
           "openhands_agent", "inspect_trim", "inspect_edit", "inspect_summary")
# `recommended` from cheap to generous: compact at `trigger_value` of the window, down to `tail_value`.
SETTINGS = ("recommended:trigger_value=0.4,tail_value=0.2", "recommended:trigger_value=0.6,tail_value=0.4",
            "recommended:trigger_value=0.8,tail_value=0.6", "recommended:trigger_value=0.9,tail_value=0.7",
            "recommended:trigger_value=1.0,tail_value=0.9")
WINDOWS = (8000, 32000, 128000)
WINS, TIES, LOSES, OUT = "wins", "ties", "loses", "out of range"
COLUMNS = ["budget", "anchor", "anchor_tokens", "anchor_recall", "anchor_overflow_rate", "anchor_orphan_rate",
           "candidate_recall", "verdict", "dominated"]


def curve(rows: pd.DataFrame) -> pd.DataFrame:
    """The candidate's points: ``tokens_sent`` ascending (unique), with their ``fact_recall``."""
    points = rows.dropna(subset=["tokens_sent", "fact_recall"])
    return (points.groupby("tokens_sent", as_index=False)["fact_recall"].max()
            .sort_values("tokens_sent", ignore_index=True))


def recall_at(front: pd.DataFrame, tokens: float) -> float | None:
    """The curve's recall at `tokens`, linear between its points; None outside its range."""
    if front.empty or not front["tokens_sent"].min() <= tokens <= front["tokens_sent"].max():
        return None
    return float(np.interp(tokens, front["tokens_sent"], front["fact_recall"]))


def verdict(anchor_recall: float, candidate_recall: float | None, tie: float = RECALL_TIE) -> str:
    """``wins``, ``ties`` (within `tie`), ``loses``, or ``out of range`` (no candidate recall)."""
    if candidate_recall is None:
        return OUT
    if abs(candidate_recall - anchor_recall) <= tie:
        return TIES
    return WINS if candidate_recall > anchor_recall else LOSES


def compare(candidate: pd.DataFrame, anchors: pd.DataFrame, tie: float = RECALL_TIE) -> pd.DataFrame:
    """One row per anchor (`COLUMNS`): the anchor's point, the candidate's recall at its tokens
    and the verdict. Both frames hold `frontier` rows of ONE window (``budget``)."""
    front = curve(candidate)
    rows = []
    for _, a in anchors.iterrows():
        at = recall_at(front, a["tokens_sent"])
        cheaper = front[front["tokens_sent"] <= a["tokens_sent"]]
        rows.append([a["budget"], a["label"], a["tokens_sent"], a["fact_recall"], a.get("overflow_rate", np.nan),
                     a.get("orphan_rate", np.nan), at, verdict(a["fact_recall"], at, tie),
                     bool((cheaper["fact_recall"] >= a["fact_recall"] - tie).any())])
    return pd.DataFrame(rows, columns=COLUMNS)


def dominance(front: pd.DataFrame, candidate: str = "recommended", anchors: Sequence[str] = ANCHORS,
              tie: float = RECALL_TIE) -> pd.DataFrame:
    """`compare` per window of a `frontier`: the candidate's rows are those labelled `candidate`
    or ``candidate:...``, the anchors' those labelled exactly as in `anchors`."""
    label = front["label"].astype(str)
    mine = front[(label == candidate) | label.str.startswith(f"{candidate}:")]
    theirs = front[label.isin(anchors)]
    parts = [compare(mine[mine["budget"] == b], theirs[theirs["budget"] == b], tie)
             for b in sorted(theirs["budget"].unique())]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)


def replay_config(sources: Sequence[str], windows: Sequence[int] = WINDOWS, *, settings: Sequence[str] = SETTINGS,
                  anchors: Sequence[str] = ANCHORS, reference: str = DEFAULT_COUNTER, **options: object
                  ) -> ReplayConfig:
    """The per-turn replay the comparison reads: anchors and candidate settings, each counting with
    its agent's counter (``seed``), measured by `reference`. `options` go to `ReplayConfig`
    (db, workers, limit, name, skip_invalid)."""
    return ReplayConfig(tuple(sources), (*anchors, *settings), tuple(windows), counters=(SEED,),
                        references=(reference,), modes=("per-turn",), estimators=(), **options)  # type: ignore[arg-type]


__all__ = ["ANCHORS", "COLUMNS", "SETTINGS", "WINDOWS", "compare", "curve", "dominance", "recall_at",
           "replay_config", "verdict"]
