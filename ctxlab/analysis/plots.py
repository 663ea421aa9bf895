"""Matplotlib figures of the `ctxlab.analysis.tables` tables, one function per figure.

Every function takes the DataFrame its analysis function returns and gives back a
`matplotlib.figure.Figure` built without pyplot, so nothing is registered in pyplot's global
figure list and no rcParams change outlives the call: notebooks display the figure, the dashboard
hands it to ``st.pyplot``, the report embeds `png(fig)`.

Colours follow the strategy (the same strategy has the same colour in every figure); the line
style follows the counter it trusted (solid: a real tokenizer; dashed: an estimator). Text falls
back to a CJK font when one is installed, so Chinese or Japanese names never render as boxes.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
from collections.abc import Iterator, Sequence
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, PercentFormatter

EXACT_COUNTERS = ("o200k_base", "cl100k_base", "claude_legacy")
LEGEND_ROW = 0.22  # inches a row of the legend below the panels takes
_CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK KR",
              "Noto Serif CJK JP", "WenQuanYi Zen Hei", "Droid Sans Fallback", "AR PL UMing CN")
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#843c39")


@functools.lru_cache(maxsize=1)
@functools.cache
def font_families() -> tuple[str, ...]:
    """DejaVu Sans, then the first installed CJK-capable font (matplotlib falls back per glyph)."""
    from matplotlib import font_manager

    found = _known_cjk(font_manager.fontManager)
    if not found:  # fonts installed after matplotlib cached its font list: register them now
        for path in font_manager.findSystemFonts():
            if "CJK" in os.path.basename(path) or "wqy" in os.path.basename(path).lower():
                font_manager.fontManager.addfont(path)
        found = _known_cjk(font_manager.fontManager)
    return ("DejaVu Sans", *found[:1])


def _known_cjk(manager: Any) -> list[str]:
    installed = {f.name for f in manager.ttflist}
    return [f for f in _CJK_FONTS if f in installed]


@contextlib.contextmanager
def _style() -> Iterator[None]:
    rc: Any = {"font.family": list(font_families()), "font.size": 9, "axes.titlesize": 10, "axes.titleweight": "bold",
          "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
          "legend.fontsize": 8, "legend.frameon": False, "figure.dpi": 100}
    with matplotlib.rc_context(rc):
        yield


def _figure(ncols: int = 1, nrows: int = 1, *, width: float = 9.0, height: float = 4.2,
            sharey: bool = False) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, sharey=sharey, squeeze=False)
    return fig, list(axes.flat)


def _finish(fig: Figure, title: str) -> Figure:
    fig.suptitle(title, fontsize=11, fontweight="bold")
    # A suptitle wider than the figure is clipped, not wrapped: widen narrow figures to fit it.
    fig.set_figwidth(max(fig.get_figwidth(), 0.6 + 0.085 * len(title)))
    for ax in fig.axes:
        # Tick labels are made lazily at draw time, possibly outside `_style`; pin their font.
        ax.tick_params(labelfontfamily=list(font_families()))
    return fig


def _empty(title: str, message: str) -> Figure:
    with _style():
        fig, (ax,) = _figure(height=2.2)
        ax.axis("off")
        ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=10, color="#555555", wrap=True)
        return _finish(fig, title)


def png(fig: Figure, dpi: int = 110) -> bytes:
    """The figure as PNG bytes (for the report, downloads and notebook display)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def strategy_color(label: str) -> str:
    """A stable colour per strategy: by its position among the registered strategies."""
    from ctxlab.strategies import list_strategies

    names = list_strategies()
    base = str(label).split(":")[0]
    index = names.index(base) if base in names else len(names) + sum(map(ord, str(label)))
    return _PALETTE[index % len(_PALETTE)]


def _line_style(counter: str) -> str:
    return "-" if counter in EXACT_COUNTERS else "--"


def _marker(counter: str) -> str:
    """Markers tell apart two variants of one strategy with the same kind of counter."""
    return {"o200k_base": "o", "cl100k_base": "s", "claude_legacy": "D"}.get(counter, "^")


