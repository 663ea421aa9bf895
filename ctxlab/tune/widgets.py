"""The live tuner in a notebook (notebook 04): sessions from a stored run or a log folder, the
setting shown beside the agent's default (table, chart, snippets), and ipywidgets sliders in the
agent's own names that re-show it on every change.

    tuner, window = open_tuner("ctxlab.duckdb")                # the run's dataset with the most calls
    show(tuner, "pi", window, {"compaction.keepRecentTokens": 8000})
    panel(tuner, "pi", window)                                 # display() it: sliders + live output

The dashboard's Tuning page draws the same points (`ctxlab.tune.live`) with Streamlit widgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.tune.live import LiveTuner, Point, beside, sliders

# A log folder has no run config to read a window from: a common size of today's smaller models.
LOGS_WINDOW = 64_000
SHOWN = ("setting", "label", "needed_recall", "needed_low", "needed_high", "in_context_recall",
         "instruction_survival", "tokens_sent", "effective_tokens", "effective_usd", "orphan_rate", "overflow_rate")


def open_tuner(db: str, run: str | None = None, dataset: str | None = None,
               logs: str | None = None) -> tuple[LiveTuner, int]:
    """A live tuner and the window to start at: over the agent logs in `logs` (bad records skipped,
    at `LOGS_WINDOW`), else over one dataset a run stored (`dataset`, or the one whose sessions make
    the most provider calls) at the run's largest window.

    Raises:
        CtxlabError: no run, or a run that stored no conversation records.
    """
    from ctxlab.tune.sessions import Sessions

    if logs:
        return LiveTuner(Sessions.load([logs], skip_invalid=True)), LOGS_WINDOW
    from ctxlab import store
    from ctxlab.analysis import frames

    with store.reading(frames.locate_db(db)) as con:
        run_id = store.resolve_run(con, run)
        windows = frames.run_info(con, run_id)["config"].get("windows") or [LOGS_WINDOW]
        names = [dataset] if dataset else frames.datasets(con, run_id)
        stored = [Sessions.stored(con, run_id, name) for name in names]
    best = max(stored, key=lambda s: s.calls, default=None)  # the first of equals
    if best is None or not best.items:
        raise CtxlabError(f"run {run_id} stored no conversation records to tune on (replay with records kept, "
                          "or pass logs=)")
    return LiveTuner(best), int(max(windows))


def show(tuner: LiveTuner, preset: str, window: int, values: Mapping[str, float] | None = None,
         price_model: str | None = None, points: Any = None) -> Point:
    """Display the setting where the knobs in `values` sit (the rest at the agent's default) beside
    the default: their numbers, the chart (with a search's `points`, if any) and the snippets."""
    from IPython.display import display

    from ctxlab.analysis import plots as P

    current = tuner.point(preset, window, values or {}, price_model)
    default = tuner.default(preset, window, price_model)
    table = beside(default, current)
    display(table[[c for c in SHOWN if c in table]])
    x = "effective_usd" if price_model else "effective_tokens"
    display(P.tuning_front(points, x=x, default=default.scored.row, current=current.scored.row,
                           xlabel="$ per session with prompt caching + refetch" if price_model
                           else "tokens sent + refetch per session", title=f"{preset} at {window:,} tokens"))
    for snippet in current.snippets:
        print(f"{snippet.title} (names from {snippet.source}):\n{snippet.text}\n")
    return current


def panel(tuner: LiveTuner, preset: str, window: int, price_model: str | None = None, points: Any = None) -> Any:
    """Sliders for `preset`'s knobs at `window` (the agent's names, at its default) above an output
    that `show` s the setting they make after every change; display() the returned box."""
    import ipywidgets as w

    controls = {knob.name: (w.IntSlider if knob.kind == "int" else w.FloatSlider)(
        value=knob.default, min=knob.low, max=knob.high, step=knob.step, description=knob.name,
        continuous_update=False, style={"description_width": "initial"}, layout=w.Layout(width="640px"),
        tooltip=knob.note) for knob in sliders(preset, window)}
    out = w.Output()

    def refresh(_: Any = None) -> None:
        with out:
            out.clear_output(wait=True)
            try:
                show(tuner, preset, window, {name: c.value for name, c in controls.items()}, price_model, points)
            except CtxlabError as exc:  # a setting the agent forbids (OpenHands' keep_first)
                print(exc)

    for control in controls.values():
        control.observe(refresh, names="value")
    refresh()
    return w.VBox([*controls.values(), out])


__all__ = ["LOGS_WINDOW", "open_tuner", "panel", "show"]
