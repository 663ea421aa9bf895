"""Does a candidate policy beat the anchors at their own cost? Recall compared at equal tokens sent.

A candidate measured at several settings of its knob is a curve of recall (by default
needed-context recall, `ctxlab.analysis.recommend.frontier`) against mean tokens sent per session,
its settings ordered by tokens sent. Each anchor preset is one point. The candidate's recall at an
anchor's tokens is read off the curve, linearly between the two settings around it (its interval
too, bound by bound), and compared with the anchor's:

- pooled: ``wins`` / ``loses`` when the two 95% intervals over sessions do not overlap, else
  ``ties`` (without intervals: within `SESSION_TIE`);
- per session: the same read-off on each session's own curve (the settings' tokens sent and recall
  in that session) at the anchor's tokens in that session: won when above the anchor's recall by
  more than `SESSION_TIE`, lost when below by more, tied within; ``out`` when the anchor sends
  fewer tokens than every setting or more than all of them in that session (sessions that needed
  nothing are left out); counted in ``sessions_won`` / ``sessions_tied`` / ``sessions_lost`` / ``sessions_out``;
- ``out of range``: the anchor sends fewer tokens than the candidate's cheapest setting or more
  than its dearest (no extrapolation). ``dominated`` then still says whether some setting sends no
  more and keeps at least as much.

Tokens sent, not effective cost, is the axis here: refetch tokens are themselves a consequence of
the strings lost, so comparing at equal effective cost would count a loss twice.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ctxlab.analysis.tables import CONVERSATION
from ctxlab.replay.config import DEFAULT_COUNTER, SEED, ReplayConfig

ANCHORS = ("pi", "codex", "langchain_trim", "langchain_summarization", "langchain_clear_tool_uses", "openhands",
           "openhands_agent", "inspect_trim", "inspect_edit", "inspect_summary", "claude_code",
           "anthropic_context_editing", "anthropic_compaction", "gemini_cli", "opencode", "cline", "aider", "goose",
           "letta")
# `recommended` from cheap to generous: compact at `trigger_value` of the window, down to `tail_value`.
SETTINGS = ("recommended:trigger_value=0.4,tail_value=0.2", "recommended:trigger_value=0.6,tail_value=0.4",
            "recommended:trigger_value=0.8,tail_value=0.6", "recommended:trigger_value=0.9,tail_value=0.7",
            "recommended:trigger_value=1.0,tail_value=0.9")
WINDOWS = (8000, 32000, 128000)
SESSION_TIE = 0.005
WINS, TIES, LOSES, OUT = "wins", "ties", "loses", "out of range"
# A front's recall column -> the (kept, total) session sums it pools (`ctxlab.analysis.recommend.session_rows`).
SESSION_RECALLS = {"needed_recall": ("needed_kept", "needed_total"), "in_context_recall": ("framed_kept", "needed_total"),
                   "non_regex_recall": ("non_regex_kept", "non_regex_total"), "fact_recall": ("facts_kept", "facts_total")}
COLUMNS = ["window", "anchor", "anchor_tokens", "anchor_recall", "anchor_low", "anchor_high", "anchor_overflow_rate",
           "anchor_orphan_rate", "candidate_recall", "candidate_low", "candidate_high", "verdict", "dominated",
           "sessions_won", "sessions_tied", "sessions_lost", "sessions_out"]


def curve(rows: pd.DataFrame, y: str = "needed_recall") -> pd.DataFrame:
    """The candidate's points: ``tokens_sent`` ascending (unique), with ``recall`` (the best of
    the settings at equal tokens) and its ``low`` / ``high`` bounds when `rows` have them."""
    bounds = _bounds(y)
    points = rows.dropna(subset=["tokens_sent", y]).assign(
        recall=lambda d: d[y], low=lambda d: d[bounds[0]] if bounds[0] in d else np.nan,
        high=lambda d: d[bounds[1]] if bounds[1] in d else np.nan)
    best = points.sort_values("recall", ascending=False).drop_duplicates("tokens_sent")
    return best[["tokens_sent", "recall", "low", "high"]].sort_values("tokens_sent", ignore_index=True)


def _bounds(y: str) -> tuple[str, str]:
    """The interval columns of a front's recall column (``needed_low``, ``in_context_recall_low``...)."""
    return ("needed_low", "needed_high") if y == "needed_recall" else (f"{y}_low", f"{y}_high")


def recall_at(front: pd.DataFrame, tokens: float, column: str = "recall") -> float | None:
    """The curve's `column` at `tokens`, linear between its points; None outside its range."""
    if front.empty or not front["tokens_sent"].min() <= tokens <= front["tokens_sent"].max():
        return None
    value = float(np.interp(tokens, front["tokens_sent"], front[column]))
    return None if np.isnan(value) else value


