"""Does a candidate policy beat the anchors at their own cost? Recall compared at equal tokens sent.

A candidate measured at several settings of its knob is a curve of recall (by default
needed-context recall, `ctxlab.analysis.recommend.frontier`) against mean tokens sent per session,
its settings ordered by tokens sent. Each anchor preset is one point. The candidate's recall at an
anchor's tokens is read off the curve, linearly between the two settings around it (its interval
too, bound by bound, for display), and compared with the anchor's by ctxlab's one rule for a tie
(`ctxlab.analysis.ties`, docs/quality.md):

- pooled: the read-off minus the anchor's recall, ``(1 - t) x setting_1 + t x setting_2 - anchor``,
  with its paired 95% interval over sessions (every term resampled on the same sessions):
  ``wins`` when the whole interval is above zero, ``loses`` when below, else ``ties``;
- per session: the same read-off on the session's own curve (the settings' tokens sent and recall
  in that session) at the anchor's tokens in that session, and the same rule one level down: the
  paired interval resamples the session's calls (the units its recall pools; every policy is
  graded on the same calls). Won, lost or tied by the same sign test; ``out`` when the anchor
  sends fewer tokens than every setting or more than all of them in that session; sessions that
  needed nothing are left out. Calls of one session are correlated, so these intervals are
  narrower than the data may warrant: the tally is a finer reading, the pooled verdict the decision;
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

from ctxlab.analysis.sessions import RECALLS
from ctxlab.analysis.tables import CONVERSATION
from ctxlab.analysis.ties import Difference, Ratio, paired
from ctxlab.replay.config import DEFAULT_COUNTER, SEED, ReplayConfig

ANCHORS = ("pi", "codex", "langchain_trim", "langchain_summarization", "langchain_clear_tool_uses", "openhands",
           "openhands_agent", "inspect_trim", "inspect_edit", "inspect_summary", "claude_code",
           "anthropic_context_editing", "anthropic_compaction", "gemini_cli", "opencode", "cline", "aider", "goose",
           "letta")
# `recommended` from cheap to generous: compact above `trigger_events` events (or over
# `trigger_share` of the window, down to `target_share`); the last only when the window is full.
SETTINGS = ("recommended:trigger_share=0.4,target_share=0.2,trigger_events=20", "recommended:trigger_events=20",
            "recommended:trigger_events=30", "recommended:trigger_events=40", "recommended:trigger_events=60",
            "recommended:trigger_events=80", "recommended:trigger_events=120", "recommended:trigger_events=0")
WINDOWS = (8000, 32000, 128000)
WINS, TIES, LOSES, OUT = "wins", "ties", "loses", "out of range"
COLUMNS = ["window", "anchor", "anchor_tokens", "anchor_recall", "anchor_low", "anchor_high", "anchor_overflow_rate",
           "anchor_orphan_rate", "candidate_recall", "candidate_low", "candidate_high", "difference", "difference_low",
           "difference_high", "verdict", "dominated", "sessions_won", "sessions_tied", "sessions_lost", "sessions_out"]
Terms = tuple[tuple[float, str], ...]  # (weight, setting label) of a read-off


def curve(rows: pd.DataFrame, y: str = "needed_recall") -> pd.DataFrame:
    """The candidate's points: ``tokens_sent`` ascending (unique), with ``recall`` (the best of
    the settings at equal tokens), its ``low`` / ``high`` bounds when `rows` have them, and the
    ``label`` of the setting."""
    bounds = _bounds(y)
    points = rows.dropna(subset=["tokens_sent", y]).assign(
        recall=lambda d: d[y], low=lambda d: d[bounds[0]] if bounds[0] in d else np.nan,
        high=lambda d: d[bounds[1]] if bounds[1] in d else np.nan)
    best = points.sort_values("recall", ascending=False).drop_duplicates("tokens_sent")
    return best[["tokens_sent", "recall", "low", "high", "label"]].sort_values("tokens_sent", ignore_index=True)


def _bounds(y: str) -> tuple[str, str]:
    """The interval columns of a front's recall column (``needed_low``, ``in_context_recall_low``...)."""
    return ("needed_low", "needed_high") if y == "needed_recall" else (f"{y}_low", f"{y}_high")


def bracket(points: pd.DataFrame, tokens: float) -> Terms | None:
    """The settings of a `curve` around `tokens` with their weights in the linear read-off (one
    setting at its own tokens); None outside the curve's range."""
    xs = points["tokens_sent"].to_numpy(float)
    if not len(xs) or not xs[0] <= tokens <= xs[-1]:
        return None
    i = int(np.searchsorted(xs, tokens))
    labels = points["label"].astype(str).tolist()
    if xs[i] == tokens:
        return ((1.0, labels[i]),)
    t = (tokens - xs[i - 1]) / (xs[i] - xs[i - 1])
    return ((1.0 - t, labels[i - 1]), (t, labels[i]))


def recall_at(points: pd.DataFrame, tokens: float, column: str = "recall") -> float | None:
    """The curve's `column` at `tokens`, linear between its points; None outside its range."""
    terms = bracket(points, tokens)
    if terms is None:
        return None
    by = points.assign(label=points["label"].astype(str)).set_index("label")[column]
    value = float(sum(weight * by[label] for weight, label in terms))
    return None if np.isnan(value) else value


