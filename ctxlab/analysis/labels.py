"""Point labels that stay readable when many points crowd one corner of a chart.

Each point gets a short tag (its number in a key printed beside the chart); tags are placed one by
one, each at the first of a ring of offsets around its point whose box overlaps no tag placed
before it and no point, else at the offset that overlaps least, with a thin leader line when it
sits away from its point. Boxes are estimated in display pixels from the font size, which is
close enough for tags of one to three characters.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes

# Offsets in points (1/72 inch) from the point to the tag's lower-left corner, nearest first.
_RING = [(dx * r, dy * r) for r in (1, 2, 3, 4) for dx, dy in
         ((4, 3), (4, -9), (-10, 3), (-10, -9), (5, -3), (-12, -3), (-3, 5), (-3, -12))]


def place_labels(ax: Axes, xs: Sequence[float], ys: Sequence[float], tags: Sequence[str], *,
                 fontsize: float = 7.0, color: str = "#222222") -> None:
    """Annotate point i at (xs[i], ys[i]) with tags[i], avoiding overlaps (data coordinates)."""
    ax.autoscale_view()
    scale = ax.figure.dpi / 72
    centres = ax.transData.transform(np.column_stack([xs, ys]))
    height = fontsize * scale * 1.2
    placed: list[tuple[float, float, float, float]] = []
    dots = [(x - 4 * scale, y - 4 * scale, x + 4 * scale, y + 4 * scale) for x, y in centres]
    for (cx, cy), x, y, tag in zip(centres, xs, ys, tags, strict=True):
        width = fontsize * scale * 0.62 * len(tag) + 2
        boxes = [(cx + dx * scale, cy + dy * scale, cx + dx * scale + width, cy + dy * scale + height)
                 for dx, dy in _RING]
        costs = [_overlap(box, placed) * 4 + _overlap(box, dots) for box in boxes]
        best = int(np.argmin(costs))
        placed.append(boxes[best])
        dx, dy = _RING[best]
        far = abs(dx) > 12 or abs(dy) > 12
        ax.annotate(tag, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize, color=color,
                    va="bottom", ha="left",
                    arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "#999999"} if far else None)


def _overlap(box: tuple[float, float, float, float], others: Sequence[tuple[float, float, float, float]]) -> float:
    """Total overlapping area of `box` with `others`."""
    x0, y0, x1, y1 = box
    total = 0.0
    for a0, b0, a1, b1 in others:
        w, h = min(x1, a1) - max(x0, a0), min(y1, b1) - max(y0, b0)
        if w > 0 and h > 0:
            total += w * h
    return total


__all__ = ["place_labels"]