def verdict(anchor: tuple[float, float, float], candidate: tuple[float | None, float | None, float | None],
            tie: float = SESSION_TIE) -> str:
    """``wins`` / ``loses`` when the (recall, low, high) intervals do not overlap, else ``ties``;
    without intervals, within `tie` is a tie; ``out of range`` when the candidate has no recall."""
    recall, low, high = candidate
    if recall is None:
        return OUT
    a_recall, a_low, a_high = anchor
    if low is None or high is None or np.isnan(a_low) or np.isnan(a_high):
        return TIES if abs(recall - a_recall) <= tie else WINS if recall > a_recall else LOSES
    return WINS if low > a_high else LOSES if high < a_low else TIES


def compare(candidate: pd.DataFrame, anchors: pd.DataFrame, sessions: pd.DataFrame | None = None,
            y: str = "needed_recall") -> pd.DataFrame:
    """One row per anchor (`COLUMNS`): the anchor's point, the candidate's recall at its tokens,
    the verdict and, with `sessions` (`session_rows` of both, ONE window), the per-session tally."""
    front = curve(candidate, y)
    rows = []
    for _, a in anchors.iterrows():
        at = (recall_at(front, a["tokens_sent"]), recall_at(front, a["tokens_sent"], "low"),
              recall_at(front, a["tokens_sent"], "high"))
        low, high = _bounds(y)
        point = (a[y], a.get(low, np.nan), a.get(high, np.nan))
        cheaper = front[front["tokens_sent"] <= a["tokens_sent"]]
        tally = per_session(candidate["label"], a["label"], sessions, y) if sessions is not None else {}
        rows.append([a["window"], a["label"], a["tokens_sent"], *point, a.get("overflow_rate", np.nan),
                     a.get("orphan_rate", np.nan), *at, verdict(point, at),
                     bool((cheaper["recall"] >= a[y] - SESSION_TIE).any()),
                     *(tally.get(k, 0) for k in (WINS, TIES, LOSES, OUT))])
    return pd.DataFrame(rows, columns=COLUMNS)


def per_session(candidate: Sequence[str], anchor: str, sessions: pd.DataFrame, y: str = "needed_recall") -> dict:
    """Sessions the candidate's settings win, tie, lose or cannot judge (out of range) against
    `anchor`; sessions where nothing was needed are left out."""
    kept, total = SESSION_RECALLS[y]
    frame = sessions.assign(non_regex_kept=sessions["needed_kept"] - sessions["regex_kept"],
                            non_regex_total=sessions["needed_total"] - sessions["regex_total"])
    frame = frame[frame[total] > 0].assign(recall=lambda d: d[kept] / d[total])
    mine = frame[frame["label"].isin(list(candidate))]
    curves = {key: curve(group, "recall") for key, group in mine.groupby(list(CONVERSATION), observed=True)}
    tally = dict.fromkeys((WINS, TIES, LOSES, OUT), 0)
    for key, a in frame[frame["label"] == anchor].groupby(list(CONVERSATION), observed=True):
        own = curves.get(key)
        at = recall_at(own, float(a["tokens_sent"].iloc[0])) if own is not None else None
        tally[verdict((float(a["recall"].iloc[0]), np.nan, np.nan), (at, None, None))] += 1
    return tally


def dominance(front: pd.DataFrame, candidate: str = "recommended", anchors: Sequence[str] = ANCHORS,
              sessions: pd.DataFrame | None = None, y: str = "needed_recall") -> pd.DataFrame:
    """`compare` per window of a `frontier`: the candidate's rows are those labelled `candidate`
    or ``candidate:...``, the anchors' those labelled exactly as in `anchors`; `sessions` are the
    `session_rows` of the same run (all windows)."""
    label = front["label"].astype(str)
    mine = front[(label == candidate) | label.str.startswith(f"{candidate}:")]
    theirs = front[label.isin(anchors)]
    parts = [compare(mine[mine["window"] == b], theirs[theirs["window"] == b],
                     sessions[sessions["window"] == b] if sessions is not None else None, y)
             for b in sorted(theirs["window"].unique())]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=COLUMNS)


def replay_config(sources: Sequence[str], windows: Sequence[int] = WINDOWS, *, settings: Sequence[str] = SETTINGS,
                  anchors: Sequence[str] = ANCHORS, reference: str = DEFAULT_COUNTER, **options: object
                  ) -> ReplayConfig:
    """The per-turn replay the comparison reads: anchors and candidate settings, each counting with
    its agent's counter (``seed``), measured by `reference`. `options` go to `ReplayConfig`
    (db, workers, limit, name, skip_invalid)."""
    return ReplayConfig(tuple(sources), (*anchors, *settings), tuple(windows), counters=(SEED,),
                        references=(reference,), modes=("per-turn",), estimators=(), **options)  # type: ignore[arg-type]


__all__ = ["ANCHORS", "COLUMNS", "SESSION_RECALLS", "SESSION_TIE", "SETTINGS", "WINDOWS", "compare", "curve",
           "dominance", "per_session", "recall_at", "replay_config", "verdict"]
