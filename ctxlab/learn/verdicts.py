"""What the judging replay says about the learned policy, as tables (data, not text).

- `versus_recommended`: `learned` (its default setting) against `recommended`'s curve of settings
  read at learned's own tokens sent (`ctxlab.analysis.dominance`), pooled with 95% intervals over
  sessions and session by session (won / tied / lost / out of range, from learned's side), for
  needed, in-context and non-regex recall: the issue's acceptance check.
- `versus_anchors`: learned's curve of settings read at each anchor's (and the agent's own
  policy's) tokens, the way ``recommend --vs-anchors`` reads recommended's.
- the hindsight limit at learned's tokens and the share of the headroom it closes are columns of
  the front (`ctxlab.analysis.recommend.frontier`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ctxlab.analysis.dominance import LOSES, SETTINGS, WINS, compare

MEASURES = ("needed_recall", "in_context_recall", "non_regex_recall")
_FLIP = {WINS: LOSES, LOSES: WINS}
VERSUS = ["window", "measure", "learned", "learned_low", "learned_high", "tokens_sent", "recommended",
          "recommended_low", "recommended_high", "difference", "verdict", "won", "tied", "lost", "out"]


def versus_recommended(front: pd.DataFrame, units: pd.DataFrame, learned: str,
                       settings: Sequence[str] = SETTINGS) -> pd.DataFrame:
    """`VERSUS` rows per window and measure: learned's recall, recommended's curve at its tokens, the
    difference in points, the pooled verdict and the sessions learned won, tied and lost (or out of
    the curve's range), by the one rule (`ctxlab.analysis.dominance.compare`; `units`: the
    `ctxlab.analysis.sessions.unit_rows` of the same run)."""
    rows = []
    for window in sorted(front["window"].unique()):
        here, mine = front[front["window"] == window], units[units["window"] == window]
        curve, point = here[here["label"].isin(settings)], here[here["label"] == learned]
        if curve.empty or point.empty:
            continue
        for y in MEASURES:
            table = compare(curve, point, mine[mine["label"].isin([*settings, learned])], y).iloc[0]
            rows.append([window, y, table["anchor_recall"], table["anchor_low"], table["anchor_high"],
                         table["anchor_tokens"], table["candidate_recall"], table["candidate_low"],
                         table["candidate_high"], _difference(table["anchor_recall"], table["candidate_recall"]),
                         _FLIP.get(table["verdict"], table["verdict"]), table["sessions_lost"],
                         table["sessions_tied"], table["sessions_won"], table["sessions_out"]])
    return pd.DataFrame(rows, columns=VERSUS)


def _difference(mine: float, theirs: float | None) -> float:
    return float("nan") if theirs is None or theirs != theirs else 100 * (mine - theirs)


def versus_anchors(front: pd.DataFrame, units: pd.DataFrame, learned: Sequence[str],
                   anchors: Sequence[str]) -> pd.DataFrame:
    """`ctxlab.analysis.dominance.COLUMNS` rows plus ``measure``: learned's curve at each anchor's
    tokens (`units`: the `ctxlab.analysis.sessions.unit_rows` of the same run)."""
    parts = []
    for window in sorted(front["window"].unique()):
        here, mine = front[front["window"] == window], units[units["window"] == window]
        curve, points = here[here["label"].isin(learned)], here[here["label"].isin(anchors)]
        for y in MEASURES:
            parts.append(compare(curve, points, mine, y).assign(measure=y))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def accepted(table: pd.DataFrame, overflow: dict[int, float], lead: float = 1.0,
             most_over: float = 0.05) -> dict[int, bool]:
    """Per window, the issue's check on `versus_recommended`: fewer than `most_over` of learned's calls
    over the window (`overflow`, by window), at least `lead` points over the curve on needed and
    in-context recall, and no more sessions lost than won on either."""
    out = {}
    for window, rows in table.groupby("window"):
        checked = rows[rows["measure"].isin(("needed_recall", "in_context_recall"))]
        out[int(window)] = bool(len(checked) == 2 and overflow.get(int(window), 1.0) < most_over
                                and (checked["difference"] >= lead).all() and (checked["lost"] <= checked["won"]).all())
    return out


__all__ = ["MEASURES", "VERSUS", "accepted", "versus_anchors", "versus_recommended"]