def _window_axis(ax: Axes, windows: Sequence[int]) -> None:
    windows = sorted({int(b) for b in windows})
    ax.set_xscale("log", base=2)
    ax.set_xticks(windows)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _tokens(v)))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_xlabel("window (tokens)")


def _tokens(value: float) -> str:
    return f"{value / 1000:g}k" if value >= 1000 else f"{value:g}"


def _variants(df: pd.DataFrame) -> list[tuple[str, str]]:
    return sorted({(str(a), str(b)) for a, b in zip(df["label"], df["counter"], strict=False)})


def _legend(fig: Figure, axes: Sequence[Axes], title: str = "strategy [counter]") -> None:
    """One legend for the figure, below the panels (a side legend as tall as the axes collides
    with the title in a constrained layout)."""
    handles, labels = axes[0].get_legend_handles_labels()
    if not handles:
        return
    renderer = FigureCanvasAgg(fig).get_renderer()
    for ncols in range(min(4, len(handles)), 0, -1):
        # Long labels ("langchain_summarization [langchain_approx]") in four columns run past both
        # edges of the figure and are cut off: fewer columns, each row measured as drawn.
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=ncols, title=title,
                            title_fontsize=8)
        if ncols == 1 or legend.get_window_extent(renderer).width <= fig.bbox.width:
            break
        legend.remove()
    # The callers made room for `_legend_rows` (four columns); the figure grows by the rows added.
    added = -(-len(handles) // ncols) - -(-len(handles) // 4)
    fig.set_figheight(fig.get_figheight() + LEGEND_ROW * added)


def _facets(n: int, *, panel_width: float = 4.6, panel_height: float = 3.2, legend_rows: int = 0,
            sharey: bool = True) -> tuple[Figure, list[Axes]]:
    """Panels two to a row (four windows side by side are too narrow to read); the unused cell
    of an odd count is hidden."""
    ncols = min(n, 2)
    nrows = -(-n // ncols)
    if n == 1:  # one panel gets the width two would have, so the legend below fits under it
        panel_width *= 1.8
    fig, axes = _figure(ncols, nrows, width=panel_width * ncols + 0.6,
                        height=panel_height * nrows + 0.9 + LEGEND_ROW * legend_rows, sharey=sharey)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def _legend_rows(df: pd.DataFrame) -> int:
    return -(-len(_variants(df)) // 4) + 1


def retained_ratio_curves(ci: pd.DataFrame) -> Figure:
    """Retained-token ratio vs window per strategy variant, one panel per mode, with CI bands.

    Args:
        ci: `ctxlab.analysis.tables.retained_ci` (label, counter, window, mode, mean, low, high).
    """
    title = "Retained-token ratio vs window (95% bootstrap CI over conversations)"
    if ci.empty:
        return _empty(title, "no results to plot")
    modes = sorted(ci["mode"].unique())
    with _style():
        fig, axes = _facets(len(modes), legend_rows=_legend_rows(ci))
        for ax, mode in zip(axes, modes, strict=False):
            part = ci[ci["mode"] == mode]
            variants = _variants(part)
            for i, (label, counter) in enumerate(variants):
                line = part[(part["label"] == label) & (part["counter"] == counter)].sort_values("window")
                # Intervals as error bars, nudged apart along the (log) window axis: a dozen
                # overlapping shaded bands would hide each other.
                x = line["window"] * 2 ** (0.03 * (i - (len(variants) - 1) / 2))
                ax.errorbar(x, line["mean"], yerr=[line["mean"] - line["low"], line["high"] - line["mean"]],
                            fmt=_line_style(counter), color=strategy_color(label), marker=_marker(counter), ms=3,
                            lw=1.2, elinewidth=0.8, capsize=2, alpha=0.9, label=f"{label} [{counter}]")
            _window_axis(ax, part["window"])
            ax.set_title(f"mode: {mode}")
            # Summaries and structured prompts can make a result larger than its input.
            ax.set_ylim(0, max(1.05, float(ci["high"].max()) + 0.05))
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        axes[0].set_ylabel("tokens kept / tokens of the full history")
        _legend(fig, axes)
        return _finish(fig, title)


def _heatmap(ax: Axes, matrix: pd.DataFrame, *, fmt: str = "{:.0%}", cmap: str = "RdYlGn", vmin: float = 0.0,
             vmax: float = 1.0, xlabel: str = "", column_format: str = "{}") -> None:
    values = matrix.to_numpy(dtype=float)
    image = ax.imshow(values, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(matrix.shape[1]), [column_format.format(c) for c in matrix.columns])
    ax.set_yticks(range(matrix.shape[0]), [str(i) for i in matrix.index])
    ax.set_xlabel(xlabel)
    norm = image.norm
    for (r, c), value in np.ndenumerate(values):
        if np.isnan(value):
            continue
        shade = image.cmap(norm(value))
        dark = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.5
        ax.text(c, r, fmt.format(value), ha="center", va="center", fontsize=8, color="white" if dark else "black")


def _variant_matrix(df: pd.DataFrame, value: str) -> pd.DataFrame:
    frame = df.assign(variant=df["label"].astype(str) + " [" + df["counter"].astype(str) + "]")
    matrix = frame.pivot_table(index="variant", columns="window", values=value, aggfunc="mean")
    matrix.columns = [_tokens(c) for c in matrix.columns]
    return matrix


def overflow_heatmap(fits: pd.DataFrame) -> Figure:
    """Real overflow rate (share of results over the window under each reference tokenizer).

    Args:
        fits: `ctxlab.analysis.tables.fit_rates` for one mode (label, counter, window, reference, overflow_rate).
    """
    title = "Real overflow: share of results over the window under each real tokenizer"
    if fits.empty:
        return _empty(title, "no reference tokenizer results to plot")
    refs = sorted(fits["reference"].unique())
    rows = fits.groupby(["label", "counter"]).ngroups
    with _style():
        fig, axes = _figure(len(refs), width=3.2 * len(refs) + 2.8, height=1.2 + 0.32 * rows)
        for i, (ax, ref) in enumerate(zip(axes, refs, strict=False)):
            matrix = _variant_matrix(fits[fits["reference"] == ref], "overflow_rate")
            _heatmap(ax, matrix, cmap="Reds", xlabel="window (tokens)")
            ax.set_title(f"measured with {ref}")
            if i:
                ax.set_yticks([])
        return _finish(fig, title)


def tool_integrity_heatmap(tools: pd.DataFrame) -> Figure:
    """Share of results whose tool calls and results stay paired, per variant x window.

    Args:
        tools: `ctxlab.analysis.tables.tool_integrity` for one mode.
    """
    title = "Tool integrity: no tool call without its result, no result without its call"
    if tools.empty:
        return _empty(title, "no results to plot")
    rows = tools.groupby(["label", "counter"]).ngroups
    with _style():
        fig, (ax,) = _figure(width=6.5, height=1.2 + 0.32 * rows)
        _heatmap(ax, _variant_matrix(tools, "tool_integrity"), xlabel="window (tokens)")
        return _finish(fig, title)


def pareto(points: pd.DataFrame) -> Figure:
    """Fact recall vs retained ratio per variant x window, with the Pareto frontier.

    Args:
        points: `ctxlab.analysis.tables.pareto_points` (label, counter, window, retained_ratio, fact_recall, on_front).
    """
    title = "Fact recall vs tokens kept: the frontier keeps the most facts for the fewest tokens"
    if points.empty:
        return _empty(title, "no fact recall in these results (replay without --no-quality)")
    with _style():
        fig, (ax,) = _figure(width=9.0, height=5.2 + LEGEND_ROW * _legend_rows(points))
        for label, counter in _variants(points):
            part = points[(points["label"] == label) & (points["counter"] == counter)].sort_values("window")
            ax.plot(part["retained_ratio"], part["fact_recall"], _line_style(counter), color=strategy_color(label),
                    marker=_marker(counter), ms=4, lw=0.8, alpha=0.8, label=f"{label} [{counter}]")
        front = points[points["on_front"]].sort_values("retained_ratio")
        ax.step(front["retained_ratio"], front["fact_recall"], where="post", color="black", lw=1.5, alpha=0.6,
                label="Pareto frontier")
        ax.scatter(front["retained_ratio"], front["fact_recall"], s=60, facecolors="none", edgecolors="black", lw=1)
        for row in _spread(front):
            ax.annotate(f"{row.label} @{_tokens(row.window)}", (row.retained_ratio, row.fact_recall), fontsize=7,
                        xytext=(5, -10), textcoords="offset points")
        ax.set_xlabel("retained-token ratio (lower = more compression)")
        ax.set_ylabel("fact recall (ground-truth facts kept)")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        _legend(fig, [ax])
        return _finish(fig, title)


def policy_front(front: pd.DataFrame, *, x: str = "effective_tokens",
                 xlabel: str = "tokens sent + refetch per session", chosen: str | None = None) -> Figure:
    """Needed-context recall against effective cost, one numbered point per policy (the key beside
    the chart names them, so ten policies in one corner stay readable), with the Pareto front and
    the calls a provider would reject (hollow: `ctxlab.analysis.sessions` rejected calls: orphaned
    tool pairs, over the window, or failed).

    Args:
        front: `ctxlab.analysis.recommend.frontier` (label, counter, needed_recall, needed_low,
            needed_high, effective_tokens, rejected_rate, on_front; or another `x`).
        x: the cost axis column: ``effective_tokens``, or ``effective_usd`` (its front is ``on_cost_front``).
        chosen: the label of the policy to run (the verdict's), ringed.
    """
    from ctxlab.analysis.labels import place_labels

    title = "Policies turn by turn: what the next action used, against what it costs"
    points = front.dropna(subset=[x, "needed_recall"]).sort_values(
        ["needed_recall", x], ascending=[False, True], ignore_index=True)
    if points.empty:
        return _empty(title, "no per-turn results with needed-context recall in this run (replay --mode per-turn)")
    with _style():
        fig = Figure(figsize=(12.5, 5.6), layout="constrained")
        ax, key = fig.subplots(1, 2, width_ratios=[2.1, 1.0])
        for row in points.itertuples():
            rejected = row.rejected_rate > 0
            color = strategy_color(str(row.label))
            ax.errorbar(getattr(row, x), row.needed_recall, yerr=[[row.needed_recall - row.needed_low],
                                                               [row.needed_high - row.needed_recall]],
                        fmt="o", ms=6, color=color, mfc="white" if rejected else color, capsize=2, lw=0.8)
        on = points[points["on_cost_front" if x == "effective_usd" else "on_front"].astype(bool)].sort_values(x)
        ax.step(on[x], on["needed_recall"], where="post", color="black", lw=1.2, alpha=0.5, label="Pareto front")
        if chosen is not None and chosen in set(points["label"]):
            pick = points[points["label"] == chosen].iloc[0]
            ax.scatter([pick[x]], [pick["needed_recall"]], s=220, facecolors="none", edgecolors="#d62728", lw=2,
                       label=f"run: {chosen}")
        place_labels(ax, points[x].tolist(), points["needed_recall"].tolist(), [str(i + 1) for i in points.index])
        ax.set_xlabel(xlabel + " (hollow: some calls rejected: orphaned, over the window or failed)")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"${v:,.2f}" if x == "effective_usd" else
                                                   f"{v / 1e6:g}M" if v >= 1e6 else _tokens(v)))
        ax.set_ylabel("needed-context recall, pooled over calls (95% CI over sessions)")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.legend(loc="lower right", fontsize=8)
        _policy_key(key, points, x)
        return _finish(fig, title)


def tuning_front(points: pd.DataFrame | None, *, x: str = "effective_tokens",
                 xlabel: str = "tokens sent + refetch per session", default: Any = None, current: Any = None,
                 title: str = "Settings of one agent: what the next action used, against what it costs") -> Figure:
    """A tuner's searched settings (black: on the front, grey: dominated), the agent's default (square) and the
    current setting (star), needed-context recall against effective cost with 95% intervals.

    Args:
        points: one row per searched setting (`ctxlab.tune.evaluations_frame` or a stored search):
            `x`, needed_recall, needed_low, needed_high, on_front; None or empty before any search.
        default, current: the agent's default and the current setting, each a mapping with the same
            keys (a `ctxlab.analysis.recommend.frontier` row), or None.
    """
    marks = [(m, style) for m, style in ((default, ("s", "#1f77b4", "the agent's default")),
                                         (current, ("*", "#d62728", "current setting"))) if m is not None]
    if (points is None or points.empty) and not marks:
        return _empty(title, "no setting evaluated yet")
    with _style():
        fig, (ax,) = _figure(width=9.0, height=4.6)
        if points is not None and not points.empty:
            shown = points.dropna(subset=[x, "needed_recall"])
            on = shown["on_front"].astype(bool)
            ax.scatter(shown.loc[~on, x], shown.loc[~on, "needed_recall"], s=18, color="#b0b0b0",
                       label="searched, dominated", zorder=2)
            ax.scatter(shown.loc[on, x], shown.loc[on, "needed_recall"], s=26, color="black",
                       label="searched, on the front", zorder=2)
        for mark, (marker, color, label) in marks:
            recall = float(mark["needed_recall"])
            ax.errorbar(float(mark[x]), recall, yerr=[[recall - float(mark["needed_low"])],
                                                      [float(mark["needed_high"]) - recall]],
                        fmt=marker, ms=12 if marker == "*" else 8, color=color, capsize=3, lw=1, label=label,
                        zorder=3)
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"${v:,.2f}" if x == "effective_usd" else
                                                   f"{v / 1e6:g}M" if v >= 1e6 else _tokens(v)))
        ax.set_ylabel("needed-context recall (95% CI over sessions)")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.legend(loc="lower right", fontsize=8)
        return _finish(fig, title)


