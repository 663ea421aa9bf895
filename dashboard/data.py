"""The one place the dashboard reads the store: cached, read-only, one short connection per query.

The database is `CTXLAB_DB` (default ``ctxlab.duckdb`` in the working folder). Every cached
function takes the database path and its modification time, so results written by a replay
still running show up on the next rerun while unchanged data stays cached. Connections are
opened read-only and closed at once, because DuckDB lets a writer in only when no reader holds
the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pandas as pd
import streamlit as st

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis import tables as A
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation

if TYPE_CHECKING:
    from ctxlab.analysis.recommend import Policies
    from ctxlab.tune.live import LiveTuner

TTL = "10m"


class Db(NamedTuple):
    """A database file and the version of its contents (mtime), the key of every cache entry."""

    path: str
    version: float


def db_path() -> str:
    """`CTXLAB_DB`, else ``ctxlab.duckdb`` in the working folder."""
    return os.environ.get("CTXLAB_DB") or store.DEFAULT_DB


def open_db() -> tuple[Db | None, str | None]:
    """The database to show, or None and a message saying what is wrong and how to fix it."""
    path = db_path()
    if not Path(path).exists():
        return None, (f"No ctxlab database at `{path}`. Create one with `ctxlab demo` or `ctxlab replay ... "
                      "--db PATH`, then start the dashboard with `ctxlab dashboard --db PATH` (or set CTXLAB_DB).")
    db = Db(str(Path(path).resolve()), Path(path).stat().st_mtime)
    try:
        if runs(db).empty:
            return None, f"The database `{path}` has no runs yet. Run `ctxlab replay` or `ctxlab demo` to fill it."
    except CtxlabError as exc:
        return None, f"Cannot read `{path}`: {exc}"
    return db, None


def _read(db: Db, fn: Any, *args: Any, **kwargs: Any) -> Any:
    with store.reading(db.path) as con:
        return fn(con, *args, **kwargs)


@st.cache_data(ttl=TTL, show_spinner=False)
def standin_gap(db: Db) -> Any:
    """How kind the offline stand-in of summaries was on recorded compactions (`StandinGap`): the
    store's newest grading, else the shipped measurement."""
    from ctxlab.analysis.standin_shipped import stored_gap

    return _read(db, stored_gap)


@st.cache_data(ttl=TTL, show_spinner=False)
def runs(db: Db) -> pd.DataFrame:
    """Every run, newest first."""
    return _read(db, store.runs)


@st.cache_data(ttl=TTL, show_spinner=False)
def run_info(db: Db, run_id: str) -> dict[str, Any]:
    """One run's spec: config, versions, fingerprints, notes and totals."""
    return _read(db, frames.run_info, run_id)


@st.cache_data(ttl=TTL, show_spinner="Loading results...")
def results(db: Db, run_id: str, dataset: str | None = None) -> pd.DataFrame:
    """The run's `results` rows (one per unit and reference)."""
    return _read(db, frames.results, run_id, dataset=dataset)


@st.cache_data(ttl=TTL, show_spinner=False)
def datasets(db: Db, run_id: str) -> list[str]:
    """The datasets of a run."""
    return _read(db, frames.datasets, run_id)


@st.cache_data(ttl=TTL, show_spinner=False)
def variants(db: Db, run_id: str) -> pd.DataFrame:
    """The strategy variants of a run with their full specs."""
    return _read(db, frames.variants, run_id)


@st.cache_data(ttl=TTL, show_spinner="Loading estimator errors...")
def estimator_rows(db: Db, run_id: str, dataset: str | None = None) -> pd.DataFrame:
    """Per-message estimator errors."""
    return _read(db, frames.estimator_rows, run_id, dataset=dataset)


@st.cache_data(ttl=TTL, show_spinner=False)
def summaries(db: Db, run_id: str, dataset: str | None = None) -> pd.DataFrame:
    """Summaries with their metrics."""
    return _read(db, frames.summaries, run_id, dataset=dataset)


@st.cache_data(ttl=TTL, show_spinner=False)
def recorded_compactions(db: Db, run_id: str, dataset: str | None = None) -> pd.DataFrame:
    """Agent logs' own compactions beside ctxlab's strategies (empty for other datasets)."""
    return _read(db, store.recorded_compactions, run_id, dataset=dataset)


@st.cache_data(ttl=TTL, show_spinner=False)
def skips(db: Db, run_id: str) -> pd.DataFrame:
    """Input records the run skipped."""
    return _read(db, store.skips, run_id)


@st.cache_data(ttl=TTL, show_spinner=False)
def conversations(db: Db, run_id: str) -> pd.DataFrame:
    """The run's conversations (dataset, seq, id, messages, tokens)."""
    return _read(db, store.conversations, run_id)


