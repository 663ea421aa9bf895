"""Widgets and helpers every dashboard page shares: the run picker, filters, exports, escaping.

Pages stay thin: they call these, the cached queries of `dashboard.data`, and the pure functions
of `ctxlab.analysis.tables` / `ctxlab.analysis.plots`. Dataset text is untrusted, so it is only ever shown with
``st.text``, ``st.code``, ``st.dataframe`` or markdown-escaped (`md`); no HTML is rendered.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import streamlit as st
from matplotlib.figure import Figure

from ctxlab.analysis import plots as P
from dashboard import data

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md(text: Any) -> str:
    """`text` with every markdown (and HTML-looking) character backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def require_db() -> data.Db:
    """The database, or stop the page with a message saying how to get one."""
    db, problem = data.open_db()
    if db is None:
        st.warning(problem)
        st.stop()
    return db


def _run_label(runs: pd.DataFrame) -> dict[str, str]:
    return {r.run_id: f"{r.name} ({r.run_id[:8]}, {r.status})" for r in runs.itertuples()}


def _sticky(widget_key: str) -> None:
    st.session_state[f"keep-{widget_key}"] = st.session_state[widget_key]


def sticky_selectbox(label: str, options: list[Any], key: str, **kwargs: Any) -> Any:
    """A sidebar selectbox whose choice survives page switches.

    Streamlit forgets a widget's state when a page without it runs; the choice is therefore kept
    under a plain session key (updated by the change callback, which runs before the rerun) and
    seeds the widget on every page.
    """
    kept = st.session_state.get(f"keep-{key}")
    st.session_state[key] = kept if kept in options else options[0]
    return st.sidebar.selectbox(label, options, key=key, on_change=_sticky, args=(key,), **kwargs)


def pick_run(db: data.Db) -> str:
    """The run chosen in the sidebar (newest by default); the choice follows the user across pages.
    The one-setting runs `ctxlab tune` stores are left out (the Tuning page shows their search)
    unless there is nothing else."""
    runs = data.runs(db)
    replays = runs[runs["tuned"].isna()] if "tuned" in runs else runs
    labels = _run_label(replays if len(replays) else runs)
    return sticky_selectbox("Run", list(labels), "run", format_func=labels.get)


def pick_dataset(db: data.Db, run_id: str) -> str | None:
    """A dataset of the run, or None for all of them."""
    choice = sticky_selectbox("Dataset", ["(all)", *data.datasets(db, run_id)], "dataset")
    return None if choice == "(all)" else choice


def pick_mode(results: pd.DataFrame, key: str = "mode") -> str | None:
    """Final or per-turn, among the modes the run has."""
    modes = sorted(results["mode"].dropna().unique())
    if not modes:
        return None
    default = modes.index("final") if "final" in modes else 0
    return st.sidebar.radio("Mode", modes, index=default, key=key, horizontal=True)


def run_results(title: str, *, pick_mode_too: bool = True) -> tuple[data.Db, str, str | None, pd.DataFrame, str | None]:
    """A page's opening: its title, the sidebar's run, dataset and mode (None for a page that
    shows one mode only), and the run's result rows (the page stops with a note when it has none)."""
    st.title(title)
    db = require_db()
    run_id = pick_run(db)
    dataset = pick_dataset(db, run_id)
    results = data.results(db, run_id, dataset)
    if results.empty:
        st.info("This run has no results yet.")
        st.stop()
    return db, run_id, dataset, results, pick_mode(results) if pick_mode_too else None


def downloads(table: pd.DataFrame | None, png: bytes | None, name: str) -> None:
    """CSV of the table and PNG of the figure shown, side by side."""
    left, right = st.columns(2)
    if table is not None:
        left.download_button("Download table (CSV)", table.to_csv(index=False).encode("utf-8"),
                             file_name=f"{name}.csv", mime="text/csv", key=f"csv-{name}")
    if png is not None:
        right.download_button("Download figure (PNG)", png, file_name=f"{name}.png", mime="image/png",
                              key=f"png-{name}")


def show(fig: Figure) -> bytes:
    """Show a figure at its own size (at most the page's width); returns the PNG shown, which the
    download button offers as is."""
    png = P.png(fig)
    st.image(png, width="content")
    return png


def percent_columns(df: pd.DataFrame, names: list[str]) -> dict[str, Any]:
    """Column configs showing fractions (`names`) and ``*_pct`` columns (already percentages) as
    percentages with one decimal."""
    config = {c: st.column_config.NumberColumn(c, format="%.1f%%") for c in df.columns if str(c).endswith("_pct")}
    config.update({c: st.column_config.NumberColumn(c, format="percent") for c in names if c in df.columns})
    return config


def param_controls(name: str, stored: dict[str, Any], key: str) -> dict[str, Any]:
    """Inputs for a strategy's parameters (from `strategy_params`), starting at the stored spec's
    values; returns the ones the user changed."""
    import json

    from ctxlab.analysis import explain

    changed: dict[str, Any] = {}
    for param, default in explain.editable_params(name).items():
        current = stored.get(param, default)
        wkey = f"{key}-{param}"
        if isinstance(default, bool):
            value = st.checkbox(param, value=bool(current), key=wkey)
        elif isinstance(default, int) and not isinstance(current, float):
            value = int(st.number_input(param, value=int(current), step=1, key=wkey))
        elif isinstance(default, float | int):
            value = float(st.number_input(param, value=float(current), step=0.05, format="%.3f", key=wkey))
        elif isinstance(default, str):
            value = st.text_input(param, value=str(current), key=wkey)
        else:
            text = st.text_input(f"{param} (JSON)", value="" if current is None else json.dumps(current), key=wkey)
            value = explain.parse_param(text, default)
            current = explain.parse_param("" if current is None else json.dumps(current), default)
        if value != current:
            changed[param] = value
    return changed