def _policy_key(ax: Axes, points: pd.DataFrame, x: str) -> None:
    """The numbered key: number, policy, its recall and cost, best recall first."""
    ax.axis("off")
    money = x == "effective_usd"
    lines = [f"{i + 1:>2}  {str(r.label)[:44]:<44} {100 * r.needed_recall:5.1f}%  "
             + (f"${getattr(r, x):,.3f}" if money else f"{getattr(r, x):,.0f}") for i, r in enumerate(points.itertuples())]
    ax.text(0.0, 1.0, "\n".join(["#   policy" + " " * 40 + "recall  cost", *lines]), va="top", ha="left",
            family="monospace", fontsize=7, transform=ax.transAxes)


def session_cost(calls: pd.DataFrame, *, price_model: str) -> Figure:
    """One session's cost call by call per policy (left) and the cache tokens behind it (right:
    writes solid, reads dashed): a policy that rewrites the front of its prompt writes again.

    Args:
        calls: `ctxlab.analysis.costs.cumulative` of one session (call, cost_cum, read_cum, write_cum).
    """
    title = f"Cost of one session over its calls ({price_model}, prompt caching)"
    if calls.empty:
        return _empty(title, "no priced calls for this session (replay --mode per-turn --price-model MODEL)")
    lines = list(calls.groupby(["label", "counter", "window"], observed=True, sort=True))
    # One legend under both panels, its rows added to the height: inside a panel, 30 policies' names
    # would squeeze the plots to nothing.
    columns = 3
    with _style():
        fig, (left, right) = _figure(ncols=2, width=11.0, height=4.6 + 0.17 * -(-len(lines) // columns))
        for (label, counter, window), part in lines:
            color, name = strategy_color(str(label)), f"{label} [{counter}] @{_tokens(window)}"
            left.plot(part["call"], part["cost_cum"], color=color, lw=1.4, label=name)
            right.plot(part["call"], part["write_cum"], color=color, lw=1.4)
            right.plot(part["call"], part["read_cum"], color=color, lw=1.0, ls="--")
        left.set_xlabel("call")
        left.set_ylabel("cumulative cost (USD)")
        right.set_xlabel("call")
        right.set_ylabel("cumulative cache tokens (solid: written, dashed: read)")
        fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=columns, fontsize=7)
        return _finish(fig, title)


def _spread(points: pd.DataFrame, dx: float = 0.06, dy: float = 0.04) -> list:
    """The rows to annotate: walking along the frontier, skip a point too close to the last
    labelled one, so labels never pile up."""
    chosen: list = []
    for row in points.itertuples():
        last = chosen[-1] if chosen else None
        if (last is None or abs(row.retained_ratio - last.retained_ratio) > dx
                or abs(row.fact_recall - last.fact_recall) > dy):
            chosen.append(row)
    return chosen


def estimator_error_box(rows: pd.DataFrame, *, clip: tuple[float, float] = (-100.0, 200.0)) -> Figure:
    """Distribution of per-message estimator error (%) per estimator, one panel per reference.

    Args:
        rows: `estimator_errors` rows (counter, reference, error_pct).
        clip: the x range shown; values beyond it are drawn at the edge.
    """
    title = "Estimator error per message (% of the real count; negative = undercount = overflow risk)"
    rows = rows.dropna(subset=["error_pct"])
    if rows.empty:
        return _empty(title, "no estimator rows (replay without --no-estimators)")
    refs = sorted(rows["reference"].unique())
    counters = sorted(c for c in rows["counter"].unique())
    with _style():
        fig, axes = _figure(len(refs), width=4.3 * len(refs) + 1.5, height=1.4 + 0.38 * len(counters))
        for ax, ref in zip(axes, refs, strict=False):
            part = rows[(rows["reference"] == ref) & (rows["counter"] != ref)]
            names = [c for c in counters if c != ref and (part["counter"] == c).any()]
            data = [part.loc[part["counter"] == c, "error_pct"].clip(*clip).to_numpy() for c in names]
            ax.axvspan(clip[0], 0, color="#d62728", alpha=0.06)
            if data:
                box = ax.boxplot(data, orientation="horizontal", tick_labels=names, showfliers=False,
                                 patch_artist=True, widths=0.6)
                for patch, name in zip(box["boxes"], names, strict=False):
                    patch.set_facecolor("#9ecae1" if name != "calibrated" else "#a1d99b")
            ax.axvline(0, color="black", lw=0.8)
            ax.set_xlim(*clip)
            ax.set_title(f"against {ref}")
            ax.set_xlabel("error % (estimated - actual) / actual")
        return _finish(fig, title)


def estimator_heatmap(matrix: pd.DataFrame, *, title: str, xlabel: str) -> Figure:
    """Mean signed estimator error (%) as a diverging heatmap (estimators x kinds or languages).

    Args:
        matrix: `ctxlab.analysis.tables.estimator_matrix`.
    """
    if matrix.empty:
        return _empty(title, "no estimator rows")
    with _style():
        fig, (ax,) = _figure(width=1.8 + 1.05 * matrix.shape[1], height=1.3 + 0.36 * matrix.shape[0])
        _heatmap(ax, matrix, fmt="{:+.0f}%", cmap="RdBu", vmin=-100, vmax=100, xlabel=xlabel)
        return _finish(fig, title)


def reference_heatmap(matrix: pd.DataFrame) -> Figure:
    """Mean signed estimator error (%) per estimator and reference, tokenizers then providers.

    Args:
        matrix: `ctxlab.analysis.logs.reference_matrix`.
    """
    return estimator_heatmap(matrix, title="Mean signed error by reference (tokenizers, then providers)",
                             xlabel="reference")


def near_window_bars(near: pd.DataFrame) -> Figure:
    """Real overflow of results packed close to the window, per counter and reference.

    Args:
        near: `ctxlab.analysis.tables.near_window`.
    """
    title = "Near the window: results believed to fit (within 10%) that really overflow"
    if near.empty:
        return _empty(title, "no result came within 10% of its window")
    refs = sorted(near["reference"].unique())
    counters = sorted(near["counter"].unique())
    with _style():
        fig, (ax,) = _figure(width=7.5, height=1.4 + 0.45 * len(counters))
        height = 0.8 / len(refs)
        for i, ref in enumerate(refs):
            part = near[near["reference"] == ref].set_index("counter").reindex(counters)
            y = np.arange(len(counters)) + (i - (len(refs) - 1) / 2) * height
            ax.barh(y, part["overflow_rate"].fillna(0), height=height * 0.9, label=f"under {ref}",
                    color=_PALETTE[(i * 3) % len(_PALETTE)])
            for yy, rate, n in zip(y, part["overflow_rate"], part["units"], strict=False):
                if not pd.isna(rate):
                    ax.text(rate + 0.01, yy, f"{rate:.0%} of {int(n)}", va="center", fontsize=7)
        ax.set_yticks(range(len(counters)), counters)
        ax.set_xlim(0, 1.15)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("share over the window under the real tokenizer")
        ax.legend(loc="lower right")
        return _finish(fig, title)


def window_tuning(grid: pd.DataFrame, *, target_recall: float, max_overflow: float,
                  chosen: pd.DataFrame | None = None) -> Figure:
    """Fact recall and real overflow vs window for one strategy variant, per dataset, with the
    target lines and the smallest window meeting them.

    Args:
        grid: `ctxlab.analysis.tables.window_grid` rows of one variant and mode (dataset, window,
            fact_recall, overflow_rate).
        chosen: `ctxlab.analysis.tables.smallest_window` rows for the same variant (dataset, window).
    """
    title = f"Window tuning: target fact recall >= {target_recall:.0%}, real overflow <= {max_overflow:.0%}"
    if grid.empty:
        return _empty(title, "no results for this strategy")
    if grid["fact_recall"].isna().all():  # e.g. a `ctxlab tune` run: graded by needed recall only
        return _empty(title, "no fact recall measured in this run")
    with _style():
        fig, (left, right) = _figure(2, width=10, height=4.3)
        for i, (dataset, part) in enumerate(grid.groupby("dataset", sort=True)):
            part = part.sort_values("window")
            color = _PALETTE[i % len(_PALETTE)]
            left.plot(part["window"], part["fact_recall"], marker="o", color=color, label=str(dataset))
            right.plot(part["window"], part["overflow_rate"], marker="o", color=color, label=str(dataset))
            hit = chosen[chosen["dataset"] == dataset]["window"].dropna() if chosen is not None else []
            for window in hit:
                for ax in (left, right):
                    ax.axvline(int(window), color=color, ls=":", lw=1.2)
        left.axhline(target_recall, color="black", ls="--", lw=0.8)
        right.axhline(max_overflow, color="black", ls="--", lw=0.8)
        for ax, name in ((left, "fact recall"), (right, "real overflow rate")):
            _window_axis(ax, grid["window"])
            ax.set_ylabel(name)
            ax.set_ylim(-0.03, 1.05)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        _legend(fig, [left], title="dataset (dotted line: smallest window meeting the target)")
        return _finish(fig, title)


def summary_quality(quality: pd.DataFrame) -> Figure:
    """ROUGE-L of summaries (against the compacted messages and the reference summary) and the
    compression ratio, vs window per strategy variant.

    Args:
        quality: `ctxlab.analysis.tables.summary_quality` for one mode.
    """
    title = "Summary quality: ROUGE-L and compression, by window"
    if quality.empty:
        return _empty(title, "no strategy wrote a summary in these results")
    panels = [(c, name) for c, name in (("ref_rougeL", "ROUGE-L vs reference summary"),
                                        ("rougeL", "ROUGE-L vs compacted messages"),
                                        ("compression_ratio", "summary tokens / compacted tokens"))
              if c in quality and quality[c].notna().any()]
    if not panels:
        return _empty(title, "no summary metrics in these results")
    with _style():
        fig, axes = _figure(len(panels), width=3.6 * len(panels) + 0.6, height=3.6 + LEGEND_ROW * _legend_rows(quality))
        for ax, (column, name) in zip(axes, panels, strict=False):
            for label, counter in _variants(quality):
                part = quality[(quality["label"] == label) & (quality["counter"] == counter)].sort_values("window")
                ax.plot(part["window"], part[column], _line_style(counter), marker=_marker(counter), ms=3,
                        color=strategy_color(label), label=f"{label} [{counter}]")
            _window_axis(ax, quality["window"])
            ax.set_title(name)
            ax.set_ylim(bottom=0)
        _legend(fig, axes)
        return _finish(fig, title)


def drift_progress(drift: pd.DataFrame) -> Figure:
    """Fact recall along a session (per-turn mode), one panel per window.

    Args:
        drift: `ctxlab.analysis.tables.drift_by_progress`.
    """
    title = "Drift: fact recall as the session goes on (compressing before every model call)"
    if drift.empty:
        return _empty(title, "no per-turn results (replay with --mode per-turn)")
    return _recall_panels(drift, "progress_pct", "share of the conversation seen (%)", "fact recall so far", title)


def drift_cycles(cycles: pd.DataFrame, *, max_cycle: int = 20, min_conversations: int = 3) -> Figure:
    """Fact recall right after the k-th compaction of a session, per variant and window.

    Args:
        cycles: `ctxlab.analysis.tables.drift_by_cycle`.
        max_cycle: cycles shown.
        min_conversations: a cycle reached by fewer conversations is left out (too noisy).
    """
    title = "Drift by compaction cycle: recall right after the k-th compaction"
    if not cycles.empty:
        cycles = cycles[(cycles["cycle"] <= max_cycle) & (cycles["conversations"] >= min_conversations)]
    if cycles.empty:
        return _empty(title, "no compactions in per-turn results")
    return _recall_panels(cycles, "cycle", "compaction cycle", "fact recall", title)


def _recall_panels(frame: pd.DataFrame, x: str, xlabel: str, ylabel: str, title: str) -> Figure:
    """Fact recall against `x`, one line per strategy variant, one panel per window."""
    windows = sorted(frame["window"].unique())
    with _style():
        fig, axes = _facets(len(windows), legend_rows=_legend_rows(frame))
        for ax, window in zip(axes, windows, strict=False):
            part = frame[frame["window"] == window]
            for label, counter in _variants(part):
                line = part[(part["label"] == label) & (part["counter"] == counter)].sort_values(x)
                ax.plot(line[x], line["fact_recall"], _line_style(counter), marker=_marker(counter), ms=3,
                        color=strategy_color(label), label=f"{label} [{counter}]")
            ax.set_title(f"window {_tokens(window)}")
            ax.set_xlabel(xlabel)
            ax.set_ylim(0, 1.05)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        axes[0].set_ylabel(ylabel)
        _legend(fig, axes)
        return _finish(fig, title)


def cost_latency(cost: pd.DataFrame) -> Figure:
    """Strategy latency (median and p95 per unit) and LLM cost where a summarizer called one.

    Args:
        cost: `ctxlab.analysis.tables.cost_table` for one mode.
    """
    title = "Cost: strategy latency per unit (and LLM spend, when a summarizer called a model)"
    if cost.empty:
        return _empty(title, "no results")
    frame = cost.assign(variant=cost["label"].astype(str) + " [" + cost["counter"].astype(str) + "]")
    frame = frame.sort_values("p50_latency_ms")
    with _style():
        fig, (ax,) = _figure(width=8.5, height=1.3 + 0.34 * len(frame))
        y = np.arange(len(frame))
        ax.barh(y - 0.18, frame["p50_latency_ms"], height=0.36, color="#4c78a8", label="median")
        ax.barh(y + 0.18, frame["p95_latency_ms"], height=0.36, color="#f58518", label="p95")
        for yy, spend in zip(y, frame["llm_cost_usd"], strict=False):
            if spend and spend > 0:
                ax.text(ax.get_xlim()[1], float(yy), f" ${spend:,.4f}", va="center", fontsize=7)
        ax.set_yticks(y, frame["variant"])
        ax.set_xscale("log")
        ax.set_xlabel("milliseconds per unit (log scale)")
        ax.legend(loc="lower right")
        return _finish(fig, title)