@st.cache_data(ttl=TTL, show_spinner=False)
def conversation(db: Db, run_id: str, dataset: str, conversation_id: str) -> Conversation:
    """A stored conversation record, ready to compress again."""
    return _read(db, store.conversation, run_id, conversation_id, dataset=dataset)


@st.cache_data(ttl=TTL, show_spinner="Computing the comparison (bootstrap intervals)...")
def headline(db: Db, run_id: str, dataset: str | None, mode: str) -> pd.DataFrame:
    """`ctxlab.analysis.tables.headline` of one mode (cached: the bootstrap takes a moment)."""
    df = results(db, run_id, dataset)
    return A.headline(df[df["mode"] == mode])


@st.cache_data(ttl=TTL, show_spinner=False)
def retained_ci(db: Db, run_id: str, dataset: str | None, mode: str) -> pd.DataFrame:
    """`ctxlab.analysis.tables.retained_ci` of one mode."""
    df = results(db, run_id, dataset)
    return A.retained_ci(df[df["mode"] == mode])


@st.cache_data(ttl=TTL, show_spinner=False)
def stored_unit(db: Db, run_id: str, dataset: str, conversation_id: str, label: str, counter: str,
                window: int) -> pd.DataFrame:
    """The stored final-mode unit of one conversation, variant and window (empty if none)."""
    df = results(db, run_id, dataset)
    unit = A.per_unit(df)
    return unit[(unit["conversation_id"] == conversation_id) & (unit["label"] == label) & (unit["counter"] == counter)
                & (unit["window"] == window) & (unit["mode"] == "final")]


@st.cache_data(ttl=TTL, show_spinner=False)
def session_costs(db: Db, run_id: str, dataset: str | None = None) -> pd.DataFrame:
    """What each session cost per variant, window and price model (empty when the run priced nothing)."""
    return _read(db, store.session_costs, run_id, dataset=dataset)


@st.cache_data(ttl=TTL, show_spinner=False)
def unit_costs(db: Db, run_id: str, dataset: str, price_model: str) -> pd.DataFrame:
    """Every priced call of a run's sessions under one price model."""
    return _read(db, store.unit_costs, run_id, dataset=dataset, price_model=price_model)


@st.cache_data(ttl=TTL, show_spinner="Building the policy front...")
def policies(db: Db, run_id: str, dataset: str | None, reference: str, window: int,
             price_model: str | None = None) -> Policies:
    """`ctxlab.analysis.recommend.policies` of a run's per-turn units at one window: the front, its
    session rows and the verdict every face gives (dollars under `price_model` when given, refetch
    priced at its uncached input price)."""
    from ctxlab.analysis.recommend import policies as decide
    from ctxlab.cost import input_price

    df = results(db, run_id, dataset)
    costs, price = None, None
    if price_model is not None:
        costs = session_costs(db, run_id, dataset)
        costs = costs[(costs["price_model"] == price_model) & (costs["window"] == window)]
        price = input_price(price_model)
    return decide(df[df["window"] == window], reference, costs, price, dataset=dataset or "")


# ---- the live tuner (`ctxlab.tune.live`): sessions kept in this process, settings evaluated here ----

@st.cache_resource(show_spinner="Reading the run's sessions...", max_entries=4)
def run_tuner(db: Db, run_id: str, dataset: str) -> LiveTuner:
    """A live tuner over one dataset of a run (its stored records; none when the run kept none)."""
    from ctxlab.tune import Sessions
    from ctxlab.tune.live import LiveTuner

    return LiveTuner(_read(db, Sessions.stored, run_id, dataset))


@st.cache_resource(show_spinner="Reading the logs...", max_entries=4)
def folder_tuner(path: str, version: float) -> LiveTuner:
    """A live tuner over the agent logs in a folder or file (`version`: its modification time);
    bad records are skipped (`LiveTuner.sessions.skips` lists them)."""
    from ctxlab.tune import Sessions
    from ctxlab.tune.live import LiveTuner

    return LiveTuner(Sessions.load([path], skip_invalid=True))


@st.cache_data(ttl=TTL, show_spinner=False)
def tune_searches(db: Db) -> pd.DataFrame:
    """The searches `ctxlab tune` stored, newest first."""
    return _read(db, store.tune_searches)


@st.cache_data(ttl=TTL, show_spinner=False)
def tune_evaluations(db: Db, search_id: str) -> pd.DataFrame:
    """The settings one stored search evaluated, with their measures and front flags."""
    return _read(db, store.tune_evaluations, search_id)