def judge(difference: Difference | None) -> str:
    """The verdict of a read-off minus the anchor: the one rule's sign, or out of range (also when
    nothing could be compared: no session or call both were graded on)."""
    if difference is None or np.isnan(difference.mean):
        return OUT
    return TIES if difference.tie else WINS if difference.low > 0 else LOSES


def compare(candidate: pd.DataFrame, anchors: pd.DataFrame, units: pd.DataFrame,
            y: str = "needed_recall") -> pd.DataFrame:
    """One row per anchor (`COLUMNS`): the anchor's point, the candidate's recall at its tokens,
    the difference with its paired interval, the verdict and the per-session tally.

    Args:
        candidate: `frontier` rows of the candidate's settings (ONE window).
        anchors: `frontier` rows of the anchors (the same window).
        units: `ctxlab.analysis.sessions.unit_rows` of both (the same window).
        y: the recall compared (a `RECALLS` name).
    """
    kept, total = RECALLS[y]
    points = curve(candidate, y)
    sums = units.groupby(["label", *CONVERSATION], observed=True)[[kept, total, "sent"]].sum()
    pooled = {col: sums[col].unstack("label") for col in (kept, total)}
    calls = {key: frame.set_index(["turn", "label"])[[kept, total]].unstack("label")
             for key, frame in units.groupby(list(CONVERSATION), observed=True)}
    rows = []
    for _, a in anchors.iterrows():
        terms = bracket(points, a["tokens_sent"])
        diff = None if terms is None else _paired(pooled[kept], pooled[total], terms, str(a["label"]))
        at = [recall_at(points, a["tokens_sent"], c) for c in ("recall", "low", "high")]
        low, high = _bounds(y)
        cheaper = points[points["tokens_sent"] <= a["tokens_sent"]]
        tally = per_session(candidate["label"], str(a["label"]), sums, calls, kept, total)
        rows.append([a["window"], a["label"], a["tokens_sent"], a[y], a.get(low, np.nan), a.get(high, np.nan),
                     a.get("overflow_rate", np.nan), a.get("orphan_rate", np.nan), *at,
                     *(diff if diff is not None else (np.nan,) * 3), judge(diff),
                     bool((cheaper["recall"] >= a[y]).any()), *(tally[k] for k in (WINS, TIES, LOSES, OUT))])
    return pd.DataFrame(rows, columns=COLUMNS)


def _paired(kept: pd.DataFrame, total: pd.DataFrame, terms: Terms, anchor: str) -> Difference:
    """The read-off `terms` minus `anchor`, paired over the rows (sessions or calls) all of them have."""
    labels = [label for _, label in terms] + [anchor]
    both = pd.concat([kept[labels], total[labels]], axis=1, keys=["k", "t"]).dropna()
    weights = [w for w, _ in terms] + [-1.0]
    return paired([(w, Ratio.of(both[("k", label)], both[("t", label)])) for w, label in zip(weights, labels,
                                                                                            strict=True)])


def per_session(candidate: Sequence[str], anchor: str, sums: pd.DataFrame, calls: dict, kept: str,
                total: str) -> dict[str, int]:
    """Sessions the candidate's settings win, tie, lose or cannot judge (out of range) against
    `anchor` (see the module docstring); sessions where nothing was needed are left out.
    `sums`: per label and session the kept, total and sent sums; `calls`: per session, the calls'
    kept and total by label."""
    tally = dict.fromkeys((WINS, TIES, LOSES, OUT), 0)
    for key, group in sums.groupby(level=list(CONVERSATION), observed=True):
        own = group.droplevel(list(CONVERSATION))
        if anchor not in own.index or not own.at[anchor, total]:
            continue
        mine = own[own.index.isin(list(candidate)) & (own[total] > 0)].reset_index()
        points = curve(mine.assign(recall=mine[kept] / mine[total], tokens_sent=mine["sent"]), "recall")
        terms = bracket(points, float(own.at[anchor, "sent"]))
        tally[judge(None if terms is None else _paired(calls[key][kept], calls[key][total], terms, anchor))] += 1
    return tally


def dominance(front: pd.DataFrame, units: pd.DataFrame, candidate: str = "recommended",
              anchors: Sequence[str] = ANCHORS, y: str = "needed_recall") -> pd.DataFrame:
    """`compare` per window of a `frontier`: the candidate's rows are those labelled `candidate`
    or ``candidate:...``, the anchors' those labelled exactly as in `anchors`; `units` are the
    `ctxlab.analysis.sessions.unit_rows` of the same run (all windows)."""
    label = front["label"].astype(str)
    mine = front[(label == candidate) | label.str.startswith(f"{candidate}:")]
    theirs = front[label.isin(anchors)]
    parts = [compare(mine[mine["window"] == b], theirs[theirs["window"] == b], units[units["window"] == b], y)
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


__all__ = ["ANCHORS", "COLUMNS", "LOSES", "OUT", "SETTINGS", "TIES", "WINDOWS", "WINS", "bracket", "compare", "curve",
           "dominance", "judge", "per_session", "recall_at", "replay_config"]
